import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Who is alive among the processes that write a library: each folder a process owns in the library's files — its
/// writer slot (``WriterSlot``), its upload and editing areas (``ProcessFolder``) — is named, and its owner holds a
/// lock of that name for as long as it lives; the lock dies with the owner, however it dies. Recovery claims a name's
/// lock before it touches what is in the folder, so it only ever touches what its owner abandoned.
///
/// The metadata store says how (``MetadataStore/ownerLocks``): for a library folder on one machine, `flock(2)` on a
/// lock file beside the folder (``FileOwnerLocks``), which the kernel drops when the process dies; for a library on a
/// server, whose files folder several hosts share, a session advisory lock of the database
/// (`PostgreSQLOwnerLocks`), which the server drops when the owner's connection dies — a host that is gone too.
package protocol OwnerLocks: Sendable {
    /// Takes the lock of `name`, a new folder of `area`, before the folder is made; held until released.
    func acquire(_ name: String, in area: URL) throws(LibraryError) -> any OwnerLock
    /// The lock of `name` when its owner is gone — now held by the caller, until released — else nil (an owner is
    /// alive, in this process or another, on this host or another).
    func claimAbandoned(_ name: String, in area: URL) -> (any OwnerLock)?
    /// The names of `area` that have a lock but maybe no folder (a lock file left behind), for sweepers to visit.
    func lockedNames(in area: URL) -> [String]
}

/// A held owner lock.
package protocol OwnerLock: AnyObject, Sendable {
    /// False once the lock is known lost (its connection to the server ended): its folder may be swept by now.
    var mayBeHeld: Bool { get }
    /// Throws unless the lock is held now, checked inside a write transaction under the writer lock (a lock that
    /// dies only with its owner always is).
    func checkHeld(on db: any SQLConnection) throws
    /// Lets the lock go (and removes what marked it). Idempotent.
    func release()
}

/// Owner locks as `flock(2)` on `<area>/<name>.lock`: the lock first, the folder second, so a folder without its lock
/// file has no owner. A new lock file is made exclusively, locked and checked to be still linked (a sweeper may have
/// taken and removed it in between); a sweeper unlinks it while holding it. `flock` locks belong to an open file
/// description, so two engines of one process exclude each other too; descriptors are close-on-exec.
package struct FileOwnerLocks: OwnerLocks {
    package init() {}

    package func acquire(_ name: String, in area: URL) throws(LibraryError) -> any OwnerLock {
        let path = area.appendingPathComponent("\(name).lock").path
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw POSIXFiles.posixError("create the owner lock \(path)") }
        var info = stat()
        guard flock(fd, LOCK_EX | LOCK_NB) == 0, fstat(fd, &info) == 0, info.st_nlink == 1 else {
            close(fd)
            throw .internalError("cannot lock \(path): another process took it")
        }
        return FileOwnerLock(path: path, descriptor: fd)
    }

    package func claimAbandoned(_ name: String, in area: URL) -> (any OwnerLock)? {
        let path = area.appendingPathComponent("\(name).lock").path
        let fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 {
            // No lock file: a folder without one has no owner (an owner locks first and makes the folder second).
            return errno == ENOENT ? FileOwnerLock(path: nil, descriptor: -1) : nil
        }
        var info = stat()
        // Held: its owner is alive. Unlinked: another sweeper just finished with it.
        guard flock(fd, LOCK_EX | LOCK_NB) == 0, fstat(fd, &info) == 0, info.st_nlink > 0 else {
            close(fd)
            return nil
        }
        return FileOwnerLock(path: path, descriptor: fd)
    }

    package func lockedNames(in area: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: area.path)) ?? []
        return names.filter { $0.hasSuffix(".lock") && !$0.hasPrefix(".") }.map { String($0.dropLast(5)) }
    }
}

/// A held `flock` on a lock file; released by unlinking the file, then closing it.
final class FileOwnerLock: OwnerLock, @unchecked Sendable {
    private let path: String?
    private let descriptor: Int32
    private let released = Mutex(false)

    init(path: String?, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    /// The kernel drops a `flock` only with its process: held as long as this object is.
    var mayBeHeld: Bool { !released.withLock { $0 } }

    func checkHeld(on db: any SQLConnection) throws {}

    func release() {
        guard
            released.withLock({ done in
                defer { done = true }; return !done
            })
        else { return }
        if let path { unlink(path) }
        if descriptor >= 0 { close(descriptor) }
    }

    deinit { release() }
}
