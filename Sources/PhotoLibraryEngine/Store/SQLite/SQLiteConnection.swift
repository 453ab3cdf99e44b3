import Foundation
import GRDB
import GRDBSQLite

/// The engine's ``SQLConnection`` on a GRDB connection, inside one of its transactions. Reads step the SQLite
/// statement directly (the fetch's hot loop: a million rows, no per-row decoding layer); writes go through GRDB.
final class SQLiteConnection: SQLConnection {
    private let db: Database

    init(_ db: Database) { self.db = db }

    var dialect: SQLDialect { .sqlite }

    @discardableResult
    func execute(sql: String, arguments: SQLArguments) throws -> Int {
        try db.execute(sql: sql, arguments: arguments.statementArguments)
        return db.changesCount
    }

    @discardableResult
    func execute(sql: String, arguments: SQLArguments, cached: Bool) throws -> Int {
        guard cached else { return try execute(sql: sql, arguments: arguments) }
        try db.cachedStatement(sql: sql).execute(arguments: arguments.statementArguments)
        return db.changesCount
    }

    func forEachRow(sql: String, arguments: SQLArguments, cached: Bool, _ body: (any SQLRow) throws -> Bool) throws {
        let statement = cached ? try db.cachedStatement(sql: sql) : try db.makeStatement(sql: sql)
        try statement.setArguments(arguments.statementArguments)
        guard statement.isReadonly else {
            // A write that returns rows (`RETURNING`): through GRDB, which tracks what writes do.
            let rows = try Row.fetchCursor(statement)
            while let row = try rows.next() {
                if try !body(SQLRecord(GRDBRow(row: row))) { break }
            }
            return
        }
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        let row = SQLiteStatementRow(handle: handle)
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_ROW {
                if try !body(row) { return }
            } else if code == SQLITE_DONE {
                return
            } else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
            }
        }
    }

    func forEachInt64(
        sql: String, arguments: SQLArguments, cached: Bool, firstBatch: Int, _ body: (UnsafeBufferPointer<Int64>) throws -> Void
    ) throws {
        let statement = cached ? try db.cachedStatement(sql: sql) : try db.makeStatement(sql: sql)
        try statement.setArguments(arguments.statementArguments)
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        let capacity = Swift.max(firstBatch, Self.int64Batch)
        let buffer = UnsafeMutableBufferPointer<Int64>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        var limit = Swift.max(1, firstBatch)
        var count = 0
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_ROW {
                buffer[count] = sqlite3_column_int64(handle, 0)
                count += 1
                if count == limit {
                    try body(UnsafeBufferPointer(rebasing: buffer[0..<count]))
                    count = 0
                    limit = Self.int64Batch
                }
            } else if code == SQLITE_DONE {
                if count > 0 { try body(UnsafeBufferPointer(rebasing: buffer[0..<count])) }
                return
            } else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
            }
        }
    }

    /// The batch after the first one of ``forEachInt64(sql:arguments:cached:firstBatch:_:)``.
    static let int64Batch = 4096

    func prepare(sql: String) throws -> any SQLStatement {
        SQLitePreparedStatement(db: db, statement: try db.makeStatement(sql: sql))
    }
}

/// A statement prepared on a GRDB connection.
private final class SQLitePreparedStatement: SQLStatement {
    let db: Database
    let statement: Statement

    init(db: Database, statement: Statement) {
        self.db = db
        self.statement = statement
    }

    func execute(arguments: SQLArguments) throws -> Int {
        try statement.execute(arguments: arguments.statementArguments)
        return db.changesCount
    }

    func fetchOne(arguments: SQLArguments) throws -> SQLRecord? {
        try Row.fetchOne(statement, arguments: arguments.statementArguments).map { SQLRecord(GRDBRow(row: $0)) }
    }
}

/// The current row of a statement being stepped.
private struct SQLiteStatementRow: SQLRow {
    let handle: OpaquePointer

    var columnCount: Int { Int(sqlite3_column_count(handle)) }

    func value(at index: Int) -> SQLValue {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(handle, column) else { return .text("") }
            let count = Int(sqlite3_column_bytes(handle, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard let bytes = sqlite3_column_blob(handle, column), count > 0 else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    func int64(at index: Int) -> Int64 { sqlite3_column_int64(handle, Int32(index)) }
}

/// A GRDB row (of a write's `RETURNING`, or a prepared statement's).
private struct GRDBRow: SQLRow {
    let row: Row

    var columnCount: Int { row.count }

    func value(at index: Int) -> SQLValue {
        switch (row[index] as DatabaseValue).storage {
        case .null: .null
        case .int64(let i): .integer(i)
        case .double(let d): .real(d)
        case .string(let s): .text(s)
        case .blob(let d): .blob(d)
        }
    }

    func int64(at index: Int) -> Int64 { row[index] }
}

extension SQLArguments {
    var statementArguments: StatementArguments {
        StatementArguments(
            values.map { value -> DatabaseValue in
                switch value {
                case .null: .null
                case .integer(let i): i.databaseValue
                case .real(let d): d.databaseValue
                case .text(let s): s.databaseValue
                case .blob(let d): d.databaseValue
                }
            })
    }
}
