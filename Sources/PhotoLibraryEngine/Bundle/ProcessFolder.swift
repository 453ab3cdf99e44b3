import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A folder that belongs to one process, in an area of the library's `private/` folder — `private/uploads`, where
/// editing sessions write their renderings (`editing-…`) and `photos serve` keeps the uploads it has received and not
/// yet imported (`serve-…`).
///
/// As a writer slot (``WriterSlot``), it is `<label>-<uuid>`, whose owner lock (``OwnerLocks``) its process holds for
/// as long as it lives; recovery removes the folders whose lock nobody holds — so a server that was killed (or whose
/// host is gone) leaves its partial uploads only until the next process opens the library for writing, and a live
/// server's are never touched, on any host. The owner removes its folder when it is done with it.
package final class ProcessFolder: @unchecked Sendable {
    package let url: URL
    private let lock: any OwnerLock

    /// Makes and locks a new folder in `area` (made too when missing).
    package init(in area: URL, label: String, locks: any OwnerLocks) throws(LibraryError) {
        do {
            try FileManager.default.createDirectory(at: area, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .internalError("cannot create \(area.path): \(error)")
        }
        let name = "\(label)-\(UUID().uuidString.lowercased())"
        url = area.appendingPathComponent(name)
        // The lock first, the folder second: a folder without its lock has no owner.
        lock = try locks.acquire(name, in: area)
        guard mkdir(url.path, 0o700) == 0 else {
            let reason = String(cString: strerror(errno))
            lock.release()
            throw .internalError("cannot create \(url.path): \(reason)")
        }
    }

    private let removed = Mutex(false)

    /// False once its owner lock is known lost (a server connection that ended): another process may remove the
    /// folder from then on, so its owner makes a new one.
    package var isOwned: Bool { lock.mayBeHeld }

    /// Removes the folder and its lock now (a process that exits never runs `deinit`).
    package func remove() {
        guard
            removed.withLock({ done in
                defer { done = true }; return !done
            })
        else { return }
        try? FileManager.default.removeItem(at: url)
        lock.release()
    }

    deinit { remove() }
}

extension LibraryBundle {
    /// Where files wait to be committed: `photos serve`'s uploads (`serve-…`) and editing sessions (`editing-…`), a
    /// ``ProcessFolder`` per process.
    package var uploadsURL: URL { url.appendingPathComponent("private/uploads") }

    /// The folders of `area` whose process is gone: their lock is free, or they have none (an owner locks first). The
    /// layout before locks (`serve-<pid>-<uuid>`) counts as gone when no process has that id.
    package func abandonedProcessFolders(in area: URL, locks: any OwnerLocks) -> [URL] {
        var abandoned: [URL] = []
        visitAbandonedProcessFolders(in: area, locks: locks) { folder, _ in abandoned.append(folder) }
        return abandoned
    }

    /// Removes the folders of `area` whose process is gone (and their locks); returns them relative to the library.
    @discardableResult
    package func sweepAbandonedProcessFolders(in area: URL, locks: any OwnerLocks) -> [String] {
        var removed: [String] = []
        // Claimed while it goes, so that no other sweeper and no new owner can meet it half removed.
        visitAbandonedProcessFolders(in: area, locks: locks) { folder, _ in
            try? FileManager.default.removeItem(at: folder)
            removed.append(String(folder.path.dropFirst(url.path.count + 1)))
        }
        return removed
    }

    /// Calls `body` for each abandoned folder of `area` with its lock claimed (released after `body`).
    private func visitAbandonedProcessFolders(in area: URL, locks: any OwnerLocks, _ body: (URL, (any OwnerLock)?) -> Void) {
        let fm = FileManager.default
        guard let entries = try? fm.contentsOfDirectory(atPath: area.path) else { return }
        let names = Set(entries.filter { !$0.hasSuffix(".lock") && !$0.hasPrefix(".") }).union(locks.lockedNames(in: area))
        for name in names.sorted() {
            let folder = area.appendingPathComponent(name)
            // The layout before locks, `serve-<pid>-<uuid>` (seven dash-separated parts: a UUID's first group can be
            // all digits, so `serve-<uuid>` must not be read as a process id), is gone when no process has that id.
            let parts = name.split(separator: "-")
            if parts.count == 7, parts[0] == "serve", let pid = Int32(parts[1]), !fm.fileExists(atPath: folder.path + ".lock") {
                if pid != getpid(), kill(pid, 0) != 0, errno == ESRCH { body(folder, nil) }
                continue
            }
            guard let lock = locks.claimAbandoned(name, in: area) else { continue }
            body(folder, lock)
            lock.release()
        }
    }
}
