import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One writer's private folder in the bundle, `private/writers/<UUID>/`, and the advisory lock that says its owner
/// is alive.
///
/// Every engine that writes stages its files and keeps its intent journals in a slot of its own, and holds an
/// exclusive `flock(2)` on the slot's `lock` file for as long as it is open. The kernel drops the lock when the
/// owner's process dies, however it dies. Recovery (``LibraryBundle/sweepAbandonedSlots(isReferenced:)``) takes the
/// lock of a slot before it touches anything in it, so it only ever touches what its owner abandoned: a slot whose
/// lock another engine holds — in this process or another — is a transaction in progress and is left alone.
///
/// `flock` locks belong to an open file description, not to a process, so two engines of one process on the same
/// library exclude each other too; the descriptor is close-on-exec, so child processes never inherit a lock.
/// A slot is born locked: it is made as `.new-<UUID>`, locked, then renamed to its final name.
package final class WriterSlot: Sendable {
    /// The slot's folder.
    package let url: URL
    private let descriptor: Int32

    private init(url: URL, descriptor: Int32) {
        self.url = url
        self.descriptor = descriptor
    }

    /// Makes and locks a new slot under `writers`.
    static func create(in writers: URL) throws(LibraryError) -> WriterSlot {
        let uuid = UUID().uuidString
        let fresh = writers.appendingPathComponent(".new-\(uuid)")
        let final = writers.appendingPathComponent(uuid)
        guard mkdir(fresh.path, 0o700) == 0 else { throw LibraryBundle.posixError("create \(fresh.path)") }
        let fd = open(fresh.appendingPathComponent("lock").path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let error = LibraryBundle.posixError("create the writer lock")
            rmdir(fresh.path)
            throw error
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0, rename(fresh.path, final.path) == 0 else {
            let error = LibraryBundle.posixError("lock the writer slot")
            close(fd)
            unlink(fresh.appendingPathComponent("lock").path)
            rmdir(fresh.path)
            throw error
        }
        LibraryBundle.syncDirectory(writers)
        return WriterSlot(url: final, descriptor: fd)
    }

    deinit {
        // A clean close: nothing of an unfinished transaction can be here (each one removes its journal and its
        // staged files whether it commits or fails), so the slot goes. Anything left waits for the next sweep.
        let fm = FileManager.default
        let entries = (try? fm.contentsOfDirectory(atPath: url.path)) ?? []
        if !entries.contains(where: { $0.hasPrefix("intent-") }) {
            for name in entries where name != "lock" { unlink(url.appendingPathComponent(name).path) }
            unlink(url.appendingPathComponent("lock").path)
            rmdir(url.path)
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
        for name in names.sorted() {
            let slot = writersURL.appendingPathComponent(name)
            let fd = open(slot.appendingPathComponent("lock").path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
            if fd < 0 {
                // No lock file: a slot that a sweeper was removing when it died (it removes the lock last, after
                // every journal), or a `.new-` slot that died before it made its lock. Nothing of value is left.
                if errno == ENOENT, name.hasPrefix(".new-") ? Self.age(of: slot) > 60 : true { try? fm.removeItem(at: slot) }
                continue
            }
            defer { close(fd) }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { continue }  // its owner is alive
            // A `.new-` slot that can be locked may be one that is being made this instant: leave young ones.
            if name.hasPrefix(".new-"), Self.age(of: slot) < 60 { continue }
            removed += try sweepSlot(slot, isReferenced: isReferenced)
        }
        return removed
    }

    /// Sweeps a slot whose lock the caller holds.
    private func sweepSlot(_ slot: URL, isReferenced: (String) throws -> Bool) throws -> [String] {
        let fm = FileManager.default
        var removed: [String] = []
        let entries = ((try? fm.contentsOfDirectory(atPath: slot.path)) ?? []).sorted()
        for name in entries where name.hasPrefix("intent-") {
            removed += try replayIntent(slot.appendingPathComponent(name), isReferenced: isReferenced)
        }
        for name in entries where name != "lock" { try? fm.removeItem(at: slot.appendingPathComponent(name)) }
        unlink(slot.appendingPathComponent("lock").path)
        rmdir(slot.path)
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
