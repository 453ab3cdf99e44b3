import Foundation

/// One problem `photos verify` found.
package struct VerificationProblem: Sendable, Equatable, CustomStringConvertible {
    package enum Kind: String, Sendable {
        case missingFile, sizeMismatch, hashMismatch, orphanFile, unreadable, abandonedUpload
        /// An asset's search document is not what its caption, keywords and file names make (or is missing).
        case searchIndex
        /// The tallies that count fetches (`asset_tally`) disagree with the asset rows.
        case tallies
    }

    package var kind: Kind
    package var path: String
    package var detail: String

    package var description: String { "\(kind.rawValue): \(path)\(detail.isEmpty ? "" : " (\(detail))")" }
}

extension LibraryEngine {
    /// Permanently removes assets that have been in Recently Deleted longer than the retention period.
    @discardableResult
    package func purgeExpiredTrash(now: Date = Date()) throws(LibraryError) -> Int {
        try purgeTrash(trashedBefore: now.addingTimeInterval(-trashRetention))
    }

    /// Permanently removes every asset in Recently Deleted (`photos empty-trash`), in transactions of `batchSize`
    /// assets — each all or nothing — reporting the count done after each; `isCancelled` is asked between them.
    @discardableResult
    package func emptyTrash(
        batchSize: Int = 500, progress: ((_ done: Int, _ total: Int) -> Void)? = nil, isCancelled: (() -> Bool)? = nil
    ) throws(LibraryError) -> Int {
        try purgeTrash(trashedBefore: .distantFuture, batchSize: batchSize, progress: progress, isCancelled: isCancelled)
    }

    private func purgeTrash(
        trashedBefore cutoff: Date, batchSize: Int = .max, progress: ((Int, Int) -> Void)? = nil, isCancelled: (() -> Bool)? = nil
    ) throws(LibraryError) -> Int {
        let ids = try read { db in
            try String.fetchAll(
                db, sql: "SELECT local_id FROM asset WHERE trashed_date IS NOT NULL AND trashed_date < ?",
                arguments: [cutoff.timeIntervalSince1970])
        }
        var done = 0
        while done < ids.count {
            if isCancelled?() == true { break }
            let batch = Array(ids[done..<min(ids.count, done + max(1, batchSize))])
            try apply([.deleteAssets(batch)], access: accessContext(clientID: nil))
            done += batch.count
            progress?(done, ids.count)
        }
        return done
    }

    /// Checks that every resource row's file is present with the recorded size and SHA-256, and that no file in
    /// `originals/` lacks a row.
    /// `progress` hears the files checked so far; when `isCancelled` returns true the check stops (the orphan
    /// scan is skipped) and `complete` is false.
    package func verify(
        progress: ((_ done: Int, _ total: Int) -> Void)? = nil, isCancelled: (() -> Bool)? = nil
    ) throws(LibraryError) -> (checked: Int, problems: [VerificationProblem], complete: Bool) {
        let rows = try read { db in
            try SQLRecord.fetchAll(db, sql: "SELECT path, file_size, sha256 FROM resource ORDER BY path").map {
                (path: $0[0] as String, size: $0[1] as Int64, sha256: $0[2] as String)
            }
        }
        var problems: [VerificationProblem] = []
        var known = Set<String>()
        var checked = 0
        for row in rows {
            if isCancelled?() == true { return (checked, problems, false) }
            checked += 1
            progress?(checked, rows.count)
            let key = BlobKey(path: row.path, sha256: row.sha256)
            known.insert(blobs.storedName(of: key))
            do {
                let (size, hash) = try blobs.digest(of: key)
                if size != row.size {
                    problems.append(.init(kind: .sizeMismatch, path: row.path, detail: "expected \(row.size) bytes, found \(size)"))
                } else if hash != row.sha256 {
                    problems.append(.init(kind: .hashMismatch, path: row.path, detail: "SHA-256 differs from the recorded one"))
                }
            } catch  where error.code == LibraryError.missingResource("").code {
                problems.append(.init(kind: .missingFile, path: row.path, detail: ""))
            } catch {
                problems.append(.init(kind: .unreadable, path: row.path, detail: error.message))
            }
        }
        // The bytes of uploads waiting to be imported (shared by a library's nodes) are not orphans.
        if sharesUploads {
            for sha256 in try read({ db in try String.fetchAll(db, sql: "SELECT DISTINCT sha256 FROM upload") }) {
                known.insert(blobs.storedName(of: BlobKey(path: "", sha256: sha256)))
            }
        }
        // Nor are those of resources received for assets not complete yet.
        for row in try read({ db in try SQLRecord.fetchAll(db, sql: "SELECT DISTINCT path, sha256 FROM incoming_resource") }) {
            known.insert(blobs.storedName(of: BlobKey(path: row[0], sha256: row[1])))
        }
        for blob in try blobs.storedBlobs() where !known.contains(blob.name) {
            problems.append(.init(kind: .orphanFile, path: blob.name, detail: "no asset refers to it"))
        }
        problems += try searchIndexProblems(isCancelled: isCancelled)
        problems += try tallyProblems()
        for area in blobs.abandonedUploadAreas() {
            problems.append(
                .init(
                    kind: .abandonedUpload, path: area,
                    detail:
                        "files of a process that is gone (uploads, editing sessions); the next process that opens the library for writing removes them"
                ))
        }
        return (rows.count, problems, true)
    }
}

extension LibraryEngine {
    /// Assets whose search document differs from what their rows make now (one read of every asset's rows, and one
    /// comparison each, in the store's own terms), and documents of assets that are gone.
    func searchIndexProblems(isCancelled: (() -> Bool)? = nil) throws(LibraryError) -> [VerificationProblem] {
        try read { db -> [VerificationProblem] in
            var problems: [VerificationProblem] = []
            var after: Int64 = 0
            while isCancelled?() != true {
                let rows = try SQLRecord.fetchAll(
                    db, sql: "SELECT id, local_id FROM asset WHERE id > ? ORDER BY id LIMIT 500", arguments: [after])
                guard let last = rows.last else { break }
                let documents = try SearchIndex.documents(rows.map { $0[0] as Int64 }, db: db)
                for row in rows {
                    let (id, identifier): (Int64, String) = (row[0], row[1])
                    let check = db.dialect.searchDocumentIs(assetID: id, tokens: documents[id] ?? "")
                    if try Bool.fetchOne(db, sql: check.sql, arguments: check.statementArguments) != true {
                        problems.append(.init(kind: .searchIndex, path: identifier, detail: "its search document is not what its rows make"))
                    }
                }
                after = last[0]
            }
            let indexed = try Int.fetchOne(db, sql: db.dialect.searchDocumentCount) ?? 0
            let assets = try Int.fetchOne(db, sql: "SELECT count(*) FROM asset") ?? 0
            if indexed > assets {
                problems.append(.init(kind: .searchIndex, path: "asset_search", detail: "\(indexed - assets) documents of assets that are gone"))
            }
            return problems
        }
    }
}

extension LibraryEngine {
    /// Combinations of the tallied columns whose tally is not the number of asset rows that have them (one grouped
    /// read of the assets, in one transaction with the tallies).
    func tallyProblems() throws(LibraryError) -> [VerificationProblem] {
        try read { db -> [VerificationProblem] in
            let key = "media_type, is_hidden, burst_hidden, source_type"
            func counts(_ sql: String) throws -> [String: Int] {
                var counts: [String: Int] = [:]
                for row in try SQLRecord.fetchAll(db, sql: sql) {
                    let values: [Int64] = (0..<5).map { row[$0] }
                    counts[values.map(String.init).joined(separator: "/"), default: 0] += row[5] as Int
                }
                return counts.filter { $0.value != 0 }
            }
            let rows = try counts(
                "SELECT \(key), CAST(CASE WHEN trashed_date IS NULL THEN 0 ELSE 1 END AS BIGINT), count(*) FROM asset GROUP BY 1, 2, 3, 4, 5")
            let tallies = try counts("SELECT \(key), trashed, n FROM asset_tally")
            return Set(rows.keys).union(tallies.keys).sorted().compactMap { combination in
                guard rows[combination] != tallies[combination] else { return nil }
                return .init(
                    kind: .tallies, path: "asset_tally",
                    detail:
                        "media type/hidden/burst hidden/source/trashed \(combination): \(tallies[combination] ?? 0) counted, \(rows[combination] ?? 0) assets"
                )
            }
        }
    }
}

/// What a library's store is, to tell whether it is still the one opened: for a library folder, the database file's
/// device and inode (a library moved away, deleted or replaced by another has none or another).
package struct StoreIdentity: Sendable, Equatable {
    let device: UInt64
    let inode: UInt64
}

extension LibraryEngine {
    /// The identity of the store now; nil when it is gone.
    package func storeIdentity() -> StoreIdentity? {
        var info = stat()
        // A folder library's database file; a server library's files folder.
        let path = metadata is SQLiteMetadataStore ? bundle.databaseURL.path : bundle.url.path
        guard stat(path, &info) == 0 else { return nil }
        return StoreIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Where the library is, for messages.
    package var locationDescription: String { bundle.url.path }
}
