import OpenPhotos
import Foundation
import PhotosTesting
import Synchronization
import Testing

/// PHAssetResourceManager: the stored bytes, streamed in chunks, written to files, cancelled.
@Suite("Resource manager")
struct ResourceManagerTests {
    /// An asset whose original is an uncompressed TIFF of about 3.6 MB (several chunks).
    func bigAsset(_ library: TestLibrary) throws -> (PHAssetResource, Data) {
        let file = library.scratch.appendingPathComponent("big.tif")
        try TestMedia.writeImage(to: file, width: 1100, height: 1100)
        let report = try library.library.importItems(at: [file])
        let asset = try #require(
            PHAsset.fetchAssets(withLocalIdentifiers: report.importedLocalIdentifiers, options: library.options()).firstObject)
        let resource = try #require(PHAssetResource.assetResources(for: asset).first)
        return (resource, try Data(contentsOf: file))
    }

    final class Collected: @unchecked Sendable {
        let lock = NSLock()
        var chunks: [Data] = []
        var progress: [Double] = []
        var threads = Set<String>()
        let done = DispatchSemaphore(value: 0)
        var error: (any Error)?
    }

    @Test func requestDataStreamsTheStoredBytesInChunks() throws {
        let library = try TestLibrary(name: "Resources")
        defer { library.remove() }
        let (resource, original) = try bigAsset(library)
        #expect(resource.fileSize == Int64(original.count))
        let collected = Collected()
        let options = PHAssetResourceRequestOptions()
        options.progressHandler = { value in collected.lock.withLock { collected.progress.append(value) } }
        let id = PHAssetResourceManager.default().requestData(
            for: resource, options: options,
            dataReceivedHandler: { chunk in
                collected.lock.withLock {
                    collected.chunks.append(chunk)
                    collected.threads.insert(Thread.isMainThread ? "main" : "other")
                }
            },
            completionHandler: { error in
                collected.error = error
                collected.done.signal()
            })
        #expect(id > 0)
        #expect(collected.done.wait(timeout: .now() + 20) == .success)
        #expect(collected.error == nil)
        #expect(collected.chunks.count == 4)  // 3.63 MB in 1 MiB chunks
        #expect(collected.chunks.allSatisfy { $0.count <= 1 << 20 })
        #expect(collected.chunks.reduce(Data(), +) == original)
        #expect(collected.progress.last == 1 && collected.progress == collected.progress.sorted())
        #expect(collected.threads == ["other"])
    }

    @Test func aCancelledRequestDeliversNothingMoreAndFailsWithUserCancelled() throws {
        let library = try TestLibrary(name: "ResourcesCancel")
        defer { library.remove() }
        let (resource, _) = try bigAsset(library)
        let collected = Collected()
        let manager = PHAssetResourceManager.default()
        let requestID = Mutex<PHAssetResourceDataRequestID>(0)
        let started = DispatchSemaphore(value: 0)
        let id = manager.requestData(
            for: resource, options: nil,
            dataReceivedHandler: { chunk in
                _ = started.wait(timeout: .now() + 10)
                collected.lock.withLock { collected.chunks.append(chunk) }
                manager.cancelDataRequest(requestID.withLock { $0 })
            },
            completionHandler: { error in
                collected.error = error
                collected.done.signal()
            })
        requestID.withLock { $0 = id }
        started.signal()
        #expect(collected.done.wait(timeout: .now() + 20) == .success)
        #expect(collected.chunks.count == 1)
        #expect((collected.error as? PHPhotosError)?.code == .userCancelled)
    }

    @Test func writeDataCreatesTheFileWholeAndRefusesToOverwrite() async throws {
        let library = try TestLibrary(name: "ResourcesWrite")
        defer { library.remove() }
        let (resource, original) = try bigAsset(library)
        let target = library.scratch.appendingPathComponent("exported.tif")
        try await PHAssetResourceManager.default().writeData(for: resource, toFile: target, options: nil)
        #expect(try Data(contentsOf: target) == original)
        await #expect(throws: CocoaError.self) {
            try await PHAssetResourceManager.default().writeData(for: resource, toFile: target, options: nil)
        }
        // Nothing half-written is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: library.scratch.path).filter { $0.hasSuffix(".partial") }.isEmpty)
    }

    @Test func aMissingStoredFileIsATypedError() throws {
        let library = try TestLibrary(name: "ResourcesMissing")
        defer { library.remove() }
        let (resource, _) = try bigAsset(library)
        try FileManager.default.removeItem(at: try #require(resource.fileURL))
        let collected = Collected()
        PHAssetResourceManager.default().requestData(
            for: resource, options: nil, dataReceivedHandler: { _ in },
            completionHandler: { error in
                collected.error = error
                collected.done.signal()
            })
        #expect(collected.done.wait(timeout: .now() + 20) == .success)
        #expect((collected.error as? PHPhotosError)?.code == .missingResource)
    }
}
