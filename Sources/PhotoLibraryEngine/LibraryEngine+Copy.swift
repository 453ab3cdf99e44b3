import Foundation

/// What a copy of a library carried, and what it found wrong in the original on the way.
package struct LibraryCopyResult: Sendable {
    /// Rows copied, per table.
    package var rows: [String: Int] = [:]
    /// Stored files copied, and their bytes.
    package var files = 0
    package var bytes: Int64 = 0
    /// Files of the original that were missing or did not match their recorded size and SHA-256: copied as they are
    /// (or left missing), so that `verify` says the same of both libraries.
    package var problems: [VerificationProblem] = []
}

extension LibraryEngine {
    /// Copies the library at `source` into a new library at `destination` — each a `.photoslibrary` folder or a
    /// server URL, so SQLite → PostgreSQL and back — keeping everything PhotoKit can see: local identifiers, versions
    /// and adjustments, albums and folders, grants, tokens, and the persistent history (a change token of the original
    /// reads the same history on the copy; the copy is the same library, with the same identity).
    ///
    /// The original is read in one snapshot, opened read-only (nothing of it changes; writers may go on meanwhile and
    /// are not in the copy). Its files are copied first, each into the destination's store before the rows that name
    /// it, then every row in one transaction: a copy interrupted at any instant leaves no half library behind (a
    /// failed copy removes the library it made; one killed leaves staged files that the next opening recovers, and
    /// rows either all there or none).
    /// - throws: ``LibraryError/invalidResource(_:)`` when `destination` holds a library that was used (one made
    ///   and never written to — or left by a copy that was killed — is copied into).
    package static func copyLibrary(
        from source: URL, to destination: URL, progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) throws(LibraryError) -> LibraryCopyResult {
        let existed = try libraryExists(at: destination)
        var readOnly = LibraryConfiguration()
        readOnly.readOnly = true
        readOnly.createIfMissing = false
        let original = try open(at: source, configuration: readOnly)
        let copy = try open(at: destination)
        // A library that was never used (made empty, or left by a copy that was killed) may be copied into.
        let used = try copy.read { db in
            try Int.fetchOne(db, sql: "SELECT (SELECT count(*) FROM asset) + (SELECT count(*) FROM change_journal)") ?? 0
        }
        if used > 0 { throw .invalidResource("\(describe(destination)) already holds a library: copy into a new one") }
        do {
            return try original.read { db in try copy.copyRows(from: db, blobs: original.blobs, progress: progress) }
        } catch {
            if !existed { try? removeLibrary(at: destination) }
            throw error
        }
    }

    /// Copies every file the original's rows name, then every row; on a failure, removes the files it placed.
    private func copyRows(
        from original: any SQLConnection, blobs originalBlobs: any BlobStore, progress: ((Int, Int) -> Void)?
    ) throws -> LibraryCopyResult {
        var report = LibraryCopyResult()
        let columns = try Self.libraryColumns(original)
        let mine = try read { db in try Self.libraryColumns(db) }
        for table in LibrarySchema.tables where columns[table] != mine[table] {
            throw LibraryError.changeNotSupported(
                "the two libraries' \(table) tables differ (\(columns[table] ?? []) and \(mine[table] ?? [])): open both with this version first")
        }

        // Files first: each is in the copy's store, durable, before the transaction that names it commits.
        let resources = try SQLRecord.fetchAll(original, sql: "SELECT path, file_size, sha256 FROM resource ORDER BY id")
        var placed: [BlobKey] = []
        do {
            for (index, resource) in resources.enumerated() {
                let (path, size, sha256): (String, Int64, String) = (resource[0], resource[1], resource[2])
                let key = BlobKey(path: path, sha256: sha256)
                progress?(index, resources.count)
                let file: URL
                do { file = try originalBlobs.materialize(key) } catch {
                    report.problems.append(VerificationProblem(kind: .missingFile, path: path, detail: "missing in the original: not copied"))
                    continue
                }
                let staged = try stager.stage(file: file, move: false, durable: true)
                if staged.size != size || staged.sha256 != sha256 {
                    report.problems.append(
                        VerificationProblem(
                            kind: staged.size != size ? .sizeMismatch : .hashMismatch, path: path,
                            detail: "the original's file does not match its record: copied as it is"))
                }
                // Filed under what the bytes are: a store that shares content finds them by their own digest.
                try blobs.put([(.staged(staged.url), BlobKey(path: path, sha256: staged.sha256))], placed: &placed)
                report.files += 1
                report.bytes += staged.size
            }
            progress?(resources.count, resources.count)

            // Then every row, in one transaction, over what the new library was made with.
            report.rows = try write("copy the library") { db in
                var rows: [String: Int] = [:]
                for table in LibrarySchema.tables.reversed() where table != "library_info" {
                    try db.execute(sql: "DELETE FROM \(table)")
                }
                for table in LibrarySchema.tables {
                    rows[table] = try Self.copyTable(table, columns: columns[table] ?? [], from: original, to: db)
                }
                // The search index is derived: made anew from the copied rows.
                try SearchIndex.rebuild(db)
                return rows
            }
        } catch {
            removeUnreferenced(placed)
            throw error
        }
        return report
    }

    /// Copies one table's rows in batches of multi-row inserts, in id order where there is one; returns the count.
    private static func copyTable(_ table: String, columns: [String], from original: any SQLConnection, to db: any SQLConnection) throws -> Int {
        var deferredParents: [(id: SQLValue, parent: SQLValue)] = []
        if table == "library_info" {
            // The copy's identity is the original's; what belongs to the store stays the store's.
            let rows = try SQLRecord.fetchAll(original, sql: "SELECT key, value FROM library_info ORDER BY key")
                .filter { !LibrarySchema.storeOwnedInfoKeys.contains($0[0] as String) }
            for row in rows {
                try db.execute(
                    sql: "INSERT INTO library_info (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    arguments: [row.value(at: 0), row.value(at: 1)])
            }
            return rows.count
        }
        let parentIndex = table == "collection" ? columns.firstIndex(of: "parent_id") : nil
        let order = columns.contains("id") ? " ORDER BY id" : ""
        var pending: [[SQLValue]] = []
        var count = 0
        func flush() throws {
            try db.insertRows(into: table, columns: columns, rows: pending)
            pending.removeAll(keepingCapacity: true)
        }
        try original.forEachRow(sql: "SELECT \(columns.joined(separator: ", ")) FROM \(table)\(order)", arguments: [], cached: false) { row in
            var values = (0..<columns.count).map(row.value(at:))
            // A folder can be made after an album put in it: parents are set once every collection is there.
            if let parentIndex, values[parentIndex] != .null, let id = columns.firstIndex(of: "id") {
                deferredParents.append((values[id], values[parentIndex]))
                values[parentIndex] = .null
            }
            pending.append(values)
            count += 1
            if pending.count >= 5_000 { try flush() }
            return true
        }
        try flush()
        for (id, parent) in deferredParents {
            try db.execute(sql: "UPDATE collection SET parent_id = ? WHERE id = ?", arguments: [parent, id])
        }
        // Numbering goes on after the original's: never a number it had handed out.
        if LibrarySchema.numberedTables.contains(table) {
            let issued = original.dialect.lastIssuedID(of: table)
            let last = max(
                try Int64.fetchOne(original, sql: "SELECT coalesce(max(id), 0) FROM \(table)") ?? 0,
                try Int64.fetchOne(original, sql: issued.sql, arguments: issued.statementArguments) ?? 0)
            if last > 0 {
                for statement in db.dialect.raiseLastIssuedID(of: table, to: last) {
                    try db.execute(sql: statement.sql, arguments: statement.statementArguments)
                }
            }
        }
        return count
    }

    /// The columns of the library's tables, in each table's order.
    private static func libraryColumns(_ db: any SQLConnection) throws -> [String: [String]] {
        var columns: [String: [String]] = [:]
        try db.forEachRow(sql: db.dialect.columnsQuery, arguments: [], cached: false) { row in
            let (table, column): (String, String) = (row[0], row[1])
            columns[table, default: []].append(column)
            return true
        }
        return columns
    }
}
