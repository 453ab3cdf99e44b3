import Foundation

extension LibraryEngine {
    /// The assets (not deleted for good) that already hold an original with each of these SHA-256 digests.
    package func assetIdentifiers(withSHA256 digests: [String]) throws(LibraryError) -> [String: String] {
        guard !digests.isEmpty else { return [:] }
        return try read { db in
            var found: [String: String] = [:]
            let wanted = db.dialect.isIn("r.sha256", Set(digests).map { .text($0) })
            let rows = try SQLRecord.fetchAll(
                db,
                sql: """
                    SELECT r.sha256, a.local_id FROM resource r JOIN asset a ON a.id = r.asset_id
                    WHERE \(wanted.sql) ORDER BY a.id
                    """,
                arguments: wanted.statementArguments)
            for row in rows where found[row[0]] == nil { found[row[0]] = row[1] }
            return found
        }
    }
}

extension LibraryEngine {
    /// Copies (or, with `move`, hard-links) an incoming file into this writer's staging area, hashing it on the way
    /// (see ``FileStager``); a change request that names it takes it by rename when it commits.
    package func stage(file source: URL, move: Bool, durable: Bool = true, knownSHA256: String? = nil) throws(LibraryError) -> StagedFile {
        try stager.stage(file: source, move: move, durable: durable, knownSHA256: knownSHA256)
    }

    /// Makes staged files durable, all at once (an import stages without syncing each file).
    package func syncStaged(_ files: [StagedFile]) throws(LibraryError) {
        try stager.syncStagedFiles(files)
    }

    /// Drops staged files no transaction will take (a duplicate, a cancelled import, a failed batch).
    package func discardStaged(_ files: [StagedFile]) {
        for file in files { try? FileManager.default.removeItem(at: file.url) }
    }
}
