import Foundation
import PhotoLibraryEngine
import PhotosTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A node's copies of blobs in object storage: bounded, least recently used first out, never one just used.
@Suite("Blob cache")
struct BlobCacheTests {
    static func digest(_ n: Int) -> String { String(repeating: String(n % 10), count: 64) }

    /// Admits a copy of `count` bytes under digest `n`, last used `age` seconds ago.
    static func admit(_ cache: BlobCache, _ n: Int, count: Int = 40, age: TimeInterval) throws {
        let file = try cache.temporaryFile()
        try Data(repeating: UInt8(n), count: count).write(to: file)
        let copy = try cache.admit(file, sha256: digest(n))
        let then = Date().addingTimeInterval(-age).timeIntervalSince1970
        var times = [timeval(tv_sec: Int(then), tv_usec: 0), timeval(tv_sec: Int(then), tv_usec: 0)]
        utimes(copy.path, &times)
    }

    @Test func theLeastRecentlyUsedGoFirstAndOneJustUsedStays() throws {
        let folder = try TestMedia.temporaryDirectory("blob-cache")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = BlobCache(folder: folder, maximumBytes: 100)
        try Self.admit(cache, 1, age: 300)
        try Self.admit(cache, 2, age: 200)
        #expect(cache.usage() == (2, 80))
        try Self.admit(cache, 3, age: 100)  // 120 bytes: the oldest goes
        #expect(cache.file(for: Self.digest(1)) == nil)
        #expect(cache.file(for: Self.digest(2)) != nil, "used now: it becomes the most recent")
        #expect(cache.usage() == (2, 80))
        try Self.admit(cache, 4, age: 0)  // 120 bytes: 3 is the least recently used now
        #expect(cache.file(for: Self.digest(3)) == nil)
        #expect(cache.file(for: Self.digest(2)) != nil && cache.file(for: Self.digest(4)) != nil)
        // Copies used within the last minute are kept even past the bound (a decoder may be about to open one).
        try Self.admit(cache, 5, age: 0)
        #expect(cache.usage() == (3, 120))
        // Not a digest: never a path.
        #expect(cache.file(for: "../../etc/passwd") == nil)
        #expect(throws: LibraryError.self) { try cache.admit(folder.appendingPathComponent("x"), sha256: "../x") }
    }

    @Test func cacheSizesAreReadWithBinaryUnits() throws {
        #expect(try FilesLocation.bytes("512M") == 512 << 20)
        #expect(try FilesLocation.bytes("20G") == 20 << 30)
        #expect(try FilesLocation.bytes("1.5GiB") == 3 << 29)
        #expect(try FilesLocation.bytes("4096") == 4096)
        #expect(try FilesLocation.bytes("2tb") == 2 << 40)
        for bad in ["", "G", "-1G", "10X", "1e30"] {
            #expect(throws: LibraryError.self, "\(bad)") { try FilesLocation.bytes(bad) }
        }
    }
}
