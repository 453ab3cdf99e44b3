import Foundation
import HTTPTypes
import OpenPhotos
import PhotosTesting
import Testing

/// A node serving a library whose files are in object storage, for files it has no copy of: resources are streamed
/// from the store by ranges (no whole copy), images fetched and rendered.
@Suite("Serving files from object storage", .enabled(if: LibraryProviders.all.contains { $0 is ObjectStorageLibraryProvider }))
struct ObjectStorageServingTests {
    @Test func aNodeWithoutACopyStreamsRangesAndRendersImages() async throws {
        let provider = try #require(LibraryProviders.all.first { $0 is ObjectStorageLibraryProvider })
        let fixture = try ServerFixture(name: "S3Serve", provider: provider)
        defer { fixture.library.remove() }
        let file = try fixture.library.makeImage(width: 320, height: 240)
        let bytes = [UInt8](try Data(contentsOf: file))
        var created: String?
        try fixture.library.library.performChangesAndWait {
            created = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)?.placeholderForCreatedAsset?.localIdentifier
        }
        let id = urlID(try #require(created))
        let token = try fixture.token("phone", .authorized)
        // This node forgets its copies: as a node that did not import the photo.
        let cache = fixture.library.filesFolder.appendingPathComponent("resources/cache")
        try FileManager.default.removeItem(at: cache)
        /// The copies of blobs this node has (files named by a SHA-256).
        @Sendable func copies() -> [String] {
            ((try? FileManager.default.subpathsOfDirectory(atPath: cache.path)) ?? []).filter { ($0 as NSString).lastPathComponent.count == 64 }
        }

        try await fixture.test { client in
            let middle = try await client.call("/v1/assets/\(id)/resources/photo", token: token, headers: [.range: "bytes=10-19"])
            #expect(middle.status == .partialContent && middle.bytes == Array(bytes[10..<20]))
            #expect(middle.headers[.contentRange] == "bytes 10-19/\(bytes.count)")
            let whole = try await client.call("/v1/assets/\(id)/resources/photo", token: token)
            #expect(whole.status == .ok && whole.bytes == bytes)
            #expect(copies().isEmpty, "streamed from the store, not copied: \(copies())")

            let image = try await client.call("/v1/assets/\(id)/image?size=32x32&mode=fit", token: token)
            #expect(image.status == .ok && image.headers[.contentType] == "image/jpeg")
            #expect(copies().count == 1, "rendering fetched the original once: \(copies())")
        }
    }
}
