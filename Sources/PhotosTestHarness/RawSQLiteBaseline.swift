import Foundation
import PhotosTesting
import GRDBSQLite

/// The benchmarks' baseline: a statement run through the SQLite C API with nothing in between.
public enum RawSQLiteBaseline {
    /// Opens the database read-only, runs `sql` with integer/real/text arguments, collects the first column of
    /// every row as Int64, then reads one row by id with `rowSQL`. Returns (ids count, first row column count).
    public static func countAndFirst(databasePath: String, sql: String, arguments: [Any], rowSQL: String) -> (count: Int, firstID: Int64?) {
        var db: OpaquePointer?
        guard sqlite3_open_v2(databasePath, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { fatalError("cannot open \(databasePath)") }
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { fatalError(String(cString: sqlite3_errmsg(db))) }
        for (i, argument) in arguments.enumerated() {
            switch argument {
            case let v as Int: sqlite3_bind_int64(statement, Int32(i + 1), Int64(v))
            case let v as Double: sqlite3_bind_double(statement, Int32(i + 1), v)
            default: fatalError("unsupported argument")
            }
        }
        var ids = ContiguousArray<Int64>()
        while sqlite3_step(statement) == SQLITE_ROW { ids.append(sqlite3_column_int64(statement, 0)) }
        sqlite3_finalize(statement)
        guard let first = ids.first else { return (0, nil) }
        var row: OpaquePointer?
        sqlite3_prepare_v2(db, rowSQL, -1, &row, nil)
        sqlite3_bind_int64(row, 1, first)
        var columns: Int32 = 0
        if sqlite3_step(row) == SQLITE_ROW { columns = sqlite3_column_count(row) }
        sqlite3_finalize(row)
        precondition(columns > 0)
        return (ids.count, first)
    }
}

extension RawSQLiteBaseline {
    /// Inserts the same synthetic rows as ``SyntheticLibrary/insertAssets(into:count:batch:seed:)`` into a new
    /// database with the library's schema (copied from `schemaFrom`), through the SQLite C API with the same
    /// pragmas (WAL, synchronous NORMAL, 32 MiB cache) and transaction size. Returns the seconds spent writing.
    public static func insertAssets(databasePath: String, schemaFrom libraryDatabase: String, count: Int, batch: Int = 20_000, seed: UInt64 = 42)
        -> TimeInterval
    {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: databasePath + suffix) }
        var source: OpaquePointer?
        sqlite3_open_v2(libraryDatabase, &source, SQLITE_OPEN_READONLY, nil)
        var schema: [String] = []
        var query: OpaquePointer?
        sqlite3_prepare_v2(
            source,
            "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND type IN ('table', 'index') AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%'",
            -1,
            &query, nil)
        while sqlite3_step(query) == SQLITE_ROW { schema.append(String(cString: sqlite3_column_text(query, 0))) }
        sqlite3_finalize(query)
        sqlite3_close(source)

        var db: OpaquePointer?
        sqlite3_open(databasePath, &db)
        defer { sqlite3_close(db) }
        for sql in ["PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL", "PRAGMA cache_size = -32768"] + schema {
            sqlite3_exec(db, sql, nil, nil, nil)
        }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        var elapsed: TimeInterval = 0
        var inserted = 0
        while inserted < count {
            let rows = SyntheticAssetRow.rows(count: min(batch, count - inserted), startingAt: inserted, seed: seed)
            let start = Date()
            sqlite3_exec(db, "BEGIN", nil, nil, nil)
            var statement: OpaquePointer?
            sqlite3_prepare_v2(db, SyntheticAssetRow.insertSQL, -1, &statement, nil)
            for row in rows {
                sqlite3_reset(statement)
                sqlite3_bind_text(statement, 1, row.localIdentifier, -1, transient)
                sqlite3_bind_int64(statement, 2, Int64(row.mediaType))
                sqlite3_bind_double(statement, 3, row.creationDate)
                sqlite3_bind_text(statement, 4, row.localDay, -1, transient)
                sqlite3_bind_double(statement, 5, row.creationDate)
                sqlite3_bind_double(statement, 6, row.creationDate)
                sqlite3_bind_double(statement, 7, row.duration)
                sqlite3_bind_int64(statement, 8, row.isFavorite ? 1 : 0)
                sqlite3_bind_int64(statement, 9, row.isHidden ? 1 : 0)
                precondition(sqlite3_step(statement) == SQLITE_DONE, String(cString: sqlite3_errmsg(db)))
            }
            sqlite3_finalize(statement)
            sqlite3_exec(db, "COMMIT", nil, nil, nil)
            elapsed += Date().timeIntervalSince(start)
            inserted += rows.count
        }
        return elapsed
    }
}
