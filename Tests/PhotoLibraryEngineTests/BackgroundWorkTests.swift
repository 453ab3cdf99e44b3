import Foundation
import OpenPhotos
import PhotoLibraryEngine
import PhotosTesting
import Synchronization
import Testing

/// The work queue (`work_item`): commits of new content queue renderings in the same transaction, claims are leases
/// that exclude each other, a lease that runs out lets another worker take the item, failures come back later and are
/// given up after a few, and edits and deletions make queued work moot. Against a library folder whose files are in
/// the test command's SeaweedFS, and a library on its PostgreSQL too.
@Suite("Background work queue", .enabled(if: ObjectStorageUnderTest.bucket != nil))
struct BackgroundWorkTests {
    /// The kinds of library under test: a folder (SQLite) and, where the test command started one, PostgreSQL — both
    /// with their files in object storage.
    static var kinds: [String] { ["sqlite"] + (StoreUnderTest.postgresURL == nil ? [] : ["postgresql"]) }

    struct Fixture {
        let scratch: URL
        let url: URL

        init(_ kind: String) throws {
            scratch = try TestMedia.temporaryDirectory("work-\(kind)")
            let bucket = try #require(ObjectStorageUnderTest.bucket)
            let name = "work_\(UUID().uuidString.prefix(8).lowercased())"
            if kind == "sqlite" {
                url = try #require(URL(string: "file://\(scratch.path)/Library.photoslibrary?files=s3://\(bucket)/\(name)"))
            } else {
                let base = try #require(StoreUnderTest.postgresURL)
                url = try #require(URL(string: "\(base)?library=\(name)&files=s3://\(bucket)/\(name)&cache=\(scratch.path)/node"))
            }
        }

        func remove() {
            try? LibraryStorage.removeLibrary(at: url)
            try? FileManager.default.removeItem(at: scratch)
        }

        func add(_ library: PHPhotoLibrary, count: Int) throws -> [String] {
            var ids: [String] = []
            for index in 0..<count {
                let file = scratch.appendingPathComponent("p\(index)-\(UUID().uuidString.prefix(4)).jpg")
                try TestMedia.writeImage(to: file, width: 40 + index, height: 30)
                try library.performChangesAndWait {
                    ids.append(PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)!.placeholderForCreatedAsset!.localIdentifier)
                }
            }
            return ids
        }
    }

    @Test(arguments: kinds) func commitsQueueWorkThatLeasesHandOutOnce(kind: String) throws {
        let fixture = try Fixture(kind)
        defer { fixture.remove() }
        let library = try PHPhotoLibrary(url: fixture.url)
        let engine = try LibraryEngine.open(at: fixture.url)
        #expect(engine.queuesRenderings)
        let ids = try fixture.add(library, count: 3)
        #expect(try engine.workQueueStatus() == WorkQueueStatus(queued: 3, claimed: 0, failed: 0))

        // Claimed oldest first; an item held is nobody else's.
        let now = Date()
        let a = try #require(try engine.claimWork(worker: "a", lease: 60, now: now))
        let b = try #require(try engine.claimWork(worker: "b", lease: 60, now: now))
        let c = try #require(try engine.claimWork(worker: "c", lease: 60, now: now))
        #expect([a, b, c].map(\.assetIdentifier) == ids)
        #expect([a, b, c].map(\.contentVersion) == [1, 1, 1] && [a, b, c].map(\.attempts) == [1, 1, 1])
        #expect(try engine.claimWork(worker: "d", lease: 60, now: now) == nil)
        #expect(try engine.workQueueStatus(now: now) == WorkQueueStatus(queued: 0, claimed: 3, failed: 0))

        // Worker a died: once its lease has run out, its item is someone else's.
        try engine.finishWork(b)
        try engine.finishWork(c)
        #expect(try engine.claimWork(worker: "d", lease: 60, now: now.addingTimeInterval(59)) == nil)
        let again = try #require(try engine.claimWork(worker: "d", lease: 60, now: now.addingTimeInterval(61)))
        #expect(again.id == a.id && again.attempts == 2)

        // A failure comes back after its delay; after the last attempt it is given up, and said so.
        var time = now.addingTimeInterval(61)
        var item = again
        while item.attempts < LibraryEngine.maximumWorkAttempts {
            try engine.failWork(item, error: "decoder said no", retryAfter: 10, now: time)
            #expect(try engine.claimWork(worker: "d", lease: 60, now: time.addingTimeInterval(9)) == nil)
            time = time.addingTimeInterval(11)
            item = try #require(try engine.claimWork(worker: "d", lease: 60, now: time))
        }
        try engine.failWork(item, error: "decoder said no", retryAfter: 10, now: time)
        #expect(try engine.claimWork(worker: "d", lease: 60, now: time.addingTimeInterval(3600)) == nil)
        #expect(try engine.workQueueStatus(now: time.addingTimeInterval(3600)) == WorkQueueStatus(queued: 0, claimed: 0, failed: 1))
    }

    @Test(arguments: kinds) func editsQueueTheNextVersionAndDeletionsTakeTheirWork(kind: String) async throws {
        let fixture = try Fixture(kind)
        defer { fixture.remove() }
        let library = try PHPhotoLibrary(url: fixture.url)
        let engine = try LibraryEngine.open(at: fixture.url)
        let ids = try fixture.add(library, count: 2)
        let options = PHFetchOptions()
        options.photoLibrary = library
        let assets = PHAsset.fetchAssets(withLocalIdentifiers: ids, options: options)
        #expect(assets.count == 2)
        let (first, second) = (assets.object(at: 0), assets.object(at: 1))

        // An edit of the first: its version 1 work is moot, version 2 is queued.
        let editing = PHContentEditingInputRequestOptions()
        editing.isNetworkAccessAllowed = true
        let input = try await first.requestContentEditingInput(with: editing)
        let output = PHContentEditingOutput(contentEditingInput: input)
        output.adjustmentData = PHAdjustmentData(formatIdentifier: "org.example.test", formatVersion: "1", data: Data("x".utf8))
        try TestMedia.writeImage(to: output.renderedContentURL, width: 41, height: 30)
        try library.performChangesAndWait { PHAssetChangeRequest(for: first).contentEditingOutput = output }
        let stale = try #require(try engine.claimWork(worker: "w", lease: 60))
        #expect(stale.assetIdentifier == ids[0] && stale.contentVersion == 1 && !engine.isCurrent(stale))
        try engine.finishWork(stale)

        // The second deleted for good: its work goes with it.
        try library.performChangesAndWait { PHAssetChangeRequest.deleteAssets([second] as NSArray) }
        try library.performChangesAndWait { PHAssetChangeRequest.deleteAssets([second] as NSArray) }
        let next = try #require(try engine.claimWork(worker: "w", lease: 60))
        #expect(next.assetIdentifier == ids[0] && next.contentVersion == 2 && engine.isCurrent(next))
        #expect(try engine.claimWork(worker: "w", lease: 60) == nil)
    }

    /// A library in a folder renders images on request: it queues only movies' web renderings.
    @Test func aLibraryInAFolderQueuesOnlyItsMoviesWebRenderings() throws {
        let library = try TestLibrary(name: "NoQueue")
        defer { library.remove() }
        let engine = try LibraryEngine.open(at: library.url)
        #expect(!engine.queuesRenderings)
        try library.library.performChangesAndWait {
            _ = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: try! library.makeImage(width: 20, height: 20))
        }
        #expect(try engine.workQueueStatus() == WorkQueueStatus(queued: 0, claimed: 0, failed: 0))
        let movie = library.scratch.appendingPathComponent("clip.mp4")
        try TestMedia.writeMovie(to: movie, width: 64, height: 48, seconds: 0.5)
        var created: String?
        try library.library.performChangesAndWait {
            created = PHAssetChangeRequest.creationRequestForAssetFromVideo(atFileURL: movie)?.placeholderForCreatedAsset?.localIdentifier
        }
        let item = try #require(try engine.claimWork(worker: "w", lease: 60))
        #expect(item.kind == .webVideo && item.assetIdentifier == created && item.contentVersion == 1)
        #expect(try engine.claimWork(worker: "w", lease: 60) == nil)
    }

    /// Workers in several threads (each its own engine, as processes are) claim everything exactly once.
    @Test(arguments: kinds) func concurrentClaimersNeverShareAnItem(kind: String) async throws {
        let fixture = try Fixture(kind)
        defer { fixture.remove() }
        let library = try PHPhotoLibrary(url: fixture.url)
        let ids = try fixture.add(library, count: 12)
        let claimed = Mutex<[String]>([])
        let failures = Mutex<[String]>([])
        try await blockingOffThePool {
            let engines = try (0..<4).map { _ in try LibraryEngine.open(at: fixture.url) }
            DispatchQueue.concurrentPerform(iterations: 4) { index in
                do {
                    while let item = try engines[index].claimWork(worker: "w\(index)", lease: 600) {
                        claimed.withLock { $0.append(item.assetIdentifier) }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(claimed.withLock { $0 }.sorted() == ids.sorted())
    }
}
