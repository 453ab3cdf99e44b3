import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import OpenPhotos
import PhotosTestHarness
import PhotosTesting
import Testing

/// Uploads: streamed to a file, imported together (content sniffed, duplicates named, Live Photos joined).
@Suite("Uploads")
struct UploadTests {
    @Test(arguments: LibraryProviders.all) func uploadsAreImportedTogetherWithDuplicatesAndLivePhotos(_ provider: any LibraryProvider) async throws {
        let fixture = try ServerFixture(name: "Uploads", provider: provider)
        defer { fixture.library.remove() }
        let scratch = fixture.library.scratch
        let id = "6E8C9C22-5F0B-4C43-9A0E-222222222222"
        let still = scratch.appendingPathComponent("IMG_0100.JPG")
        try TestMedia.writeJPEG(to: still, width: 64, height: 48, exif: TestEXIF(dateTimeOriginal: "2024:05:01 10:00:00", appleContentIdentifier: id))
        let movie = scratch.appendingPathComponent("IMG_0100.MOV")
        try TestMedia.writeMovie(to: movie, keys: ["com.apple.quicktime.content.identifier": id])
        let plain = try fixture.library.makeImage("plain.jpg")
        let files = try [still, movie, plain].map { ($0.lastPathComponent, try Data(contentsOf: $0)) }
        let writer = try fixture.token("phone", .authorized)
        let scanner = try fixture.token("scanner", .authorized, accessLevel: .addOnly)
        let reader = try fixture.token("frame", .limited)
        let library = fixture.library
        try await fixture.test { client in
            func upload(_ name: String, _ data: Data, token: String) async throws -> String {
                let response = try await client.execute(
                    uri: "/v1/uploads?filename=\(name)", method: .post, headers: [.authorization: "Bearer \(token)"],
                    body: ByteBuffer(bytes: data))
                #expect(response.status == .created, "\(response.json)")
                #expect(response.json["size"] as? Int == data.count)
                return try #require(response.json["upload"] as? String)
            }
            var uploads: [String] = []
            for (name, data) in files { uploads.append(try await upload(name, data, token: scanner)) }
            let created = try await client.call("/v1/assets", .post, token: scanner, json: ["uploads": uploads])
            #expect(created.status == .ok, "\(created.json)")
            #expect((created.json["created"] as? [String])?.count == 2 && created.json["livePhotosPaired"] as? Int == 1)
            let live = try #require(
                PHAsset.fetchAssets(with: .image, options: library.options()).objects(at: IndexSet(0..<2)).first {
                    $0.mediaSubtypes.contains(.photoLive)
                })
            #expect(PHAssetResource.assetResources(for: live).map(\.originalFilename).sorted() == ["IMG_0100.JPG", "IMG_0100.MOV"])
            // The digests the server computed while receiving (the import trusts them) are the files' own.
            let expected = Dictionary(uniqueKeysWithValues: files.map { ($0.0, SHA256.hash(data: $0.1).map { String(format: "%02x", $0) }.joined()) })
            for resource in PHAssetResource.assetResources(for: live) {
                #expect(resource.sha256 == expected[resource.originalFilename], "\(resource.originalFilename)")
            }

            // The same bytes again: the existing asset. A file that is not media: refused with its reason.
            let again = try await upload("copy.jpg", files[2].1, token: writer)
            let junk = try await upload("notes.jpg", Data("not a photo".utf8), token: writer)
            let second = try await client.call("/v1/assets", .post, token: writer, json: ["uploads": [again, junk]])
            #expect(second.status.code == 207, "\(second.json)")
            let duplicates = try #require(second.json["duplicates"] as? [[String: Any]])
            #expect(duplicates.first?["upload"] as? String == again && duplicates.first?["existing"] != nil)
            #expect((second.json["failures"] as? [[String: Any]])?.first?["upload"] as? String == junk)

            // Uploads belong to their client and are used once; limited clients may upload, denied ones may not.
            #expect(try await client.call("/v1/assets", .post, token: writer, json: ["uploads": [uploads[0]]]).status == .notFound)
            let denied = try await client.execute(
                uri: "/v1/uploads?filename=x.jpg", method: .post, headers: [.authorization: "Bearer \(try fixture.token("none", .denied))"],
                body: ByteBuffer(bytes: files[2].1))
            #expect(denied.status == .forbidden)
            let unused = try await upload("mine.jpg", files[0].1, token: reader)

            // Two files sent under one name are both imported under that name; an upload listed twice is refused.
            let twins = try [64, 65].map { width in
                try Data(contentsOf: try library.makeImage("twin-\(width).jpg", width: width, height: 40))
            }
            let firstTwin = try await upload("same.jpg", twins[0], token: writer)
            let secondTwin = try await upload("same.jpg", twins[1], token: writer)
            #expect(try await client.call("/v1/assets", .post, token: writer, json: ["uploads": [firstTwin, firstTwin]]).status == .badRequest)
            let both = try await client.call("/v1/assets", .post, token: writer, json: ["uploads": [firstTwin, secondTwin]])
            let bothIDs = try #require(both.json["created"] as? [String], "\(both.json)")
            #expect(bothIDs.count == 2)
            let names = PHAsset.fetchAssets(
                withLocalIdentifiers: bothIDs.map { $0.replacingOccurrences(of: "_", with: "/") }, options: library.options()
            )
            .objects(at: IndexSet(0..<2)).map { PHAssetResource.assetResources(for: $0).first?.originalFilename }
            #expect(names == ["same.jpg", "same.jpg"])
            #expect(try await client.call("/v1/uploads?filename=..", .post, token: writer).status == .badRequest)
            let empty = try await client.execute(uri: "/v1/uploads?filename=e.jpg", method: .post, headers: [.authorization: "Bearer \(writer)"])
            #expect(empty.status == .badRequest)

            // Imported uploads were moved into the library (written once); only the one never used is left, as a file
            // named by its upload id (beside it, the lock of the server's folder).
            let folder = library.filesFolder.appendingPathComponent("private/uploads")
            let left = (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []).filter {
                var isFolder: ObjCBool = false
                return FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path, isDirectory: &isFolder) && !isFolder.boolValue
                    && !$0.hasSuffix(".lock")
            }
            #expect(left.map { ($0 as NSString).lastPathComponent } == [unused], "\(left)")
            let problems = try library.library.verify().problems
            #expect(problems.isEmpty, "\(problems)")
        }
    }

    /// curl sends `Expect: 100-continue` before a body over 1 MB and waits a second for the answer: the server says
    /// `100 Continue` at once, then gives its final answer once the body has come. The body (a photo with 3 MB of
    /// trailing bytes, written in several pieces while the rest arrives) is imported with the digest of its bytes.
    @Test func aClientThatExpectsContinueIsToldToGoOnAtOnce() async throws {
        let fixture = try ServerFixture(name: "Continue")
        defer { fixture.library.remove() }
        let token = try fixture.token("phone", .authorized)
        let body = try [UInt8](Data(contentsOf: try fixture.library.makeImage("big.jpg"))) + (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        try await fixture.test { client in
            let port = try #require(client.port)
            // On a thread of its own (a blocking socket must not hold the pool the server runs on); checked after.
            let (interim, sent, final) = try await blockingOffThePool { () throws -> (String, Bool, String) in
                guard let fd = connectToLoopback(port: port, receiveTimeout: 30) else { throw POSIXError(.ECONNREFUSED) }
                defer { close(fd) }
                func receive(until done: (String) -> Bool) -> String {
                    var received: [UInt8] = []
                    var chunk = [UInt8](repeating: 0, count: 4096)
                    while !done(String(decoding: received, as: UTF8.self)) {
                        let count = recv(fd, &chunk, chunk.count, 0)
                        if count <= 0 { break }
                        received += chunk[0..<count]
                    }
                    return String(decoding: received, as: UTF8.self)
                }
                let head = Array(
                    ("POST /v1/uploads?filename=big.jpg HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
                        + "Content-Length: \(body.count)\r\nExpect: 100-continue\r\n\r\n").utf8)
                guard send(fd, head, head.count, 0) == head.count else { throw POSIXError(.EIO) }
                // Only the interim answer can come before the body is sent.
                let interim = receive { $0.hasSuffix("\r\n\r\n") }
                let sent = body.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) } == body.count
                return (interim, sent, receive { $0.contains("}") })
            }
            #expect(interim == "HTTP/1.1 100 Continue\r\n\r\n", "\(interim.debugDescription)")
            #expect(sent)
            #expect(final.hasPrefix("HTTP/1.1 201 Created\r\n"), "\(final)")
            #expect(final.contains("\(body.count)"), "\(final)")
            let answer = try #require(final.range(of: "\r\n\r\n").map { Data(final[$0.upperBound...].utf8) })
            let upload = try #require((try JSONSerialization.jsonObject(with: answer) as? [String: Any])?["upload"] as? String)
            let created = try await client.call("/v1/assets", .post, token: token, json: ["uploads": [upload]])
            let id = try #require((created.json["created"] as? [String])?.first, "\(created.json)")
            let asset = try #require(
                PHAsset.fetchAssets(withLocalIdentifiers: [id.replacingOccurrences(of: "_", with: "/")], options: fixture.library.options())
                    .firstObject)
            let resource = try #require(PHAssetResource.assetResources(for: asset).first)
            #expect(resource.sha256 == SHA256.hash(data: body).map { String(format: "%02x", $0) }.joined())
            let problems = try fixture.library.library.verify().problems
            #expect(problems.isEmpty, "\(problems)")
        }
    }
}
