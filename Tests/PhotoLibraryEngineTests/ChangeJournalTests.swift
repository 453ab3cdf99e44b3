import Foundation
import OpenPhotos
import PhotoLibraryEngine
import PhotosTesting
import Testing

/// The change journal under the observers: how other processes' commits are found, and how the history is kept.
@Suite("Change journal")
struct ChangeJournalTests {
    /// Collects what a change center hands over (deliveries, or commit listeners' transactions).
    final class Collected<Value>: @unchecked Sendable {
        private let lock = NSLock()
        private let arrived = DispatchSemaphore(value: 0)
        private var received: [Value] = []

        func record(_ value: Value) {
            lock.withLock { received.append(value) }
            arrived.signal()
        }

        func next(within seconds: Double = 10) -> Value? {
            guard arrived.wait(timeout: .now() + seconds) == .success else { return nil }
            return lock.withLock { received.removeFirst() }
        }
    }

    typealias Deliveries = Collected<ChangeDelivery>

    func favorite(_ test: TestLibrary, _ id: String) throws {
        let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [id], options: test.options()).firstObject)
        try test.library.performChangesAndWait { PHAssetChangeRequest(for: asset).isFavorite.toggle() }
    }

    @Test func inotifyWakesObserversWhenAnotherConnectionCommits() throws {
        let test = try TestLibrary(name: "Inotify")
        defer { test.remove() }
        let ids = try test.addImages(1)
        // The safety-net poll is an hour away: only the file watch can deliver in time.
        var configuration = LibraryConfiguration()
        configuration.watchedChangePollInterval = .seconds(3600)
        let observer = try LibraryEngine.open(at: test.url, configuration: configuration)
        let deliveries = Deliveries()
        let token = observer.changeCenter.subscribe { deliveries.record($0) }
        defer { observer.changeCenter.unsubscribe(token) }
        #expect(observer.changeCenter.isWatching)

        try favorite(test, ids[0])
        let delivery = try #require(deliveries.next())
        #expect(delivery.entry.changes.updatedAssets.map(\.localIdentifier) == ids)
        #expect(delivery.isExact)
        try favorite(test, ids[0])
        #expect(deliveries.next()?.entry.id == delivery.entry.id + 1)
        #expect(deliveries.next(within: 0.3) == nil)
    }

    @Test func commitListenersHearEachCommitOnceWithoutItBeingDescribed() throws {
        let test = try TestLibrary(name: "CommitListeners")
        defer { test.remove() }
        let ids = try test.addImages(1)
        var configuration = LibraryConfiguration()
        configuration.watchedChangePollInterval = .seconds(3600)
        let observer = try LibraryEngine.open(at: test.url, configuration: configuration)
        let newest = Collected<Int64>()
        let token = observer.changeCenter.subscribeToCommits { newest.record($0) }
        defer { observer.changeCenter.unsubscribe(token) }
        #expect(observer.changeCenter.isWatching)
        // Nobody wants transactions described: commits pin no snapshot.
        #expect(!observer.changeCenter.isObserved)
        let before = try observer.changeHistoryBounds().current

        try favorite(test, ids[0])
        #expect(newest.next() == before + 1)
        try favorite(test, ids[0])
        #expect(newest.next() == before + 2)
        // The wake-up's follow-up looks find nothing new: each commit is heard once.
        #expect(newest.next(within: 0.5) == nil)

        // A subscriber that wants them described is served alongside.
        let deliveries = Deliveries()
        let described = observer.changeCenter.subscribe { deliveries.record($0) }
        defer { observer.changeCenter.unsubscribe(described) }
        try favorite(test, ids[0])
        #expect(deliveries.next()?.entry.id == before + 3)
        #expect(newest.next() == before + 3)
        #expect(newest.next(within: 0.5) == nil)
    }

    @Test func withoutFileWatchingThePollFindsOtherCommits() throws {
        let test = try TestLibrary(name: "Polling")
        defer { test.remove() }
        let ids = try test.addImages(1)
        var configuration = LibraryConfiguration()
        configuration.watchesDatabaseFiles = false
        configuration.changePollInterval = .milliseconds(20)
        let observer = try LibraryEngine.open(at: test.url, configuration: configuration)
        let deliveries = Deliveries()
        let token = observer.changeCenter.subscribe { deliveries.record($0) }
        defer { observer.changeCenter.unsubscribe(token) }
        #expect(!observer.changeCenter.isWatching)

        try favorite(test, ids[0])
        let delivery = try #require(deliveries.next())
        #expect(delivery.entry.changes.updatedAssets.map(\.localIdentifier) == ids)
        #expect(deliveries.next(within: 0.3) == nil)
    }

    @Test func compactionExpiresOlderTokensInsteadOfLosingChanges() throws {
        let test = try TestLibrary(name: "Compaction")
        defer { test.remove() }
        let start = test.library.currentChangeToken
        let ids = try test.addImages(1)
        let afterImport = test.library.currentChangeToken
        try favorite(test, ids[0])
        let beforeNewest = test.library.currentChangeToken
        try favorite(test, ids[0])
        #expect(Array(try test.library.fetchPersistentChanges(since: start)).count == 3)

        // Thirty-one days later everything but the newest transaction is compacted away.
        let engine = try LibraryEngine.open(at: test.url)
        let bounds = try engine.changeHistoryBounds()
        #expect(try engine.compactChangeHistory(now: Date().addingTimeInterval(31 * 86_400)) == 2)
        let compacted = try engine.changeHistoryBounds()
        #expect(compacted.current == bounds.current && compacted.floor == bounds.current - 1)
        #expect(try engine.metadata.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM change_journal") } == 1)

        for old in [start, afterImport] {
            #expect {
                _ = try test.library.fetchPersistentChanges(since: old)
            } throws: { ($0 as? PHPhotosError)?.code == .persistentChangeTokenExpired }
        }
        // The token right before the kept transaction still works, and sees exactly it.
        #expect(Array(try test.library.fetchPersistentChanges(since: beforeNewest)).count == 1)
        let kept = try engine.journalEntries(after: bounds.current - 1)
        #expect(kept.map(\.id) == [bounds.current])
        #expect(kept.first?.changes.updatedAssets.map(\.localIdentifier) == ids)
        // A token of the future is not found rather than silently empty.
        #expect(throws: LibraryError.self) { try engine.journalEntries(after: bounds.current + 5) }
    }

    @Test func compactionRunsWhenTheLibraryOpensAndKeepsTheNewest() throws {
        let test = try TestLibrary(name: "CompactOnOpen")
        defer { test.remove() }
        let start = test.library.currentChangeToken
        let ids = try test.addImages(1)
        try favorite(test, ids[0])
        let engine = try LibraryEngine.open(at: test.url)
        try engine.metadata.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO library_info (key, value) VALUES ('change_history_days', '0')")
            try db.execute(sql: "UPDATE change_journal SET date = date - 10")
        }
        let reopened = try PHPhotoLibrary(url: test.url)
        #expect {
            _ = try reopened.fetchPersistentChanges(since: start)
        } throws: { ($0 as? PHPhotosError)?.code == .persistentChangeTokenExpired }
        let current = reopened.currentChangeToken
        #expect(Array(try reopened.fetchPersistentChanges(since: current)).isEmpty)
    }
}
