import Foundation

/// One committed transaction as the change journal (`change_journal`) records it.
///
/// Every transaction that changes the library writes one row, inside the transaction itself, so the journal can
/// never disagree with the data: a rolled-back transaction leaves no row, a committed one always has its row.
/// Row ids are `AUTOINCREMENT` and never reused: a row id is a point in the library's history (a change token).
package struct JournalEntry: Sendable, Equatable {
    package var id: Int64
    package var date: Date
    /// The client that made the change (nil: the library's owner).
    package var clientID: String?
    package var changes: CommitSummary

    package init(id: Int64, date: Date, clientID: String?, changes: CommitSummary) {
        (self.id, self.date, self.clientID, self.changes) = (id, date, clientID, changes)
    }

    init(row: some SQLRow) throws {
        id = row[0]
        date = Date(timeIntervalSince1970: row[1])
        clientID = row[2]
        let json: String = row[3]
        changes = try JSONDecoder().decode(CommitSummary.self, from: Data(json.utf8))
    }
}

/// Where the change history starts and how long it is kept.
package struct ChangeHistoryBounds: Sendable, Equatable {
    /// The newest transaction (0 for a library that never changed).
    package var current: Int64
    /// Transactions at or below this were compacted away: a token older than it has expired.
    package var floor: Int64
}

extension LibraryEngine {
    /// Runs `body` in one write transaction and records what it did in the change journal, in that same
    /// transaction. When someone observes changes, the state right after the commit is pinned (a snapshot taken
    /// while the store still holds the writer, before any later write), so change details describe exactly this
    /// transaction.
    package func commitTransaction(
        _ operation: String, clientID: String?, now: Date = Date(), _ body: (any SQLConnection) throws -> CommitSummary
    ) throws(LibraryError) -> CommitSummary {
        if isReadOnly { throw .accessRestricted("the library is read-only: \(operation) is not allowed") }
        var journalID: Int64?
        var began = false
        do {
            return try metadata.write(
                { db in
                    // Holding the writer: from here to `finished`, the change center waits for this commit's state.
                    began = true
                    changeCenter.willCommit()
                    // Files staged in a slot that recovery may have swept are never committed.
                    try slots.checkHeld(on: db)
                    let summary = try body(db)
                    if !summary.isEmpty {
                        let json = String(decoding: try JSONEncoder().encode(summary), as: UTF8.self)
                        journalID = try Int64.fetchOne(
                            db, sql: "INSERT INTO change_journal (date, client_id, changes) VALUES (?, ?, ?) RETURNING id",
                            arguments: [now.timeIntervalSince1970, clientID, json], cached: true)
                    }
                    return summary
                },
                finished: { committed, snapshot in
                    // Committed: nothing here may throw (the caller would undo files of a committed transaction).
                    if began { changeCenter.didCommit(committed ? journalID : nil, snapshot: snapshot) }
                })
        } catch let error as LibraryError {
            throw error
        } catch {
            throw .internalError("\(operation) failed: \(error)")
        }
    }

    /// The newest transaction and the oldest point the history still covers.
    package func changeHistoryBounds() throws(LibraryError) -> ChangeHistoryBounds {
        try read { db in try Self.historyBounds(db) }
    }

    static func historyBounds(_ db: any SQLConnection) throws -> ChangeHistoryBounds {
        let last = db.dialect.lastIssuedID(of: "change_journal")
        let current = try Int64.fetchOne(db, sql: last.sql, arguments: last.statementArguments, cached: true) ?? 0
        let floor =
            try String.fetchOne(db, sql: "SELECT value FROM library_info WHERE key = 'change_history_floor'", cached: true).flatMap {
                Int64($0)
            } ?? 0
        return ChangeHistoryBounds(current: current, floor: floor)
    }

    /// The newest committed transaction this read sees (0 for none): the journal's, where a numbering's last issued
    /// number may belong to a transaction that has not committed yet (PostgreSQL's sequences).
    static func newestTransaction(_ db: any SQLConnection) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT max(id) FROM change_journal", cached: true) ?? 0
    }

    /// The transactions after `token`, oldest first (at most `limit`).
    /// - throws: ``LibraryError/persistentChangeTokenExpired(_:)`` when the history no longer reaches back to
    ///   `token`, and ``LibraryError/identifierNotFound(_:)`` for a token from the future.
    package func journalEntries(after token: Int64, limit: Int? = nil) throws(LibraryError) -> [JournalEntry] {
        try read { db in try Self.journalEntries(db, after: token, limit: limit) }
    }

    static func journalEntries(_ db: any SQLConnection, after token: Int64, limit: Int? = nil) throws -> [JournalEntry] {
        let bounds = try historyBounds(db)
        if token < bounds.floor {
            throw LibraryError.persistentChangeTokenExpired(
                "the change history was compacted through transaction \(bounds.floor); token \(token) is older")
        }
        if token > bounds.current {
            throw LibraryError.identifierNotFound("no transaction \(token) in this library (the newest is \(bounds.current))")
        }
        var sql = "SELECT id, date, client_id, changes FROM change_journal WHERE id > ? ORDER BY id"
        if let limit { sql += " LIMIT \(max(0, limit))" }
        return try SQLRecord.fetchAll(db, sql: sql, arguments: [token], cached: limit == nil).map(JournalEntry.init(row:))
    }

    /// Drops journal rows older than the retention period (`change_history_days`, 30 by default), always keeping
    /// the newest, and raises the floor below which tokens expire.
    @discardableResult
    package func compactChangeHistory(now: Date = Date(), retention: TimeInterval? = nil) throws(LibraryError) -> Int {
        let days = setting("change_history_days").flatMap(Double.init) ?? 30
        let cutoff = now.timeIntervalSince1970 - (retention ?? days * 86_400)
        return try write("compact the change history") { db in
            let newest = try Int64.fetchOne(db, sql: "SELECT max(id) FROM change_journal") ?? 0
            guard
                let through = try Int64.fetchOne(
                    db, sql: "SELECT max(id) FROM change_journal WHERE date < ? AND id < ?", arguments: [cutoff, newest])
            else { return 0 }
            let removed = try db.execute(sql: "DELETE FROM change_journal WHERE id <= ?", arguments: [through])
            try db.execute(
                sql: """
                    INSERT INTO library_info (key, value) VALUES ('change_history_floor', ?) \
                    ON CONFLICT (key) DO UPDATE SET value = excluded.value
                    """, arguments: [String(through)])
            return removed
        }
    }
}
