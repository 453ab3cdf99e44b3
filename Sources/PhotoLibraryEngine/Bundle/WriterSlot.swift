import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One writer's private folder in the bundle, `private/writers/<UUID>/`, and the owner lock that says its owner is
/// alive (see ``OwnerLocks``: a lock file beside it, `private/writers/<UUID>.lock`, for a library folder; an advisory
/// lock of the database for a library on a server).
///
/// Every engine that writes stages its files and keeps its intent journals in a slot of its own, and holds the slot's
/// lock for as long as it is open; the lock dies with its owner, however it dies. Recovery
/// (``LibraryBundle/sweepAbandonedSlots(locks:isReferenced:)``) claims the lock of a slot before it touches anything
/// in it, so it only ever touches what its owner abandoned: a slot whose lock another engine holds — in this process
/// or another — is a transaction in progress and is left alone.
///
/// The lock comes first and the folder second, and a sweeper removes the folder first and the lock last, so a folder
/// never exists without its lock while an owner may still be alive: no race needs a time limit.
package final class WriterSlot: Sendable {
    /// The slot's folder.
    package let url: URL
    let lock: any OwnerLock

    private init(url: URL, lock: any OwnerLock) {
        self.url = url
        self.lock = lock
    }

    /// Makes and locks a new slot under `writers`.
    static func create(in writers: URL, locks: any OwnerLocks) throws(LibraryError) -> WriterSlot {
        for _ in 0..<8 {
            let uuid = UUID().uuidString
            // Taken by a sweeper that found it first: take another name.
            guard let lock = try? locks.acquire(uuid, in: writers) else { continue }
            let folder = writers.appendingPathComponent(uuid)
            guard mkdir(folder.path, 0o700) == 0 else {
                let error = POSIXFiles.posixError("create the writer slot \(folder.path)")
                lock.release()
                throw error
            }
            POSIXFiles.syncDirectory(writers)
            return WriterSlot(url: folder, lock: lock)
        }
        throw .internalError("cannot make a writer slot in \(writers.path)")
    }

    deinit {
        // A clean close: nothing of an unfinished transaction can be here (each one removes its journal and its
        // staged files whether it commits or fails), so the slot goes. Anything left waits for the next sweep, which
        // finds a folder whose lock is free.
        let fm = FileManager.default
        let entries = (try? fm.contentsOfDirectory(atPath: url.path)) ?? []
        if !entries.contains(where: { Self.isUnsettledJournal(url.appendingPathComponent($0)) }) {
            for name in entries { unlink(url.appendingPathComponent(name).path) }
            rmdir(url.path)
        }
        lock.release()
    }

    /// Whether `entry` is an intent journal that lists something (not one emptied for reuse).
    static func isUnsettledJournal(_ entry: URL) -> Bool {
        entry.lastPathComponent.hasPrefix("intent-") && !isEmptiedJournal(entry)
    }

    /// Whether `entry` is an intent journal emptied by a finished transaction and kept for the next one: nothing of
    /// a transaction.
    package static func isEmptiedJournal(_ entry: URL) -> Bool {
        var info = stat()
        return entry.lastPathComponent.hasPrefix("intent-") && lstat(entry.path, &info) == 0 && info.st_size == 0
    }
}

/// The engine's slot, made on first use (a library that is only read never makes one).
package final class WriterSlots: Sendable {
    private let writers: URL
    private let locks: any OwnerLocks
    private let slot = Mutex<WriterSlot?>(nil)
    /// Journals emptied by transactions that finished, kept for the next ones (in the slot they are in): a journal
    /// written over costs no new file — creating and removing one per commit was a tenth of a busy server's time.
    private let freeJournals = Mutex<(slot: String?, files: [URL])>((nil, []))
    /// How many emptied journals are kept (one per transaction at once: transactions of an engine commit one at a
    /// time, and tidy up after their commit while the next one writes).
    static let keptJournals = 4

    init(writers: URL, locks: any OwnerLocks) {
        self.writers = writers
        self.locks = locks
    }

    /// This engine's slot folder, made and locked the first time — and again when the slot's lock was lost (a server
    /// connection that ended: another process may sweep the old slot, and a transaction that staged there is refused
    /// at its commit by ``checkHeld(on:)``).
    package func folder() throws(LibraryError) -> URL {
        try slot.withLock { current throws(LibraryError) -> URL in
            if let current, current.lock.mayBeHeld { return current.url }
            let made = try WriterSlot.create(in: writers, locks: locks)
            current = made
            return made.url
        }
    }

    /// Records the paths a transaction is about to place or remove, durably, before it touches them: in a journal
    /// of this engine's slot, one emptied by an earlier transaction when there is one. Give it back with
    /// ``releaseIntent(_:)`` once the transaction is over and tidied.
    package func writeIntent(_ paths: [String]) throws -> URL {
        let folder = try folder()
        let reused = freeJournals.withLock { free -> URL? in
            guard free.slot == folder.path else {
                free = (folder.path, [])
                return nil
            }
            return free.files.popLast()
        }
        let journal = reused ?? folder.appendingPathComponent("intent-\(UUID().uuidString).txt")
        do { try LibraryBundle.writeIntent(paths, to: journal) } catch {
            try? FileManager.default.removeItem(at: journal)
            throw error
        }
        return journal
    }

    /// A journal whose transaction is over — committed and tidied, or failed with what it placed removed — emptied and
    /// kept for the next transaction (or removed, past ``keptJournals``). Emptied, not synced: if a crash undoes the
    /// emptying, recovery replays a finished transaction's journal, which removes only listed paths no row names.
    package func releaseIntent(_ journal: URL) {
        guard truncate(journal.path, 0) == 0 else {
            try? FileManager.default.removeItem(at: journal)
            return
        }
        let kept = freeJournals.withLock { free -> Bool in
            guard free.slot == journal.deletingLastPathComponent().path, free.files.count < Self.keptJournals else { return false }
            free.files.append(journal)
            return true
        }
        if !kept { try? FileManager.default.removeItem(at: journal) }
    }

    /// Throws unless this engine's slot (if it has one) is still locked by it: the first statement of every write
    /// transaction that may place files, under the writer lock, so that a slot swept by another process's recovery
    /// is never committed from (see ``OwnerLocks``).
    ///
    /// A slot whose lock was lost (a restarted database server) but that is still there and holds nothing — no
    /// transaction of this engine staged in it, and no other process swept it — is replaced by a new one, so that the
    /// process writes again from this transaction on. One that another process swept is refused, this once (the
    /// transaction may have staged there), and forgotten: the next transaction stages in a new slot. A transaction that
    /// staged in a swept slot finds its files gone when it places them, under the writer lock: it fails.
    package func checkHeld(on db: any SQLConnection) throws {
        guard let current = slot.withLock({ $0 }) else { return }
        do {
            try current.lock.checkHeld(on: db)
        } catch {
            guard !current.lock.mayBeHeld else { throw error }
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: current.url.path) else {
                slot.withLock { if $0 === current { $0 = nil } }
                throw error
            }
            // Nothing of a transaction in it: no entries but journals emptied for reuse.
            let idle = entries.allSatisfy { WriterSlot.isEmptiedJournal(current.url.appendingPathComponent($0)) }
            guard idle else { throw error }
            let replacement = try slot.withLock { slot throws(LibraryError) -> WriterSlot in
                if let slot, slot !== current { return slot }
                let made = try WriterSlot.create(in: writers, locks: locks)
                slot = made
                return made
            }
            try replacement.lock.checkHeld(on: db)
        }
    }
}

extension LibraryBundle {
    /// Sweeps the slots whose owners are gone: for each one whose lock can be claimed, every path its intent
    /// journals list that no row references is removed, then its staged files and the slot itself.
    /// Slots whose owners are alive (their lock is held) are not touched.
    /// - parameter isReferenced: whether the database references a bundle-relative path.
    /// - returns: the bundle-relative paths removed.
    package func sweepAbandonedSlots(locks: any OwnerLocks, isReferenced: (String) throws -> Bool) throws -> [String] {
        let fm = FileManager.default
        var removed: [String] = []
        guard let names = try? fm.contentsOfDirectory(atPath: writersURL.path) else { return [] }
        var slots = Set(locks.lockedNames(in: writersURL))
        for name in names where !name.hasSuffix(".lock") && !name.hasPrefix(".") { slots.insert(name) }
        for uuid in slots.sorted() {
            guard let lock = locks.claimAbandoned(uuid, in: writersURL) else { continue }
            defer { lock.release() }
            removed += try sweepSlot(writersURL.appendingPathComponent(uuid), isReferenced: isReferenced)
        }
        return removed
    }

    /// Sweeps a slot whose lock the caller holds (or that has none): intents replayed, staged files removed, the
    /// folder removed (the caller then releases the lock).
    private func sweepSlot(_ slot: URL, isReferenced: (String) throws -> Bool) throws -> [String] {
        let fm = FileManager.default
        var removed: [String] = []
        let entries = ((try? fm.contentsOfDirectory(atPath: slot.path)) ?? []).sorted()
        for name in entries where name.hasPrefix("intent-") {
            removed += try replayIntent(slot.appendingPathComponent(name), isReferenced: isReferenced)
        }
        for name in entries { try? fm.removeItem(at: slot.appendingPathComponent(name)) }
        rmdir(slot.path)
        return removed
    }

    /// Removes the paths an intent journal lists that no row references (the transaction did not commit, or
    /// committed a removal), then the journal.
    func replayIntent(_ journal: URL, isReferenced: (String) throws -> Bool) throws -> [String] {
        let fm = FileManager.default
        var removed: [String] = []
        for path in Self.intentPaths((try? Data(contentsOf: journal)) ?? Data()) {
            // Only a regular file: a journal torn by a power loss can end in part of a path, and a part that names a
            // folder (`originals/A`) must not take the folder's files with it.
            var info = stat()
            guard let file = try? resolve(path), lstat(file.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            if try !isReferenced(path) {
                try fm.removeItem(at: file)
                removed.append(path)
            }
        }
        try? fm.removeItem(at: journal)
        return removed
    }

    /// Seconds since the entry was last modified (0 when it cannot be read).
    static func age(of url: URL) -> TimeInterval {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { return 0 }
        return Date().timeIntervalSince1970 - Double(info.st_mtim.tv_sec)
    }
}
