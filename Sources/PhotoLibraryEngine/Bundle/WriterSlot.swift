import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One writer's private folder in the bundle, `private/writers/<UUID>/`, and the advisory lock beside it,
/// `private/writers/<UUID>.lock`, that says its owner is alive.
///
/// Every engine that writes stages its files and keeps its intent journals in a slot of its own, and holds an
/// exclusive `flock(2)` on the slot's lock file for as long as it is open. The kernel drops the lock when the
/// owner's process dies, however it dies. Recovery (``LibraryBundle/sweepAbandonedSlots(isReferenced:)``) takes the
/// lock of a slot before it touches anything in it, so it only ever touches what its owner abandoned: a slot whose
/// lock another engine holds — in this process or another — is a transaction in progress and is left alone.
///
/// `flock` locks belong to an open file description, not to a process, so two engines of one process on the same
/// library exclude each other too; the descriptor is close-on-exec, so child processes never inherit a lock.
///
/// The lock comes first and the folder second, and a sweeper removes the folder first and the lock last, so a folder
/// never exists without its lock while an owner may still be alive. A new lock file is created exclusively, locked,
/// and checked to be still linked (a sweeper may have taken and removed it in between): no race needs a time limit.
package final class WriterSlot: Sendable {
    /// The slot's folder.
    package let url: URL
    private let lockURL: URL
    private let descriptor: Int32

    private init(url: URL, lockURL: URL, descriptor: Int32) {
        self.url = url
        self.lockURL = lockURL
        self.descriptor = descriptor
    }

    /// Makes and locks a new slot under `writers`.
    static func create(in writers: URL) throws(LibraryError) -> WriterSlot {
        for _ in 0..<8 {
            let uuid = UUID().uuidString
            let lockURL = writers.appendingPathComponent("\(uuid).lock")
            let fd = open(lockURL.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw POSIXFiles.posixError("create the writer lock in \(writers.path)") }
            var info = stat()
            // Locked by a sweeper that found it first, or already unlinked by one: take another name.
            guard flock(fd, LOCK_EX | LOCK_NB) == 0, fstat(fd, &info) == 0, info.st_nlink == 1 else {
                close(fd)
                continue
            }
            let folder = writers.appendingPathComponent(uuid)
            guard mkdir(folder.path, 0o700) == 0 else {
                let error = POSIXFiles.posixError("create the writer slot \(folder.path)")
                unlink(lockURL.path)
                close(fd)
                throw error
            }
            POSIXFiles.syncDirectory(writers)
            return WriterSlot(url: folder, lockURL: lockURL, descriptor: fd)
        }
        throw .internalError("cannot make a writer slot in \(writers.path)")
    }

    deinit {
        // A clean close: nothing of an unfinished transaction can be here (each one removes its journal and its
        // staged files whether it commits or fails), so the slot goes. Anything left waits for the next sweep.
        let fm = FileManager.default
        let entries = (try? fm.contentsOfDirectory(atPath: url.path)) ?? []
        if !entries.contains(where: { $0.hasPrefix("intent-") }) {
            for name in entries { unlink(url.appendingPathComponent(name).path) }
            rmdir(url.path)
            unlink(lockURL.path)
        }
        close(descriptor)
    }
}

/// The engine's slot, made on first use (a library that is only read never makes one).
package final class WriterSlots: Sendable {
    private let writers: URL
    private let slot = Mutex<WriterSlot?>(nil)

    init(writers: URL) {
        self.writers = writers
    }

    /// This engine's slot folder, made and locked the first time.
    package func folder() throws(LibraryError) -> URL {
        try slot.withLock { current throws(LibraryError) -> URL in
            if let current { return current.url }
            let made = try WriterSlot.create(in: writers)
            current = made
            return made.url
        }
    }
}

extension LibraryBundle {
    /// Sweeps the slots whose owners are gone: for each one whose lock can be taken, every path its intent
    /// journals list that no row references is removed, then its staged files and the slot itself.
    /// Slots whose owners are alive (their lock is held) are not touched.
    /// - parameter isReferenced: whether the database references a bundle-relative path.
    /// - returns: the bundle-relative paths removed.
    package func sweepAbandonedSlots(isReferenced: (String) throws -> Bool) throws -> [String] {
        let fm = FileManager.default
        var removed: [String] = []
        guard let names = try? fm.contentsOfDirectory(atPath: writersURL.path) else { return [] }
        var slots = Set<String>()
        for name in names {
            if name.hasSuffix(".lock") { slots.insert(String(name.dropLast(5))) } else if !name.hasPrefix(".") { slots.insert(name) }
        }
        for uuid in slots.sorted() {
            let folder = writersURL.appendingPathComponent(uuid)
            let lock = writersURL.appendingPathComponent("\(uuid).lock")
            let fd = open(lock.path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
            if fd < 0 {
                // A folder without its lock has no owner (an owner locks first and makes the folder second).
                if errno == ENOENT, fm.fileExists(atPath: folder.path) { removed += try sweepSlot(folder, lock: nil, isReferenced: isReferenced) }
                continue
            }
            defer { close(fd) }
            var info = stat()
            // Held: its owner is alive. Unlinked: another sweeper just finished it.
            guard flock(fd, LOCK_EX | LOCK_NB) == 0, fstat(fd, &info) == 0, info.st_nlink > 0 else { continue }
            removed += try sweepSlot(folder, lock: lock, isReferenced: isReferenced)
        }
        return removed
    }

    /// Sweeps a slot whose lock the caller holds (or that has none): intents replayed, staged files removed, the
    /// folder removed, then the lock.
    private func sweepSlot(_ slot: URL, lock: URL?, isReferenced: (String) throws -> Bool) throws -> [String] {
        let fm = FileManager.default
        var removed: [String] = []
        let entries = ((try? fm.contentsOfDirectory(atPath: slot.path)) ?? []).sorted()
        for name in entries where name.hasPrefix("intent-") {
            removed += try replayIntent(slot.appendingPathComponent(name), isReferenced: isReferenced)
        }
        for name in entries { try? fm.removeItem(at: slot.appendingPathComponent(name)) }
        rmdir(slot.path)
        if let lock { unlink(lock.path) }
        return removed
    }

    /// Removes the paths an intent journal lists that no row references (the transaction did not commit, or
    /// committed a removal), then the journal.
    func replayIntent(_ journal: URL, isReferenced: (String) throws -> Bool) throws -> [String] {
        let fm = FileManager.default
        var removed: [String] = []
        let text = (try? String(contentsOf: journal, encoding: .utf8)) ?? ""
        for path in text.split(separator: "\n").map(String.init) where !path.isEmpty {
            guard let file = try? resolve(path), fm.fileExists(atPath: file.path) else { continue }
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
