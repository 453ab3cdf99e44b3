import Foundation
import GRDB

/// One committed transaction handed to observers, with the database state to describe it against.
package struct ChangeDelivery: Sendable {
    package var entry: JournalEntry
    /// The database as it was right after `entry` (exact), or at a later transaction when several commits of
    /// another process arrived between two wake-ups (`stateVersion > entry.id`).
    package var state: any DatabaseReader
    /// The newest transaction `state` includes.
    package var stateVersion: Int64

    /// Whether `state` is exactly the library right after this transaction.
    package var isExact: Bool { stateVersion == entry.id }
}

/// Delivers every committed transaction of a library, from this process or any other, to the subscribers of one
/// engine: once each, in commit order, on one serial queue that is never a committing caller's.
///
/// Commits made through this engine wake the queue at once and come with a snapshot pinned right after their
/// commit. Commits of other processes (or other engines on the same file) are found by polling the journal's
/// newest id while anyone subscribes; a poll is one indexed read. Nothing runs while nobody subscribes.
package final class ChangeCenter: @unchecked Sendable {
    package typealias Handler = @Sendable (ChangeDelivery) -> Void

    private let database: any DatabaseWriter
    /// The serial queue deliveries run on.
    package let queue = DispatchQueue(label: "OpenPhotoKit.changes")
    private let lock = NSLock()
    private var handlers: [(token: Int, handler: Handler)] = []
    private var nextToken = 1
    private var lastDelivered: Int64 = 0
    private var pinned: [Int64: any DatabaseReader] = [:]
    private var timer: (any DispatchSourceTimer)?
    /// How often other processes' commits are looked for while someone subscribes.
    package let pollInterval: DispatchTimeInterval

    init(database: any DatabaseWriter, pollInterval: DispatchTimeInterval = .milliseconds(50)) {
        self.database = database
        self.pollInterval = pollInterval
    }

    /// Whether anyone listens (commits only pin snapshots then).
    package var isObserved: Bool { lock.withLock { !handlers.isEmpty } }

    /// Starts delivering transactions committed from now on to `handler`. Returns a token for ``unsubscribe(_:)``.
    package func subscribe(_ handler: @escaping Handler) -> Int {
        let current = (try? database.read { try LibraryEngine.historyBounds($0).current }) ?? 0
        return lock.withLock {
            if handlers.isEmpty {
                lastDelivered = max(lastDelivered, current)
                startPolling()
            }
            let token = nextToken
            nextToken += 1
            handlers.append((token, handler))
            return token
        }
    }

    package func unsubscribe(_ token: Int) {
        lock.withLock {
            handlers.removeAll { $0.token == token }
            if handlers.isEmpty {
                timer?.cancel()
                timer = nil
                pinned.removeAll()
            }
        }
    }

    /// Called on the writer's queue right after a commit, outside any transaction.
    func committed(_ id: Int64, snapshot: () -> (any DatabaseReader)?) {
        guard isObserved else { return }
        if let state = snapshot() { lock.withLock { pinned[id] = state } }
        queue.async { self.pump() }
    }

    private func startPolling() {
        let source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(deadline: .now() + pollInterval, repeating: pollInterval, leeway: .milliseconds(10))
        source.setEventHandler { [weak self] in self?.pump() }
        source.resume()
        timer = source
    }

    /// Delivers the transactions not delivered yet. Runs on ``queue``.
    package func pump() {
        dispatchPrecondition(condition: .onQueue(queue))
        let (subscribers, since) = lock.withLock { (handlers.map(\.handler), lastDelivered) }
        guard !subscribers.isEmpty else { return }
        guard let entries = try? database.read({ db in try LibraryEngine.journalEntries(db, after: since) }), !entries.isEmpty
        else { return }
        // One shared later state for the transactions that have no pinned snapshot of their own.
        var shared: (state: any DatabaseReader, version: Int64)?
        for entry in entries {
            let delivery: ChangeDelivery
            if let exact = lock.withLock({ pinned.removeValue(forKey: entry.id) }) {
                delivery = ChangeDelivery(entry: entry, state: exact, stateVersion: entry.id)
            } else {
                if shared == nil {
                    let state: any DatabaseReader = ((database as? DatabasePool).flatMap { try? $0.makeSnapshot() }) ?? database
                    let version = (try? state.read { try LibraryEngine.historyBounds($0).current }) ?? entry.id
                    shared = (state, max(version, entry.id))
                }
                delivery = ChangeDelivery(entry: entry, state: shared!.state, stateVersion: shared!.version)
            }
            for handler in subscribers { handler(delivery) }
            lock.withLock {
                lastDelivered = entry.id
                pinned = pinned.filter { $0.key > entry.id }
            }
        }
    }
}
