import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// File operations with the guarantees the library needs (owner-only folders, durable writes, whole writes, errors
/// typed by cause), for any folder: the library's own and the private workspaces of editing sessions.
package enum POSIXFiles {
    /// Creates a folder and its missing parents with mode 0700 (existing ones keep theirs).
    package static func createDirectory(_ dir: URL) throws {
        var info = stat()
        if stat(dir.path, &info) == 0 { return }
        let parent = dir.deletingLastPathComponent()
        if parent.path != dir.path { try createDirectory(parent) }
        guard mkdir(dir.path, 0o700) == 0 || errno == EEXIST else { throw posixError("create \(dir.path)") }
    }

    /// Writes data to a file and flushes it to disk before returning.
    package static func writeDurably(_ data: Data, to url: URL) throws {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw posixError("open \(url.path)") }
        defer { close(fd) }
        if let failure = data.withUnsafeBytes({ writeAll(fd, $0) }) {
            errno = failure
            throw posixError("write \(url.path)")
        }
        guard fsync(fd) == 0 else { throw posixError("fsync \(url.path)") }
    }

    /// Writes all of `bytes` to `fd`, retrying short and interrupted writes; the errno of a failure, or nil.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += n
        }
        return nil
    }

    package static func syncDirectory(_ url: URL) {
        let fd = open(url.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }

    package static func posixError(_ what: String) -> LibraryError {
        let code = errno
        let message = String(cString: strerror(code))
        if code == ENOSPC || code == EDQUOT { return .notEnoughSpace("\(what): \(message)") }
        if code == EACCES || code == EPERM || code == EROFS { return .accessRestricted("\(what): \(message)") }
        return .internalError("\(what): \(message)")
    }
}
