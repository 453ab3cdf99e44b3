import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A folder that belongs to one process, in an area of the library's `private/` folder — `private/uploads`, where
/// editing sessions write their renderings (`editing-…`) and `photos serve` keeps the uploads it has received and not
/// yet imported (`serve-…`).
///
/// As a writer slot (``WriterSlot``), it is `<label>-<uuid>` beside `<label>-<uuid>.lock`, which its process holds
/// (flock) for as long as it lives; recovery removes the folders whose lock nobody holds — so a server that was killed
/// leaves its partial uploads only until the next process opens the library for writing, and a live server's are
/// never touched. The owner removes its folder when it is done with it.
package final class ProcessFolder: @unchecked Sendable {
    package let url: URL
    private let lock: URL
    private let descriptor: Int32

    /// Makes and locks a new folder in `area` (made too when missing).
    package init(in area: URL, label: String) throws(LibraryError) {
        do {
            try FileManager.default.createDirectory(at: area, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .internalError("cannot create \(area.path): \(error)")
        }
        let name = "\(label)-\(UUID().uuidString.lowercased())"
        lock = area.appendingPathComponent("\(name).lock")
        url = area.appendingPathComponent(name)
        // The lock first, the folder second: a folder without its lock has no owner.
        descriptor = open(lock.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0, flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            throw .internalError("cannot lock \(lock.path): \(String(cString: strerror(errno)))")
        }
        guard mkdir(url.path, 0o700) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(lock.path)
            close(descriptor)
            throw .internalError("cannot create \(url.path): \(reason)")
        }
    }

    private let removed = Mutex(false)

    /// Removes the folder and its lock now (a process that exits never runs `deinit`).
    package func remove() {
        guard
            removed.withLock({ done in
                defer { done = true }; return !done
            })
        else { return }
        try? FileManager.default.removeItem(at: url)
        unlink(lock.path)
        close(descriptor)
    }

    deinit { remove() }
}

extension LibraryBundle {
    /// Where files wait to be committed: `photos serve`'s uploads (`serve-…`) and editing sessions (`editing-…`), a
    /// ``ProcessFolder`` per process.
    package var uploadsURL: URL { url.appendingPathComponent("private/uploads") }

    /// The folders of `area` whose process is gone: their lock is free, or they have none (an owner locks first). The
    /// layout before locks (`serve-<pid>-<uuid>`) counts as gone when no process has that id.
    package func abandonedProcessFolders(in area: URL) -> [URL] {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: area.path) else { return [] }
        var abandoned: [URL] = []
        for name in names.sorted() where !name.hasSuffix(".lock") && !name.hasPrefix(".") {
            let folder = area.appendingPathComponent(name)
            let fd = open(area.appendingPathComponent("\(name).lock").path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
            if fd < 0 {
                guard errno == ENOENT else { continue }
                // No lock. The layout before locks, `serve-<pid>-<uuid>` (seven dash-separated parts: a UUID's first
                // group can be all digits, so `serve-<uuid>` must not be read as a process id), is gone when no
                // process has that id; any other folder without its lock has no owner.
                let parts = name.split(separator: "-")
                if parts.count == 7, parts[0] == "serve", let pid = Int32(parts[1]) {
                    if pid != getpid(), kill(pid, 0) != 0, errno == ESRCH { abandoned.append(folder) }
                } else {
                    abandoned.append(folder)
                }
                continue
            }
            // Taken and let go at once: only a lock nobody holds can be taken.
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { abandoned.append(folder) }
            close(fd)
        }
        return abandoned
    }

    /// Removes the folders of `area` whose process is gone (and their locks); returns them relative to the library.
    @discardableResult
    package func sweepAbandonedProcessFolders(in area: URL) -> [String] {
        var removed: [String] = []
        for folder in abandonedProcessFolders(in: area) {
            let lock = folder.path + ".lock"
            // Locked while it goes, so that no other sweeper and no new owner can meet it half removed.
            let fd = open(lock, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
            if fd >= 0, flock(fd, LOCK_EX | LOCK_NB) != 0 {
                close(fd)
                continue
            }
            try? FileManager.default.removeItem(at: folder)
            if fd >= 0 {
                unlink(lock)
                close(fd)
            }
            removed.append(String(folder.path.dropFirst(url.path.count + 1)))
        }
        return removed
    }
}
