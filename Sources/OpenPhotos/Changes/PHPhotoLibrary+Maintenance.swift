import Foundation
import PhotoLibraryEngine

/// OpenPhotoKit: what ``PHPhotoLibrary/verify()`` found.
public struct LibraryVerificationReport: Sendable, Equatable {
    /// One problem with the stored files.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        /// `missingFile`, `sizeMismatch`, `hashMismatch`, `orphanFile`, `unreadable`, `abandonedUpload` (partial uploads
        /// of a `photos serve` that died, removed by the next process that opens the library for writing) or
        /// `searchIndex` (an asset's search document is not what its caption, keywords and file names make) or
        /// `tallies` (the counts that answer a fetch's `count` disagree with the assets).
        public let kind: String
        /// The file, relative to the library folder.
        public let path: String
        public let detail: String
        public var description: String { "\(kind): \(path)\(detail.isEmpty ? "" : " (\(detail))")" }
    }

    /// How many stored files were checked.
    public let checkedFiles: Int
    public let problems: [Problem]
    /// Whether every file was checked (false when the check was cancelled).
    public let isComplete: Bool
    public var isHealthy: Bool { problems.isEmpty }
}

extension PHPhotoLibrary {
    /// OpenPhotoKit: checks that every stored file is present with its recorded size and SHA-256, and that no
    /// file in `originals/` lacks an asset.
    /// - parameters:
    ///   - progress: called after each file with the files checked so far and the total.
    ///   - isCancelled: asked before each file; when it returns true the check stops, incomplete.
    public func verify(
        progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil, isCancelled: (@Sendable () -> Bool)? = nil
    ) throws -> LibraryVerificationReport {
        do {
            let (checked, problems, complete) = try engine().verify(progress: progress, isCancelled: isCancelled)
            return LibraryVerificationReport(
                checkedFiles: checked,
                problems: problems.map { .init(kind: $0.kind.rawValue, path: $0.path, detail: $0.detail) }, isComplete: complete)
        } catch {
            throw PHPhotosError(error)
        }
    }

    /// OpenPhotoKit: removes stored files that no asset refers to and that were stored more than `age` seconds ago
    /// (what ``verify(progress:isCancelled:)`` reports as `orphanFile`: left by writers that died between storing a
    /// file and committing the asset that names it), and uploads to object storage that were begun and never
    /// finished. Younger ones are left alone: they may be a live writer's, about to commit. Returns what was removed.
    @discardableResult
    public func removeOrphanedFiles(olderThan age: TimeInterval = 86_400) throws -> [String] {
        try requireOwner("removing orphaned files")
        do { return try engine().collectOrphans(olderThan: age) } catch { throw PHPhotosError(error) }
    }

    /// OpenPhotoKit: permanently removes every asset in Recently Deleted; returns how many. Assets go in
    /// transactions of a few hundred, each all or nothing; `isCancelled` is asked between them, and what was
    /// purged before it returned true stays purged.
    @discardableResult
    public func emptyTrash(
        progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil, isCancelled: (@Sendable () -> Bool)? = nil
    ) throws -> Int {
        try access.checkWriteOrThrow(access.canModify, "emptying Recently Deleted")
        do { return try engine().emptyTrash(progress: progress, isCancelled: isCancelled) } catch { throw PHPhotosError(error) }
    }

    /// OpenPhotoKit: how long deleted assets stay in Recently Deleted (30 days unless changed).
    public var recentlyDeletedRetention: TimeInterval {
        engineIfAvailable?.trashRetention ?? 30 * 86_400
    }

    /// OpenPhotoKit: sets how many days deleted assets stay in Recently Deleted (applies when libraries open).
    public func setRecentlyDeletedRetention(days: Double) throws {
        do { try engine().setSetting("trash_retention_days", String(days)) } catch { throw PHPhotosError(error) }
    }

    /// OpenPhotoKit: the access new clients get when they request authorization (default `denied`).
    public func setDefaultAuthorization(_ status: PHAuthorizationStatus, accessLevel: PHAccessLevel = .readWrite) throws {
        let name: String
        switch status {
        case .authorized: name = accessLevel == .addOnly ? "addOnly" : "readWrite"
        case .limited: name = "limited"
        case .restricted: name = "restricted"
        case .denied, .notDetermined: name = "denied"
        }
        try requireOwner("setting the access of new clients")
        do { try engine().setSetting("default_client_grant", name) } catch { throw PHPhotosError(error) }
    }

    /// Decisions about access are the owner's: a handle that acts for a client (`$PHOTOS_CLIENT_ID`) cannot make
    /// them, whatever it was granted — or any client could grant itself read-write access.
    func requireOwner(_ what: String) throws {
        guard let client = clientIdentifier else { return }
        throw PHPhotosError(
            .accessUserDenied,
            userInfo: [NSLocalizedDescriptionKey: "only the library's owner may decide access; client '\(client)' cannot: \(what)"])
    }
}

extension AccessContext {
    func checkWriteOrThrow(_ allowed: Bool, _ operation: String) throws {
        do { try checkWrite(allowed, operation) } catch { throw PHPhotosError(error) }
    }
}

/// OpenPhotoKit: what ``PHPhotoLibrary/copyLibrary(at:to:progress:)`` carried.
public struct LibraryCopyReport: Sendable, Equatable {
    /// Rows copied, per table of the library (`asset`, `collection`, `change_journal`, …).
    public let rows: [String: Int]
    /// Stored files copied, and their bytes.
    public let files: Int
    public let bytes: Int64
    /// Files of the original that were missing or did not match their records: copied as they are (or left
    /// missing), so that ``PHPhotoLibrary/verify(progress:isCancelled:)`` reports the same of both libraries.
    public let problems: [LibraryVerificationReport.Problem]
}

extension PHPhotoLibrary {
    /// OpenPhotoKit: copies the library at `source` into a new library at `destination` — each a `.photoslibrary`
    /// folder or a server URL (`postgres://…?library=NAME&files=/path`), so a library moves from SQLite to PostgreSQL
    /// and back. The copy is the same library: local identifiers, versions and adjustments, albums and folders,
    /// grants, tokens and the persistent history (a change token of the original reads the same history on the copy).
    ///
    /// The original is read in one snapshot and not changed; its files are copied before the rows that name them, and
    /// the rows in one transaction, so a copy that fails leaves no library at `destination`.
    /// - parameter progress: called with the files copied so far and the total.
    /// - throws: ``PHPhotosError`` when `destination` already holds a library, or either cannot be reached.
    public static func copyLibrary(
        at source: URL, to destination: URL, progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
    ) throws -> LibraryCopyReport {
        do {
            let result = try LibraryEngine.copyLibrary(from: source, to: destination, progress: progress)
            return LibraryCopyReport(
                rows: result.rows, files: result.files, bytes: result.bytes,
                problems: result.problems.map { .init(kind: $0.kind.rawValue, path: $0.path, detail: $0.detail) })
        } catch {
            throw PHPhotosError(error)
        }
    }
}
