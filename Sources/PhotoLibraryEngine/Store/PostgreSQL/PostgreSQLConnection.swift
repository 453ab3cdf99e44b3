import Foundation
import Logging
import NIOCore
import PostgresNIO

/// The engine's ``SQLConnection`` on one PostgreSQL connection, inside one of the store's transactions. Statements
/// are the engine's SQL with `?` placeholders, numbered here (`$1`, `$2` …) outside literals, quoted names and
/// comments; values are bound with their types, never spliced into the text.
///
/// Calls wait for the server (PostgresNIO's futures): a connection is used from the thread that runs the
/// transaction, never from one of the event loops.
final class PostgreSQLConnection: SQLConnection {
    let connection: PostgresConnection
    let logger: Logger

    init(_ connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    var dialect: SQLDialect { .postgreSQL }

    /// Runs `sql` and returns its rows and the count the server reports.
    func run(_ sql: String, _ arguments: SQLArguments) throws -> PostgresQueryResult {
        let query = try Self.query(sql, arguments)
        do {
            return try PostgreSQLEventLoops.wait(connection.query(query, logger: logger))
        } catch {
            // PostgresNIO's errors say only their kind when printed: the server's message and the statement say why.
            throw PostgreSQLError(message: describe(error), sql: sql)
        }
    }

    @discardableResult
    func execute(sql: String, arguments: SQLArguments) throws -> Int {
        try run(sql, arguments).metadata.rows ?? 0
    }

    func forEachRow(sql: String, arguments: SQLArguments, cached: Bool, _ body: (any SQLRow) throws -> Bool) throws {
        for row in try run(sql, arguments).rows {
            if try !body(PostgreSQLRow(row: row.makeRandomAccess())) { return }
        }
    }

    func forEachInt64(
        sql: String, arguments: SQLArguments, cached: Bool, firstBatch: Int, _ body: (UnsafeBufferPointer<Int64>) throws -> Void
    ) throws {
        let rows = try run(sql, arguments).rows
        var ids = ContiguousArray<Int64>()
        ids.reserveCapacity(rows.count)
        for row in rows { ids.append(PostgreSQLRow(row: row.makeRandomAccess()).int64(at: 0)) }
        var start = 0
        var size = Swift.max(1, firstBatch)
        try ids.withUnsafeBufferPointer { all in
            while start < all.count {
                let end = Swift.min(start + size, all.count)
                try body(UnsafeBufferPointer(rebasing: all[start..<end]))
                start = end
                size = 4096
            }
        }
    }

    func prepare(sql: String) throws -> any SQLStatement {
        PostgreSQLStatement(connection: self, sql: sql)
    }

    /// The query of `sql` with its `?` placeholders numbered and `arguments` bound.
    static func query(_ sql: String, _ arguments: SQLArguments) throws -> PostgresQuery {
        let (text, count) = numberPlaceholders(sql)
        guard count == arguments.values.count else {
            throw LibraryError.internalError("a statement has \(count) placeholders and \(arguments.values.count) arguments: \(sql)")
        }
        var binds = PostgresBindings(capacity: count)
        for value in arguments.values {
            switch value {
            case .null: binds.appendNull()
            case .integer(let i): binds.append(i)
            case .real(let d): binds.append(d)
            case .text(let s): binds.append(s)
            case .blob(let d): binds.append(ByteBuffer(bytes: d))
            }
        }
        return PostgresQuery(unsafeSQL: text, binds: binds)
    }

    /// `sql` with each `?` outside string literals, quoted names and comments replaced by `$1`, `$2` …, and how
    /// many there were.
    static func numberPlaceholders(_ sql: String) -> (String, Int) {
        var out = ""
        out.reserveCapacity(sql.utf8.count + 16)
        var count = 0
        var quote: Character?
        var lineComment = false
        var blockComment = false
        var previous: Character?
        for c in sql {
            defer { previous = c }
            if lineComment {
                if c == "\n" { lineComment = false }
            } else if blockComment {
                if previous == "*", c == "/" { blockComment = false }
            } else if let open = quote {
                if c == open { quote = nil }
            } else if c == "'" || c == "\"" {
                quote = c
            } else if c == "-", previous == "-" {
                lineComment = true
            } else if c == "*", previous == "/" {
                blockComment = true
            } else if c == "?" {
                count += 1
                out += "$\(count)"
                continue
            }
            out.append(c)
        }
        return (out, count)
    }
}

/// A statement run many times in one transaction. (The server plans each run; the text is numbered once.)
private final class PostgreSQLStatement: SQLStatement {
    let connection: PostgreSQLConnection
    let sql: String

    init(connection: PostgreSQLConnection, sql: String) {
        self.connection = connection
        self.sql = sql
    }

    func execute(arguments: SQLArguments) throws -> Int {
        try connection.execute(sql: sql, arguments: arguments)
    }

    func fetchOne(arguments: SQLArguments) throws -> SQLRecord? {
        try connection.fetchOne(sql: sql, arguments: arguments)
    }
}

/// A row of a PostgreSQL result, its cells read as the engine's values by their types.
struct PostgreSQLRow: SQLRow {
    let row: PostgresRandomAccessRow

    var columnCount: Int { row.count }

    func value(at index: Int) -> SQLValue {
        let cell = row[index]
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8, .oid:
            if let value = try? cell.decode(Int64.self) { return .integer(value) }
        case .bool:
            if let value = try? cell.decode(Bool.self) { return .integer(value ? 1 : 0) }
        case .float4, .float8:
            if let value = try? cell.decode(Double.self) { return .real(value) }
        case .numeric:
            if let text = try? cell.decode(String.self), let value = Double(text) { return .real(value) }
            if let value = try? cell.decode(Double.self) { return .real(value) }
        case .bytea:
            if let value = try? cell.decode(ByteBuffer.self) { return .blob(Data(value.readableBytesView)) }
        default:
            break
        }
        if let text = try? cell.decode(String.self) { return .text(text) }
        return .null
    }

    func int64(at index: Int) -> Int64 {
        if case .integer(let value) = value(at: index) { return value }
        return 0
    }
}

/// A statement the server refused or could not run, with the server's message and the statement (never its values).
struct PostgreSQLError: Error, CustomStringConvertible {
    let message: String
    let sql: String

    var description: String { "PostgreSQL: \(message) (in: \(sql.prefix(300)))" }
}
