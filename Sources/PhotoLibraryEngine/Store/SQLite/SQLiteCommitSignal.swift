import Foundation

/// The commit signal of a SQLite library: inotify on the database's folder wakes observers
/// (``SQLiteFileWatcher``), and the WAL index header answers a server's per-request check (``WALIndexProbe``).
struct SQLiteCommitSignal: CommitSignal {
    let databaseURL: URL
    /// Whether observers are woken by file events (false: the change center polls).
    let watchesFiles: Bool

    func watch(on queue: DispatchQueue, _ wake: @escaping @Sendable () -> Void) -> (any CommitWatch)? {
        guard watchesFiles else { return nil }
        let watcher = SQLiteFileWatcher(databaseURL: databaseURL, queue: queue, handler: wake)
        return watcher.start() ? watcher : nil
    }

    func makeProbe() -> any CommitProbe { WALIndexProbe(databaseURL: databaseURL) }

    /// The WAL index header: one `pread`, exact (see ``WALIndexProbe``).
    func makeWakeProbe() -> (any CommitProbe)? { WALIndexProbe(databaseURL: databaseURL) }
}
