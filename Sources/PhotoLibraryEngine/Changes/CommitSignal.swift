import Foundation

/// How a metadata store tells that a commit happened, by this process or any other: the wake-ups of the change
/// center and the per-request check of a server. For SQLite, inotify on the database's folder and the WAL index
/// header (``SQLiteCommitSignal``); a server database would use its own notifications (PostgreSQL's `LISTEN`).
///
/// A signal only says "look again": what changed is always read from the change journal, so a signal that comes
/// late, twice or not at all never loses or repeats a commit (the change center's poll is the safety net).
package protocol CommitSignal: Sendable {
    /// Starts calling `wake` on `queue` soon after commits; nil when this store cannot notify here (no inotify, out
    /// of watches), and the change center polls instead. The watch ends when the returned object is stopped.
    func watch(on queue: DispatchQueue, _ wake: @escaping @Sendable () -> Void) -> (any CommitWatch)?

    /// A new probe, which answers whether anything was committed since its last answer.
    func makeProbe() -> any CommitProbe

    /// A probe cheap enough to ask before every wake-up's read (a system call, no connection), or nil: the change
    /// center then reads at every wake-up.
    func makeWakeProbe() -> (any CommitProbe)?
}

extension CommitSignal {
    package func makeWakeProbe() -> (any CommitProbe)? { nil }
}

/// A running watch of a ``CommitSignal``.
package protocol CommitWatch: AnyObject, Sendable {
    func stop()
}

/// One cheap look at whether a library committed since the last look (a server checks it before every request).
package protocol CommitProbe: AnyObject, Sendable {
    /// True when something was committed since the last call (or since the probe was made).
    func changed() -> Bool
}
