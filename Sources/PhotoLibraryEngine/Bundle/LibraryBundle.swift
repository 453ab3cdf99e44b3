import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `NAME.photoslibrary` folder: the database, the originals and the derived resources.
///
/// ```
/// NAME.photoslibrary/
///   database/Photos.sqlite      SQLite (WAL)
///   originals/<X>/<UUID>.<ext>  originals, X = first character of the asset UUID
///   resources/                  derivatives (thumbnails), renders
///   private/writers/<UUID>/     one writer's slot: its lock, staged files and intent journals (see ``WriterSlot``)
/// ```
///
/// Files reach `originals/` atomically: written into the writer's slot, synced, then renamed. Before the rename,
/// an intent journal lists every path the transaction may leave behind. When a writer dies, the next open takes the
/// lock of its slot and removes each listed path that no database row references. So a crash at any instant
/// leaves no orphan and loses no file, and no process ever sweeps the transaction of one that is alive.
///
/// A new library is created readable by its owner only (0700), as a user's photo folder should be.
package struct LibraryBundle: Sendable {
    package let url: URL

    package init(url: URL) {
        self.url = url.standardizedFileURL
    }

    package var databaseURL: URL { url.appendingPathComponent("database/Photos.sqlite") }
    package var originalsURL: URL { url.appendingPathComponent("originals") }
    package var resourcesURL: URL { url.appendingPathComponent("resources") }
    /// Where the writers' slots live.
    package var writersURL: URL { url.appendingPathComponent("private/writers") }
    /// Where versions before writer slots staged files (swept when old; nothing is staged there any more).
    package var legacyStagingURL: URL { url.appendingPathComponent("private/staging") }

    /// Creates the folder layout (idempotent). Folders it creates are the owner's only (0700).
    package func createLayout() throws {
        for dir in [url, databaseURL.deletingLastPathComponent(), originalsURL, resourcesURL, writersURL] {
            try POSIXFiles.createDirectory(dir)
        }
    }

    /// The absolute URL of a path relative to the bundle, refusing paths that leave it: absolute paths, `..`,
    /// `.` and empty components, control characters, and paths whose folders are symbolic links (a link inside
    /// the bundle could point anywhere). Every path read from the database goes through here before a file is
    /// opened or removed.
    package func resolve(_ relativePath: String) throws(LibraryError) -> URL {
        let components = relativePath.split(separator: "/", omittingEmptySubsequences: false)
        guard !relativePath.isEmpty, !relativePath.hasPrefix("/"),
            !components.contains(where: { $0 == ".." || $0 == "." || $0.isEmpty }),
            !relativePath.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else {
            throw .invalidResource("the path \(relativePath.debugDescription) leaves the library")
        }
        var folder = url
        for component in components.dropLast() {
            folder.appendPathComponent(String(component))
            var info = stat()
            if lstat(folder.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK {
                throw .invalidResource("the path \(relativePath.debugDescription) leaves the library through a symbolic link")
            }
        }
        return url.appendingPathComponent(relativePath)
    }

    /// Resolves a path from the database for removal: like ``resolve(_:)``, and the file itself must not be a
    /// symbolic link (removing a link removes the link, but a file that became a link is not ours).
    package func resolveExisting(_ relativePath: String) throws(LibraryError) -> URL {
        let file = try resolve(relativePath)
        var info = stat()
        if lstat(file.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK {
            throw .invalidResource("\(relativePath.debugDescription) is a symbolic link, not a library file")
        }
        return file
    }

    /// The bytes of a small library file (a recipe, a plist): nil when it is not a regular file or is larger than
    /// `limit` — judged by the file opened, never by a size the database claims — and never more than `limit` bytes
    /// read (a 2 GB file in place of an `Adjustments.plist` made `photos show` take 7.9 GB).
    package func readSmallFile(_ relativePath: String, limit: Int) -> Data? {
        guard let url = try? resolveExisting(relativePath) else { return nil }
        let fd = open(url.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size <= limit else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            count += n
        }
        guard count <= limit else { return nil }  // it grew while it was read
        return Data(bytes[..<count])
    }

    /// Where an original of an asset goes: `originals/<X>/<UUID><suffix>.<ext>`.
    /// The folder of an asset's cached renderings (thumbnails): removed with the asset.
    /// nil when `assetUUID` is not made of letters, digits and dashes (it comes from the database).
    package func derivativesURL(assetUUID: String) -> URL? {
        guard !assetUUID.isEmpty,
            assetUUID.utf8.allSatisfy({
                $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
            })
        else { return nil }
        return resourcesURL.appendingPathComponent("derivatives/\(assetUUID.prefix(1))/\(assetUUID)")
    }

    package func originalPath(assetUUID: String, suffix: String, fileExtension: String) -> String {
        "originals/\(assetUUID.prefix(1))/\(assetUUID)\(suffix).\(fileExtension)"
    }

    // MARK: - Intent journals

    /// Records, in a new journal of the writer's slot, the paths a transaction is about to place or remove,
    /// durably, before touching them. (Transactions take journals from ``WriterSlots/writeIntent(_:)``, which
    /// reuses them.)
    package func writeIntent(_ paths: [String], in slot: URL) throws -> URL {
        let journal = slot.appendingPathComponent("intent-\(UUID().uuidString).txt")
        try Self.writeIntent(paths, to: journal)
        return journal
    }

    /// An intent journal's first line: `opk-intent-1 ` and the SHA-256 (hex) of the rest, the paths one per line.
    static let intentHeader = "opk-intent-1 "

    /// Writes a journal over the file `journal` (new, or an emptied one reused), all of it durable when this returns.
    /// A power loss while it is written leaves a journal whose digest does not match: nothing was placed yet (the
    /// transaction places its files only once this returns), so recovery acts on none of its paths.
    static func writeIntent(_ paths: [String], to journal: URL) throws {
        let body = Data(paths.joined(separator: "\n").utf8)
        try POSIXFiles.writeDurably(Data((intentHeader + SHA256.hash(data: body).hex + "\n").utf8) + body, to: journal)
    }

    /// The paths a journal lists: none for an empty journal (released by a transaction that finished) or one whose
    /// digest does not match (torn while it was written); every line of a journal without the header (written by a
    /// version before it).
    package static func intentPaths(_ data: Data) -> [String] {
        let header = Data(intentHeader.utf8)
        guard data.starts(with: header) else {
            return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        }
        let digestEnd = header.count + 64
        guard data.count > digestEnd, data[data.startIndex + digestEnd] == UInt8(ascii: "\n") else { return [] }
        let digest = String(decoding: data[(data.startIndex + header.count)..<(data.startIndex + digestEnd)], as: UTF8.self)
        let body = data[(data.startIndex + digestEnd + 1)...]
        guard SHA256.hash(data: body).hex == digest else { return [] }
        return String(decoding: body, as: UTF8.self).split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    /// Sweeps `private/staging`, where versions before writer slots staged files and kept journals, taking only
    /// entries untouched for an hour (no lock tells whether an old writer is still at work).
    package func sweepLegacyStaging(isReferenced: (String) throws -> Bool) throws -> [String] {
        let fm = FileManager.default
        guard let entries = try? fm.contentsOfDirectory(atPath: legacyStagingURL.path) else { return [] }
        var removed: [String] = []
        for name in entries.sorted() {
            let entry = legacyStagingURL.appendingPathComponent(name)
            guard Self.age(of: entry) > 3600 else { continue }
            if name.hasPrefix("intent-") {
                removed += try replayIntent(entry, isReferenced: isReferenced)
            } else {
                try? fm.removeItem(at: entry)
            }
        }
        return removed
    }
}
