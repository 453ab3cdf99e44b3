import Crypto
import Foundation
import HTTPTypes
import NIOCore
import OpenPhotos
import PhotosTestHarness
import PhotosTesting
import Testing

/// `POST /v1/backup`, the destination of devices' upload jobs: one resource per request, in any order; the asset is
/// committed with every resource when the last arrives, named by the device's identifier; sent again, stored once.
@Suite("Backup destination")
struct BackupDestinationTests {
    static func sha256(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    @Test(arguments: LibraryProviders.all)
    func assetsAreCommittedWhenTheirLastResourceArrivesAndOnlyOnce(_ provider: any LibraryProvider) async throws {
        let fixture = try ServerFixture(name: "Backup", provider: provider)
        defer { fixture.library.remove() }
        let scratch = fixture.library.scratch
        let contentID = "0D1B2C3A-5F0B-4C43-9A0E-333333333333"
        let stillURL = scratch.appendingPathComponent("IMG_0200.JPG")
        try TestMedia.writeJPEG(
            to: stillURL, width: 64, height: 48, exif: TestEXIF(dateTimeOriginal: "2024:05:01 10:00:00", appleContentIdentifier: contentID))
        let movieURL = scratch.appendingPathComponent("IMG_0200.MOV")
        try TestMedia.writeMovie(to: movieURL, keys: ["com.apple.quicktime.content.identifier": contentID])
        let original = try Data(contentsOf: try fixture.library.makeImage("IMG_0300.JPG", width: 80, height: 60))
        let rendering = try Data(contentsOf: try fixture.library.makeImage("FullSizeRender.jpg", width: 60, height: 80))
        let adjustment = try AdjustmentSidecar(formatIdentifier: "com.example.crop", formatVersion: "1.0", data: Data("rotate 90".utf8)).plist()
        let rawURL = scratch.appendingPathComponent("IMG_0400.tif")
        try TestMedia.writeImage(to: rawURL, width: 96, height: 64)
        let (still, movie, raw) = (try Data(contentsOf: stillURL), try Data(contentsOf: movieURL), try Data(contentsOf: rawURL))
        let jpegOfRAW = try Data(contentsOf: try fixture.library.makeImage("IMG_0400.JPG", width: 96, height: 64))
        let phone = try fixture.token("phone", .authorized)
        let library = fixture.library

        try await fixture.test { client in
            func send(
                _ source: String, _ type: Int, of types: [Int], _ body: Data, name: String, cloud: String? = nil, token: String? = nil,
                sha: String? = nil
            ) async throws -> ServerResponse {
                var headers: HTTPFields = [
                    .authorization: "Bearer \(token ?? phone)", HTTPField.Name("Photos-Asset-Identifier")!: source,
                    HTTPField.Name("Photos-Resource-Type")!: String(type),
                    HTTPField.Name("Photos-Asset-Resources")!: types.map(String.init).joined(separator: ","),
                    HTTPField.Name("Photos-Resource-Filename")!: name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name,
                    HTTPField.Name("Photos-Creation-Date")!: "2023-07-14T09:30:00Z", HTTPField.Name("Photos-Location")!: "48.8584,2.2945",
                    HTTPField.Name("Photos-Content-SHA256")!: sha ?? Self.sha256(body),
                ]
                if let cloud { headers[HTTPField.Name("Photos-Cloud-Identifier")!] = cloud }
                return try await client.execute(uri: "/v1/backup", method: .post, headers: headers, body: ByteBuffer(bytes: body))
            }
            func asset(_ response: ServerResponse) throws -> PHAsset {
                let header = try #require(response.headers[HTTPField.Name("Photos-Library-Asset")!], "\(response.json)")
                let id = header.replacingOccurrences(of: "_", with: "/")
                return try #require(PHAsset.fetchAssets(withLocalIdentifiers: [id], options: library.options()).firstObject)
            }

            // A Live Photo, its video first: stored, waiting for the photo; then committed as one Live Photo.
            let live = "AAAA0001-0000-4000-8000-000000000001/L0/001"
            let first = try await send(live, 9, of: [1, 9], movie, name: "IMG_0200.MOV", cloud: "cloud-live")
            #expect(first.status == .accepted, "\(first.json)")
            #expect(first.headers[HTTPField.Name("Photos-Missing-Resources")!] == "1")
            #expect(PHAsset.fetchAssets(with: library.options()).count == 0)
            let second = try await send(live, 1, of: [1, 9], still, name: "IMG_0200.JPG", cloud: "cloud-live")
            #expect(second.status == .created, "\(second.json)")
            let livePhoto = try asset(second)
            #expect(livePhoto.mediaSubtypes.contains(.photoLive))
            #expect(livePhoto.creationDate == ISO8601DateFormatter().date(from: "2023-07-14T09:30:00Z"))
            #expect(livePhoto.location?.coordinate.latitude == 48.8584)
            let liveResources = PHAssetResource.assetResources(for: livePhoto)
            #expect(liveResources.map(\.type) == [.photo, .pairedVideo])
            #expect(liveResources.map(\.originalFilename) == ["IMG_0200.JPG", "IMG_0200.MOV"])
            #expect(liveResources.map(\.sha256) == [Self.sha256(still), Self.sha256(movie)])

            // Sent again (a job retried after its answer was lost): the same asset, nothing stored.
            let again = try await send(live, 9, of: [1, 9], movie, name: "IMG_0200.MOV", cloud: "cloud-live")
            #expect(again.status == .ok)
            #expect(try asset(again).localIdentifier == livePhoto.localIdentifier)
            #expect(PHAsset.fetchAssets(with: library.options()).count == 1)
            // Other bytes for an asset backed up already: refused, nothing changes.
            let changed = try await send(live, 1, of: [1, 9], original, name: "IMG_0200.JPG")
            #expect(changed.status == .conflict, "\(changed.json)")

            // An edited photo: the original, the rendering and the adjustment data make one asset with its edit,
            // which reverts to the original.
            let edited = "AAAA0002-0000-4000-8000-000000000002/L0/001"
            #expect(try await send(edited, 7, of: [1, 5, 7], adjustment, name: "IMG_0300.AAE").status == .accepted)
            #expect(try await send(edited, 5, of: [1, 5, 7], rendering, name: "FullSizeRender.jpg").status == .accepted)
            let editedResponse = try await send(edited, 1, of: [1, 5, 7], original, name: "IMG_0300.JPG", cloud: "cloud-edited")
            #expect(editedResponse.status == .created, "\(editedResponse.json)")
            let editedAsset = try asset(editedResponse)
            #expect(editedAsset.hasAdjustments)
            #expect((editedAsset.pixelWidth, editedAsset.pixelHeight) == (60, 80))
            let editedResources = PHAssetResource.assetResources(for: editedAsset)
            #expect(editedResources.first { $0.type == .photo }?.sha256 == Self.sha256(original))
            #expect(editedResources.first { $0.type == .fullSizePhoto }?.sha256 == Self.sha256(rendering))
            // Each of its resources sent again (a job retried after a lost answer): the same asset, nothing stored.
            for (type, body, name) in [(7, adjustment, "IMG_0300.AAE"), (5, rendering, "FullSizeRender.jpg"), (1, original, "IMG_0300.JPG")] {
                let resent = try await send(edited, type, of: [1, 5, 7], body, name: name, cloud: "cloud-edited")
                #expect(resent.status == .ok, "\(type): \(resent.json)")
            }
            try library.library.performChangesAndWait { PHAssetChangeRequest(for: editedAsset).revertAssetContentToOriginal() }
            let reverted = try #require(
                PHAsset.fetchAssets(withLocalIdentifiers: [editedAsset.localIdentifier], options: library.options()).firstObject)
            #expect(!reverted.hasAdjustments && (reverted.pixelWidth, reverted.pixelHeight) == (80, 60))

            // A RAW + JPEG pair: one asset, the RAW as its alternate photo.
            let pair = "AAAA0003-0000-4000-8000-000000000003/L0/001"
            #expect(try await send(pair, 4, of: [1, 4], raw, name: "IMG_0400.TIF").status == .accepted)
            let pairAsset = try asset(try await send(pair, 1, of: [1, 4], jpegOfRAW, name: "IMG_0400.JPG"))
            #expect(PHAssetResource.assetResources(for: pairAsset).map(\.type) == [.photo, .alternatePhoto])
            #expect(PHAssetResource.assetResources(for: pairAsset).map(\.sha256) == [Self.sha256(jpegOfRAW), Self.sha256(raw)])

            // Cloud identifiers: the device's, as it sent them; an asset sent without one has its own.
            let mappings = library.library.localIdentifierMappings(for: [
                PHCloudIdentifier(stringValue: "cloud-live"), PHCloudIdentifier(stringValue: "cloud-edited"),
                PHCloudIdentifier(stringValue: "cloud-none"),
            ])
            #expect(try mappings[PHCloudIdentifier(stringValue: "cloud-live")]?.get() == livePhoto.localIdentifier)
            #expect(try mappings[PHCloudIdentifier(stringValue: "cloud-edited")]?.get() == editedAsset.localIdentifier)
            #expect((mappings[PHCloudIdentifier(stringValue: "cloud-none")].map { result in (try? result.get()) == nil }) == true)
            let clouds = library.library.cloudIdentifierMappings(forLocalIdentifiers: [livePhoto.localIdentifier, pairAsset.localIdentifier])
            #expect(try clouds[livePhoto.localIdentifier]?.get().stringValue == "cloud-live")
            let own = try #require(try clouds[pairAsset.localIdentifier]?.get())
            #expect(try library.library.localIdentifierMappings(for: [own])[own]?.get() == pairAsset.localIdentifier)

            // Refused, with nothing kept: a body that is not what its digest says, a description that makes no asset,
            // a client that may not add.
            let wrong = try await send(
                "AAAA0004-0000-4000-8000-000000000004/L0/001", 1, of: [1], still, name: "x.jpg", sha: String(repeating: "0", count: 64))
            #expect(wrong.status == .unprocessableContent, "\(wrong.json)")
            #expect(try await send("AAAA0005/L0/001", 9, of: [9], movie, name: "x.mov").status == .unprocessableContent)
            #expect(try await send("AAAA0005/L0/001", 5, of: [1, 5], still, name: "x.jpg").status == .unprocessableContent)
            let denied = try await send("AAAA0006/L0/001", 1, of: [1], still, name: "x.jpg", token: try fixture.token("none", .denied))
            #expect(denied.status == .forbidden)
            #expect(PHAsset.fetchAssets(with: library.options()).count == 3)
        }
        // Nothing waits: every received resource went into its asset; verify finds nothing wrong.
        let report = try fixture.library.library.verify()
        #expect(report.problems.isEmpty, "\(report.problems)")
    }
}
