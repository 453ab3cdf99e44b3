import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A node's copies of blobs that live in object storage, named by their SHA-256, bounded in size: the least recently
/// used go first when a new copy would pass the bound — as an iPhone with "Optimize Storage" keeps only what it used
/// lately. Copies are whole and verified (they are admitted only once their bytes hash to their name), so a copy is
/// always the blob.
///
/// A copy used within the last minute is never evicted (a decoder that was just handed its path opens it at once;
/// once open, it reads on whatever happens to the name).
package struct BlobCache: Sendable {
    package let folder: URL
    /// The bound, in bytes; a single copy larger than it is still kept while it is in use.
    package let maximumBytes: Int64

    package init(folder: URL, maximumBytes: Int64) {
        self.folder = folder
        self.maximumBytes = maximumBytes
    }

    /// Where the copy of `sha256` is, when there is one (nil for a name that is not a SHA-256).
    func url(for sha256: String) -> URL? {
        guard BlobCache.isDigest(sha256) else { return nil }
        return folder.appendingPathComponent("\(sha256.prefix(2))/\(sha256)")
    }

    /// The copy of `sha256`, marked as used now; nil when there is none.
    package func file(for sha256: String) -> URL? {
        guard let url = url(for: sha256), access(url.path, F_OK) == 0 else { return nil }
        utimes(url.path, nil)
        return url
    }

    /// A new file in the cache's folder to write a copy into (then ``admit(_:sha256:)``).
    package func temporaryFile() throws(LibraryError) -> URL {
        do { try POSIXFiles.createDirectory(folder) } catch { throw .internalError("cannot create the cache folder \(folder.path): \(error)") }
        return folder.appendingPathComponent(".\(UUID().uuidString).partial")
    }

    /// Takes `file` (verified to be the bytes of `sha256`) as the copy of `sha256`, then keeps the cache within its
    /// bound. Returns the copy's path.
    @discardableResult
    package func admit(_ file: URL, sha256: String) throws(LibraryError) -> URL {
        guard let destination = url(for: sha256) else { throw .internalError("\(sha256) is not a SHA-256") }
        do { try POSIXFiles.createDirectory(destination.deletingLastPathComponent()) } catch {
            throw .internalError("cannot create the cache folder of \(sha256): \(error)")
        }
        guard rename(file.path, destination.path) == 0 else { throw POSIXFiles.posixError("rename into the cache") }
        evict(keeping: destination)
        return destination
    }

    /// Removes the copy of `sha256` (its blob is gone from the store).
    func remove(_ sha256: String) {
        if let url = url(for: sha256) { unlink(url.path) }
    }

    /// The copies and their total size.
    package func usage() -> (files: Int, bytes: Int64) {
        let copies = listCopies()
        return (copies.count, copies.reduce(0) { $0 + $1.size })
    }

    /// Removes the least recently used copies until the total is within the bound (never `keeping`, nor a copy used
    /// within the last minute), and partial downloads a day old (of a process that died).
    func evict(keeping: URL? = nil) {
        let copies = listCopies()
        var total = copies.reduce(Int64(0)) { $0 + $1.size }
        guard total > maximumBytes else { return }
        let recent = Date().addingTimeInterval(-60)
        for copy in copies.sorted(by: { $0.used < $1.used }) where total > maximumBytes {
            guard copy.url != keeping, copy.used < recent else { continue }
            if unlink(copy.url.path) == 0 { total -= copy.size }
        }
    }

    private func listCopies() -> [(url: URL, size: Int64, used: Date)] {
        guard let shards = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        var copies: [(url: URL, size: Int64, used: Date)] = []
        let stale = Date().addingTimeInterval(-86_400)
        for shard in shards {
            let shardURL = folder.appendingPathComponent(shard)
            if shard.hasSuffix(".partial") {
                var info = stat()
                if stat(shardURL.path, &info) == 0, Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec)) < stale { unlink(shardURL.path) }
                continue
            }
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: shardURL.path) else { continue }
            for name in names where Self.isDigest(name) {
                let url = shardURL.appendingPathComponent(name)
                var info = stat()
                guard stat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
                copies.append((url, Int64(info.st_size), Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec))))
            }
        }
        return copies
    }

    /// Whether `text` is a SHA-256 as the rows keep it (64 lowercase hex digits).
    static func isDigest(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
