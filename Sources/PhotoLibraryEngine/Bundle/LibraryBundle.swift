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
///   private/staging/            files being written, and intent journals of unfinished transactions
/// ```
///
/// Files reach `originals/` atomically: written under `private/staging`, synced, then renamed. Before the rename,
/// an intent journal lists every path the transaction may leave behind; when the library opens, each listed
/// path that no database row references is removed. So a crash at any instant leaves no orphan and loses no file.
package struct LibraryBundle: Sendable {
    package let url: URL

    package init(url: URL) {
        self.url = url.standardizedFileURL
    }

    package var databaseURL: URL { url.appendingPathComponent("database/Photos.sqlite") }
    package var originalsURL: URL { url.appendingPathComponent("originals") }
    package var resourcesURL: URL { url.appendingPathComponent("resources") }
    package var stagingURL: URL { url.appendingPathComponent("private/staging") }

    /// Creates the folder layout (idempotent).
    package func createLayout() throws {
        let fm = FileManager.default
        for dir in [url, databaseURL.deletingLastPathComponent(), originalsURL, resourcesURL, stagingURL] {
            try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        }
    }

    /// The absolute URL of a path relative to the bundle, refusing paths that leave it.
    package func resolve(_ relativePath: String) throws(LibraryError) -> URL {
        let components = relativePath.split(separator: "/", omittingEmptySubsequences: false)
        guard !relativePath.hasPrefix("/"), !components.contains(where: { $0 == ".." || $0 == "." || $0.isEmpty }) else {
            throw .invalidResource("the path \(relativePath) leaves the library")
        }
        return url.appendingPathComponent(relativePath)
    }

    /// Where an original of an asset goes: `originals/<X>/<UUID><suffix>.<ext>`.
    /// The folder of an asset's cached renderings (thumbnails): removed with the asset.
    package func derivativesURL(assetUUID: String) -> URL {
        resourcesURL.appendingPathComponent("derivatives/\(assetUUID.prefix(1))/\(assetUUID)")
    }

    package func originalPath(assetUUID: String, suffix: String, fileExtension: String) -> String {
        "originals/\(assetUUID.prefix(1))/\(assetUUID)\(suffix).\(fileExtension)"
    }

    // MARK: - Intent journals

    /// Records the paths a transaction is about to place or remove, durably, before touching them.
    package func writeIntent(_ paths: [String]) throws -> URL {
        let journal = stagingURL.appendingPathComponent("intent-\(UUID().uuidString).txt")
        let data = Data(paths.joined(separator: "\n").utf8)
        try Self.writeDurably(data, to: journal)
        return journal
    }

    package func removeIntent(_ journal: URL) {
        try? FileManager.default.removeItem(at: journal)
    }

    /// Sweeps what an interrupted transaction left: staged temporaries, and listed paths that no row references.
    /// - parameter isReferenced: whether the database references a bundle-relative path.
    package func sweep(isReferenced: (String) throws -> Bool) throws -> [String] {
        let fm = FileManager.default
        var removed: [String] = []
        guard let entries = try? fm.contentsOfDirectory(atPath: stagingURL.path) else { return [] }
        for name in entries.sorted() {
            let entry = stagingURL.appendingPathComponent(name)
            if name.hasPrefix("intent-") {
                let text = (try? String(contentsOf: entry, encoding: .utf8)) ?? ""
                for path in text.split(separator: "\n").map(String.init) where !path.isEmpty {
                    guard let file = try? resolve(path), fm.fileExists(atPath: file.path) else { continue }
                    if try !isReferenced(path) {
                        try fm.removeItem(at: file)
                        removed.append(path)
                    }
                }
            }
            try? fm.removeItem(at: entry)
        }
        return removed
    }

    // MARK: - Atomic placement

    /// Writes data to a file and flushes it to disk before returning.
    package static func writeDurably(_ data: Data, to url: URL) throws {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw posixError("open \(url.path)") }
        defer { close(fd) }
        try data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw posixError("write \(url.path)")
                }
                offset += n
            }
        }
        guard fsync(fd) == 0 else { throw posixError("fsync \(url.path)") }
    }

    /// Renames a staged file into place; returns the destination folder, which the caller syncs (once per folder
    /// for a transaction's files) before it commits.
    @discardableResult
    package func place(staged: URL, at relativePath: String) throws -> URL {
        let destination = try resolve(relativePath)
        let folder = destination.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        guard rename(staged.path, destination.path) == 0 else { throw Self.posixError("rename to \(relativePath)") }
        return folder
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
