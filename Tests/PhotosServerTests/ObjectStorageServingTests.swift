import Foundation
import HTTPTypes
import Logging
import ObjectStorage
import OpenPhotos
@testable import PhotosServer
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

    /// A worker makes the renderings a commit queued and keeps them in the object store: a node that has neither
    /// the original nor the renderings serves the gallery's thumbnails without fetching the original, and a worker
    /// that does an item again (its lease ran out under it) makes the same bytes.
    @Test func aWorkersRenderingsServeNodesThatNeverFetchTheOriginal() async throws {
        let provider = try #require(LibraryProviders.all.first { $0 is ObjectStorageLibraryProvider } as? ObjectStorageLibraryProvider)
        let fixture = try ServerFixture(name: "S3Work", provider: provider)
        defer { fixture.library.remove() }
        let file = try fixture.library.makeImage(width: 640, height: 480)
        var created: String?
        try fixture.library.library.performChangesAndWait {
            created = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)?.placeholderForCreatedAsset?.localIdentifier
        }
        let identifier = try #require(created)
        let worker = try RenderingWorker(libraryURL: fixture.library.url, identity: "test-worker", logger: Logger(label: "test"))
        #expect(try worker.status() == (1, 0, 0))
        // Rendering blocks: off the cooperative threads, which the suite's in-process servers need.
        #expect(try await blockingOffThePool { try worker.drain() } == RenderingWorker.Report(done: 1, failed: 0, moot: 0))
        #expect(try worker.status() == (0, 0, 0))

        // The renderings are in the store, under the asset.
        let schema = try #require(
            URLComponents(url: fixture.library.url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "library" }?.value)
        let store = try S3Location("s3://\(provider.bucket)/\(schema)").client()
        let uuid = String(identifier.prefix { $0 != "/" })
        let prefix = "\(schema)/derivatives/\(uuid)/"
        let objects = try await store.list(prefix: prefix).map(\.key).sorted()
        #expect(objects.count == RenderingWorker.renderings.count, "\(objects)")
        var first: [String: Data] = [:]
        for key in objects { first[key] = try await store.get(key: key) }

        // Done again from nothing by another worker: the same bytes.
        for key in objects { try await store.delete(key: key) }
        // This node forgets its copies of blobs and renderings.
        let cache = fixture.library.filesFolder.appendingPathComponent("resources/cache")
        let renderings = fixture.library.filesFolder.appendingPathComponent("resources/derivatives")
        try FileManager.default.removeItem(at: cache)
        try FileManager.default.removeItem(at: renderings)
        let again = try RenderingWorker(libraryURL: fixture.library.url, identity: "test-worker-2", logger: Logger(label: "test"))
        try await blockingOffThePool { try again.render(assetIdentifier: identifier) }
        for key in objects {
            do { #expect(try await store.get(key: key) == first[key], "\(key) differs when made again") } catch {
                Issue.record("\(key) was not made again: \(error)")
            }
        }

        // A node with nothing of its own serves the thumbnails from them.
        try FileManager.default.removeItem(at: cache)
        try FileManager.default.removeItem(at: renderings)
        @Sendable func copies() -> [String] {
            ((try? FileManager.default.subpathsOfDirectory(atPath: cache.path)) ?? []).filter { ($0 as NSString).lastPathComponent.count == 64 }
        }
        let token = try fixture.token("phone", .authorized)
        let id = urlID(identifier)
        try await fixture.test { client in
            for size in [128, 256, 512] {
                let image = try await client.call("/v1/assets/\(id)/image?size=\(size)x\(size)&mode=fill", token: token)
                #expect(image.status == .ok && image.headers[.contentType] == "image/jpeg")
            }
            #expect(copies().isEmpty, "the original was fetched: \(copies())")
        }
    }
}
