import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OpenPhotos
import PhotosTestHarness
import PhotosTesting
import Synchronization
import Testing

@testable import PhotosServer

/// Images answered before the router (``CachedImageHandler``): the same answer as the router's, in request order on
/// a connection that pipelines, and never after the token or the asset changed.
@Suite("Cached images before the router")
struct CachedImageTests {
    /// Pipelined requests on one socket; the raw answers, split by their Content-Length. The socket's reads block: on
    /// a thread of their own, off the cooperative threads that the server in this process answers on.
    static func pipelined(port: Int, _ requests: [String]) async throws -> [(head: String, body: [UInt8])] {
        try await blockingOffThePool { try blockingPipelined(port: port, requests) }
    }

    private static func blockingPipelined(port: Int, _ requests: [String]) throws -> [(head: String, body: [UInt8])] {
        guard let fd = connectToLoopback(port: port, receiveTimeout: 20) else { throw POSIXError(.ECONNREFUSED) }
        defer { close(fd) }
        let all = Array(requests.joined().utf8)
        guard send(fd, all, all.count, 0) == all.count else { throw POSIXError(.EIO) }
        var received: [UInt8] = []
        var answers: [(String, [UInt8])] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while answers.count < requests.count {
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { throw POSIXError(.ETIMEDOUT) }
            received += chunk[0..<count]
            while let end = received.indices.dropLast(3).first(where: { received[$0..<$0 + 4] == [13, 10, 13, 10] }) {
                let head = String(decoding: received[..<end], as: UTF8.self)
                let length =
                    head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                guard received.count >= end + 4 + length else { break }
                answers.append((head, Array(received[(end + 4)..<(end + 4 + length)])))
                received.removeFirst(end + 4 + length)
            }
        }
        return answers
    }

    /// Every version's ETag names the file that version renders: the original for `unadjusted` and `original`, never
    /// the base a stacked edit was made on (it named that base while the original was rendered).
    @Test(arguments: LibraryProviders.all) func everyVersionsETagNamesTheFileItRenders(_ provider: any LibraryProvider) async throws {
        let fixture = try ServerFixture(name: "VersionTags", provider: provider)
        defer { fixture.library.remove() }
        let ids = try fixture.library.addImages(1)
        let id = try #require(ids.first)
        let library = fixture.library
        func asset() throws -> PHAsset { try #require(PHAsset.fetchAssets(withLocalIdentifiers: [id], options: library.options()).firstObject) }
        // Two edits, the second by an editor that does not read the first's recipe: it stacks on the first rendering,
        // which the library keeps as the adjustment base.
        for (recipe, handles) in [("A", true), ("B", false)] {
            let options = PHContentEditingInputRequestOptions()
            options.canHandleAdjustmentData = { _ in handles }
            let target = try asset()
            let input = try await target.requestContentEditingInput(with: options)
            let output = PHContentEditingOutput(contentEditingInput: input)
            let url = try #require(input.fullSizeImageURL)
            let image = try #require(CIImage(contentsOf: url))
            let crop = CGRect(x: 0, y: 0, width: recipe == "A" ? 30 : 20, height: 20)
            try CIContext().writeJPEGRepresentation(
                of: image.cropped(to: crop), to: output.renderedContentURL, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!)
            output.adjustmentData = PHAdjustmentData(formatIdentifier: "com.example.tests", formatVersion: "1", data: Data(recipe.utf8))
            try library.library.performChangesAndWait { PHAssetChangeRequest(for: target).contentEditingOutput = output }
        }
        let resources = PHAssetResource.assetResources(for: try asset())
        #expect(Set(resources.map(\.type)) == [.photo, .fullSizePhoto, .adjustmentData, .adjustmentBasePhoto])
        func hash(_ type: PHAssetResourceType) throws -> String {
            let sha = try #require(resources.first { $0.type == type }?.sha256)
            return String(sha.prefix(32))
        }
        let token = try fixture.token("phone", .authorized)
        let expected = [("current", try hash(.fullSizePhoto)), ("unadjusted", try hash(.photo)), ("original", try hash(.photo))]
        try await fixture.test { client in
            var served: [String: [UInt8]] = [:]
            for (version, hash) in expected {
                let answer = try await client.call("/v1/assets/\(urlID(id))/image?size=16x16&version=\(version)", token: token)
                let etag = try #require(answer.headers[.eTag])
                #expect(answer.status == .ok && etag.hasPrefix("\"\(hash)-"), "\(version): \(etag)")
                served[version] = answer.bytes
            }
            // The bytes agree with the names: unadjusted and original render the original, current the rendering.
            #expect(served["unadjusted"] == served["original"] && served["current"] != served["original"])
        }
    }

    @Test(arguments: LibraryProviders.all) func answersAreTheRoutersInOrderAndNeverStale(_ provider: any LibraryProvider) async throws {
        let fixture = try ServerFixture(name: "CachedImages", provider: provider)
        defer { fixture.library.remove() }
        let ids = try fixture.library.addImages(2)
        let token = try fixture.token("phone", .authorized)
        let owner = fixture.library.library
        let services = fixture.server.services
        let path = "/v1/assets/\(urlID(ids[0]))/image?size=40x40&mode=fill"
        try await fixture.test { client in
            // The first request renders through the router; the second is answered before it, identically.
            let rendered = try await client.call(path, token: token)
            #expect(rendered.status == .ok && services.cachedAnswers.load(ordering: .relaxed) == 0)
            let cached = try await client.call(path, token: token)
            #expect(services.cachedAnswers.load(ordering: .relaxed) == 1)
            #expect(cached.status == .ok && cached.bytes == rendered.bytes && !cached.bytes.isEmpty)
            for name in [HTTPField.Name.eTag, .cacheControl, .vary, .contentType, .contentLength, .server] {
                #expect(cached.headers[name] == rendered.headers[name], "\(name)")
                #expect(cached.headers[name] != nil, "\(name)")
            }
            #expect(cached.headers[.date] != nil && cached.headers[.requestID] != nil)
            #expect(cached.headers[.requestID] != rendered.headers[.requestID])
            let etag = try #require(cached.headers[.eTag])
            let notModified = try await client.call(path, token: token, headers: [.ifNoneMatch: etag])
            #expect(notModified.status == .notModified && notModified.headers[.contentType] == nil && notModified.body.readableBytes == 0)
            #expect(services.cachedAnswers.load(ordering: .relaxed) == 2)
            // The cookie of the gallery's session works the same way; unknown parameters go to the router (400).
            #expect(try await client.call(path, headers: [.cookie: "a=b; photos_token=\(token)"]).bytes == rendered.bytes)
            #expect(services.cachedAnswers.load(ordering: .relaxed) == 3)
            #expect(try await client.call(path + "&sizes=1", token: token).status == .badRequest)

            // Pipelined: a request for the router first (a page of assets), then a cached image, then another page —
            // answered in that order, the image after the page it followed.
            let port = try #require(client.port)
            let request = { (target: String) in "GET \(target) HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n\r\n" }
            let answers = try await Self.pipelined(port: port, [request("/v1/assets?limit=2"), request(path), request("/v1/assets?limit=1")])
            #expect(answers.count == 3)
            #expect(answers[0].head.lowercased().contains("content-type: application/json"))
            #expect(answers[1].head.lowercased().contains("content-type: image/jpeg") && answers[1].body == rendered.bytes)
            #expect(answers[2].head.lowercased().contains("content-type: application/json"))
            let pages = try [answers[0].body, answers[2].body].map {
                try #require(JSONSerialization.jsonObject(with: Data($0)) as? [String: Any])["assets"] as? [[String: Any]]
            }
            #expect(pages.map { $0?.count } == [2, 1])

            // A commit (an edit, a revoked token) empties what was known: nothing stale is answered.
            try owner.performChangesAndWait {
                let asset = PHAsset.fetchAssets(withLocalIdentifiers: [ids[0]], options: fixture.library.options()).firstObject!
                PHAssetChangeRequest(for: asset).isFavorite = true
            }
            let before = services.cachedAnswers.load(ordering: .relaxed)
            #expect(try await client.call(path, token: token).bytes == rendered.bytes)
            #expect(services.cachedAnswers.load(ordering: .relaxed) == before, "the first request after a commit goes to the router")
            try owner.revokeAccessTokens(matching: "phone")
            #expect(try await client.call(path, token: token).status == .unauthorized)
            #expect(try await client.call(path, headers: [.cookie: "photos_token=\(token)"]).status == .unauthorized)
        }
    }
}
