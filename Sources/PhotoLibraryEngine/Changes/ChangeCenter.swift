import Foundation

/// One committed transaction handed to observers, with the library state to describe it against.
package struct ChangeDelivery: Sendable {
    package var entry: JournalEntry
    /// The library as it was right after `entry` (exact), or at a later transaction when several commits of
    /// another process arrived between two wake-ups (`stateVersion > entry.id`).
    package var state: any MetadataReader
    /// The newest transaction `state` includes.
    package var stateVersion: Int64

    /// Whether `state` is exactly the library right after this transaction.
    package var isExact: Bool { stateVersion == entry.id }
}

/// Delivers every committed transaction of a library, from this process or any other, to the subscribers of one
/// engine: once each, in commit order, on one serial queue that is never a committing caller's.
///
/// Commits made through this engine wake the queue at once and come with a snapshot pinned right after their
/// commit. Commits of other processes (or other engines on the same store) wake it through the store's
/// ``CommitSignal`` (for SQLite, inotify on the database's files), with a slow poll of the journal's newest id as a
/// safety net, or a fast poll where the store cannot signal; a wake-up costs one indexed read. Nothing runs while nobody subscribes.
///
/// Listeners that only need to know that something was committed (a background worker, a server's change feed that
/// reads the history itself) take ``subscribeToCommits(_:)``: no transaction is described for them, and no snapshot
/// is pinned — a snapshot is a connection of its own, opened per commit, the largest cost of a commit observed.
package final class ChangeCenter: @unchecked Sendable {
    package typealias Handler = @Sendable (ChangeDelivery) -> Void
    /// Told the newest committed transaction, after it is visible to reads.
    package typealias CommitListener = @Sendable (Int64) -> Void

    private let metadata: any MetadataStore
    /// The serial queue deliveries run on.
    package let queue = DispatchQueue(label: "OpenPhotoKit.changes")
    private let lock = NSLock()
    private var handlers: [(token: Int, handler: Handler)] = []
    private var commitListeners: [(token: Int, listener: CommitListener)] = []
    private var nextToken = 1
    private var lastDelivered: Int64 = 0
    private var pinned: [Int64: any MetadataReader] = [:]
    /// Commits of this engine between their first write and their pinned snapshot: a wake-up then waits for
    /// ``didCommit(_:snapshot:)``, so a local commit is never described against a later state.
    private var localCommitsInFlight = 0
    private var timer: (any DispatchSourceTimer)?
    /// The store's cheap look at whether anything became visible since the last one (SQLite: the WAL index header),
    /// asked before a wake-up reads; nil where the store has none. Made with the first wake-ups and kept (it
    /// compares with its own last look, so commits while nobody listened show as changes), used on ``queue``.
    private var wakeProbe: (any CommitProbe)?
    /// Whether the next pump reads whatever the probe says: at the start (the probe's first look is its baseline,
    /// which a commit just before it would hide) and after a read that failed. Confined to ``queue``.
    private var mustRead = true
    private var watcher: (any CommitWatch)?
    let signal: any CommitSignal
    /// How often other processes' commits are looked for while someone subscribes, without inotify.
    package let pollInterval: DispatchTimeInterval
    /// The safety-net poll while inotify watches the database.
    package let watchedPollInterval: DispatchTimeInterval
    /// Whether the store's signal wakes this center (false: it polls every ``pollInterval``).
    package private(set) var isWatching = false

    init(
        metadata: any MetadataStore, pollInterval: DispatchTimeInterval = .milliseconds(50),
        watchedPollInterval: DispatchTimeInterval = .seconds(1)
    ) {
        self.metadata = metadata
        self.signal = metadata.commitSignal
        self.pollInterval = pollInterval
        self.watchedPollInterval = watchedPollInterval
    }

    /// Whether anyone wants transactions described (commits only pin snapshots then).
    package var isObserved: Bool { lock.withLock { !handlers.isEmpty } }

    /// Whether anyone listens at all (commits wake the queue then).
    private var isListenedTo: Bool { !handlers.isEmpty || !commitListeners.isEmpty }

    /// Starts delivering transactions committed from now on to `handler`. Returns a token for ``unsubscribe(_:)``.
    package func subscribe(_ handler: @escaping Handler) -> Int {
        add { token in handlers.append((token, handler)) }
    }

    /// Starts telling `listener` of commits from now on (by any process): once or more after each, with the newest
    /// transaction then visible, on the center's queue; commits close together may come as one call. Returns a
    /// token for ``unsubscribe(_:)``.
    package func subscribeToCommits(_ listener: @escaping CommitListener) -> Int {
        add { token in commitListeners.append((token, listener)) }
    }

    /// Registers a subscriber of either kind under a new token (`register`, under the lock), from the newest
    /// transaction on; the first one starts the wake-ups.
    private func add(_ register: (Int) -> Void) -> Int {
        let current = (try? metadata.read { try LibraryEngine.historyBounds($0).current }) ?? 0
        return lock.withLock {
            if handlers.isEmpty { lastDelivered = max(lastDelivered, current) }
            if !isListenedTo { startPolling() }
            let token = nextToken
            nextToken += 1
            register(token)
            return token
        }
    }

    package func unsubscribe(_ token: Int) {
        lock.withLock {
            handlers.removeAll { $0.token == token }
            commitListeners.removeAll { $0.token == token }
            if handlers.isEmpty { pinned.removeAll() }
            if !isListenedTo {
                timer?.cancel()
                timer = nil
                watcher?.stop()
                watcher = nil
                isWatching = false
            }
        }
    }

    /// Called holding the store's writer, before a transaction that may commit.
    func willCommit() {
        lock.withLock { localCommitsInFlight += 1 }
    }

    /// Called after ``willCommit()``, still holding the writer: right after the commit with its journal id (outside
    /// any transaction), or with nil when the transaction rolled back or changed nothing.
    func didCommit(_ id: Int64?, snapshot: () -> (any MetadataReader)?) {
        let (observed, listened) = lock.withLock { (!handlers.isEmpty, isListenedTo) }
        let state = (id != nil && observed) ? snapshot() : nil
        lock.withLock {
            localCommitsInFlight -= 1
            if let id, let state { pinned[id] = state }
        }
        if listened { queue.async { self.pump() } }
    }

    /// Starts the wake-ups; called with the lock held when the first subscriber arrives.
    private func startPolling() {
        let signal = signal
        queue.async { [weak self] in
            guard let self else { return }
            if self.wakeProbe == nil { self.wakeProbe = signal.makeWakeProbe() }
            self.mustRead = true
        }
        watcher = signal.watch(on: queue) { [weak self] in self?.wake() }
        isWatching = watcher != nil
        let interval = isWatching ? watchedPollInterval : pollInterval
        let source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(10))
        source.setEventHandler { [weak self] in self?.pump() }
        source.resume()
        timer = source
    }

    /// Which wake-up the scheduled follow-ups belong to: a later wake-up supersedes them with its own.
    private var wakeGeneration = 0

    /// A signal: pump now, and again a few moments later. A signal can come just before the commit is visible (for
    /// SQLite, the file event comes when the other process writes its transaction's frames to the `-wal` file, just
    /// before it publishes them in the WAL index); a read in between still sees the previous state, and no further
    /// signal would come. Every signal starts its own follow-ups (2, 10, 30 and 200 ms later; those of an earlier one
    /// are dropped): a commit that follows another within the window is seen within milliseconds, not at the end of
    /// the first one's window. (The safety poll catches
    /// anything later.)
    private func wake() {
        dispatchPrecondition(condition: .onQueue(queue))
        pump()
        wakeGeneration &+= 1
        let generation = wakeGeneration
        for delay in [2, 10, 30, 200] {
            queue.asyncAfter(deadline: .now() + .milliseconds(delay)) { [weak self] in
                guard let self, self.wakeGeneration == generation else { return }
                self.pump()
            }
        }
    }

    /// Delivers the transactions not delivered yet. Runs on ``queue``.
    package func pump() {
        dispatchPrecondition(condition: .onQueue(queue))
        let (subscribers, listeners, since, busy) = lock.withLock {
            (handlers.map(\.handler), commitListeners.map(\.listener), lastDelivered, localCommitsInFlight > 0)
        }
        // A local commit between its write and its snapshot: its didCommit pumps again.
        guard !subscribers.isEmpty || !listeners.isEmpty, !busy else { return }
        // Nothing became visible since the last read saw everything (the probe looks before the read, so a commit
        // after the look is seen by the read or by the next look): most wake-ups are the follow-ups of one commit,
        // or this process's own commits, and cost a system call instead of a read.
        let changed = wakeProbe?.changed() ?? true
        guard changed || mustRead else { return }
        mustRead = true
        guard !subscribers.isEmpty else {
            // Only listeners: the newest transaction is all they are told.
            guard let newest = try? metadata.read({ try LibraryEngine.newestTransaction($0) }) else { return }
            mustRead = false
            guard newest > since else { return }
            lock.withLock { lastDelivered = max(lastDelivered, newest) }
            for listener in listeners { listener(newest) }
            return
        }
        guard let entries = try? metadata.read({ db in try LibraryEngine.journalEntries(db, after: since) }) else { return }
        mustRead = false
        guard !entries.isEmpty else { return }
        defer { if let newest = entries.last?.id { for listener in listeners { listener(newest) } } }
        // One shared later state for the transactions that have no pinned snapshot of their own.
        var shared: (state: any MetadataReader, version: Int64)?
        for entry in entries {
            let delivery: ChangeDelivery
            if let exact = lock.withLock({ pinned.removeValue(forKey: entry.id) }) {
                delivery = ChangeDelivery(entry: entry, state: exact, stateVersion: entry.id)
            } else {
                if shared == nil {
                    let state: any MetadataReader = metadata.snapshot() ?? metadata
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

extension LibraryEngine {
    /// A probe of this library's commits by any process (see ``CommitProbe``).
    package func makeCommitProbe() -> any CommitProbe { changeCenter.signal.makeProbe() }
}
