import Crypto
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file copied (or linked) into the staging folder, hashed on the way.
package struct StagedFile: Sendable {
    package var url: URL
    package var size: Int64
    package var sha256: String
    /// The caller's file to remove once the transaction commits (`shouldMoveFile`).
    package var sourceToRemove: URL?
    /// The source file's modification date (the capture date of last resort).
    package var sourceModificationDate: Date?
}

/// Copies incoming resources into the writer's slot (see ``WriterSlot``) in one pass that also hashes them
/// (each byte read once).
package struct FileStager: Sendable {
    package let bundle: LibraryBundle
    package let slots: WriterSlots
    package static let chunkSize = 1 << 20

    package init(bundle: LibraryBundle, slots: WriterSlots) {
        self.bundle = bundle
        self.slots = slots
    }

    /// A new, unused name in this writer's slot.
    package func newStagingURL() throws(LibraryError) -> URL {
        try slots.folder().appendingPathComponent("file-\(UUID().uuidString)")
    }

    package func stage(data: Data) throws(LibraryError) -> StagedFile {
        let url = try newStagingURL()
        do { try POSIXFiles.writeDurably(data, to: url) } catch let error as LibraryError { throw error } catch {
            throw .internalError("\(error)")
        }
        let digest = SHA256.hash(data: data)
        return StagedFile(url: url, size: Int64(data.count), sha256: digest.hex, sourceToRemove: nil)
    }

    /// Stages a file: copied (or hard-linked, for `move`) into the staging folder and hashed in one read.
    /// - parameter durable: fsync the copy now. An import that stages many files passes false and makes them
    ///   durable together with ``syncStagedFiles()`` before it commits.
    /// - parameter knownSHA256: the file's SHA-256 as its owner computed it while writing it — trusted only for a
    ///   moved file (the caller's own, linked rather than read), which then is not read again.
    package func stage(file source: URL, move: Bool, durable: Bool = true, knownSHA256: String? = nil) throws(LibraryError) -> StagedFile {
        var info = stat()
        guard stat(source.path, &info) == 0 else {
            throw .missingResource("no file at \(source.path)")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw .invalidResource("\(source.path) is not a regular file")
        }
        let staged = try newStagingURL()
        if move {
            guard info.st_nlink <= 1 else {
                throw .invalidResource("\(source.path) has other hard links; shouldMoveFile cannot move it")
            }
            if link(source.path, staged.path) == 0 {
                var (size, hash) = (Int64(info.st_size), knownSHA256 ?? "")
                if knownSHA256 == nil { (size, hash) = try hashFile(staged) }
                // A file written just before (an editor's rendering) may not be on the disk yet.
                if durable { try syncStagedFiles([StagedFile(url: staged, size: size, sha256: hash, sourceToRemove: nil)]) }
                return StagedFile(
                    url: staged, size: size, sha256: hash, sourceToRemove: source, sourceModificationDate: Self.modificationDate(info))
            }
            // Another file system: copy, and remove the source after the commit.
        }
        let (size, hash) = try copyAndHash(from: source, to: staged, durable: durable)
        return StagedFile(
            url: staged, size: size, sha256: hash, sourceToRemove: move ? source : nil, sourceModificationDate: Self.modificationDate(info))
    }

    private static func modificationDate(_ info: stat) -> Date {
        Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    }

    /// Makes files staged without `durable` reach the disk. The fsyncs run after all the writes and side by side,
    /// so the kernel writes the batch back together instead of one file at a time.
    package func syncStagedFiles(_ files: [StagedFile]) throws(LibraryError) {
        let failed = Mutex<String?>(nil)
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            let fd = open(files[index].url.path, O_RDONLY | O_CLOEXEC)
            if fd < 0 || fsync(fd) != 0 { failed.withLock { $0 = $0 ?? files[index].url.path } }
            if fd >= 0 { close(fd) }
        }
        if let path = failed.withLock({ $0 }) { throw POSIXFiles.posixError("fsync \(path)") }
    }

    private func copyAndHash(from source: URL, to destination: URL, durable: Bool) throws(LibraryError) -> (Int64, String) {
        let (total, hash) = try Self.copy(source, to: destination, followingLinks: true, hashing: true, durable: durable)
        return (total, hash ?? "")
    }

    /// Copies a library file out for a reader that must not reach the library's own (an editing input's
    /// `fullSizeImageURL`). The destination must not exist; a link in the source's place is refused.
    package static func copyOut(_ source: URL, to destination: URL) throws(LibraryError) {
        _ = try copy(source, to: destination, followingLinks: false, hashing: false, durable: false)
    }

    /// Copies `source` into a new file `destination` (removed again on failure) in chunks, hashing on the way when
    /// asked; fsyncs it when `durable`.
    private static func copy(
        _ source: URL, to destination: URL, followingLinks: Bool, hashing: Bool, durable: Bool
    ) throws(LibraryError) -> (Int64, String?) {
        let input = open(source.path, O_RDONLY | O_CLOEXEC | (followingLinks ? 0 : O_NOFOLLOW))
        guard input >= 0 else { throw POSIXFiles.posixError("open \(source.path)") }
        defer { close(input) }
        let output = open(destination.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw POSIXFiles.posixError("create \(destination.path)") }
        var ok = false
        defer {
            close(output)
            if !ok { unlink(destination.path) }
        }
        var hasher = SHA256()
        var total: Int64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(input, buffer.baseAddress, chunkSize)
            if n < 0 {
                if errno == EINTR { continue }
                throw POSIXFiles.posixError("read \(source.path)")
            }
            if n == 0 { break }
            if hashing { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<n])) }
            if let failure = POSIXFiles.writeAll(output, UnsafeRawBufferPointer(rebasing: buffer[0..<n])) {
                errno = failure
                throw POSIXFiles.posixError("write \(destination.path)")
            }
            total += Int64(n)
        }
        if durable { guard fsync(output) == 0 else { throw POSIXFiles.posixError("fsync \(destination.path)") } }
        ok = true
        return (total, hashing ? hasher.finalize().hex : nil)
    }

    /// Hashes a file (used for moved files and by `verify`).
    package func hashFile(_ url: URL) throws(LibraryError) -> (Int64, String) {
        try Self.hashFile(url)
    }

    package static func hashFile(_ url: URL) throws(LibraryError) -> (Int64, String) {
        let input = open(url.path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw POSIXFiles.posixError("open \(url.path)") }
        defer { close(input) }
        var hasher = SHA256()
        var total: Int64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(input, buffer.baseAddress, chunkSize)
            if n < 0 {
                if errno == EINTR { continue }
                throw POSIXFiles.posixError("read \(url.path)")
            }
            if n == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            total += Int64(n)
        }
        return (total, hasher.finalize().hex)
    }

}

extension SHA256.Digest {
    /// Lowercase hexadecimal, as the rows keep digests (and as `Photos-Content-SHA256` says them).
    package var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        return withUnsafeBytes { bytes in
            String(unsafeUninitializedCapacity: bytes.count * 2) { text in
                for (index, byte) in bytes.enumerated() {
                    text[2 * index] = digits[Int(byte >> 4)]
                    text[2 * index + 1] = digits[Int(byte & 0x0F)]
                }
                return bytes.count * 2
            }
        }
    }
}
