import Foundation
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
