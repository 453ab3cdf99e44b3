import Foundation

/// One row of a result, read by column index in the statement's order. A row handed to a closure is valid only
/// inside that closure; ``SQLRecord`` is a row copied out.
package protocol SQLRow {
    var columnCount: Int { get }
    /// The value of column `index`.
    func value(at index: Int) -> SQLValue
    /// Column `index` as a 64-bit integer, without boxing (the hot loops: ids, keys).
    func int64(at index: Int) -> Int64
}

extension SQLRow {
    /// Column `index` read as `T` (an optional reads NULL as nil); a value that is not a `T` traps.
    package subscript<T: SQLValueConvertible>(_ index: Int) -> T {
        let stored = value(at: index)
        guard let converted = T.fromSQLValue(stored) else {
            preconditionFailure("column \(index) holds \(stored), which is not a \(T.self)")
        }
        return converted
    }
}

/// A row copied out of a result.
package struct SQLRecord: SQLRow, Sendable, Hashable {
    package var values: [SQLValue]

    package init(_ values: [SQLValue]) { self.values = values }

    package init(_ row: some SQLRow) { values = (0..<row.columnCount).map(row.value(at:)) }

    package var columnCount: Int { values.count }
    package func value(at index: Int) -> SQLValue { values[index] }
    package func int64(at index: Int) -> Int64 { self[index] }
}

/// A statement prepared once and run many times in one transaction (an insert per member, a probe per key).
package protocol SQLStatement: AnyObject {
    /// Runs the statement; the number of rows it inserted, updated or deleted.
    @discardableResult
    func execute(arguments: SQLArguments) throws -> Int
    /// The first row of the result, copied.
    func fetchOne(arguments: SQLArguments) throws -> SQLRecord?
}

/// A connection to the metadata store inside one transaction: what the engine's statements run on. SQL text uses
/// `?` placeholders (a store whose database numbers them rewrites them); what differs between databases beyond that
/// is asked of ``dialect``.
///
/// A connection is handed to the closure of ``MetadataReader/read(_:)`` or ``MetadataStore/write(_:)`` and is valid
/// only inside it, on that thread.
package protocol SQLConnection: AnyObject {
    var dialect: SQLDialect { get }
    /// Runs `sql`; the number of rows it inserted, updated or deleted.
    @discardableResult
    func execute(sql: String, arguments: SQLArguments) throws -> Int
    /// Runs `sql`, kept prepared for the next call with the same text when `cached` (as ``forEachRow(sql:arguments:cached:_:)``
    /// keeps its statements); the number of rows it inserted, updated or deleted.
    @discardableResult
    func execute(sql: String, arguments: SQLArguments, cached: Bool) throws -> Int
    /// Steps the result of `sql`, handing each row to `body` (valid only inside it); `body` returns false to stop.
    /// `cached`: the statement is kept prepared for the next call with the same text (the engine's fixed,
    /// frequent statements; never for text built from a variable number of terms).
    func forEachRow(sql: String, arguments: SQLArguments, cached: Bool, _ body: (any SQLRow) throws -> Bool) throws
    /// Each row's first column as an integer, handed over in batches — `firstBatch` rows first (a fetch's first
    /// page, as soon as it is there), then larger ones: the hot loop of every fetch (a million ids), with no call and
    /// no row value per row, as tightly as the store's driver allows (and batches are what a network store receives).
    func forEachInt64(
        sql: String, arguments: SQLArguments, cached: Bool, firstBatch: Int, _ body: (UnsafeBufferPointer<Int64>) throws -> Void
    ) throws
    /// Prepares `sql` for several runs inside this transaction.
    func prepare(sql: String) throws -> any SQLStatement
    /// Inserts many rows into `table` at once, each row its values for `columns` in order: the bulk path (a copy of
    /// a library, the benchmarks' synthetic libraries), as fast as the database takes rows — a prepared statement run
    /// per row where a row costs no round trip (SQLite), `COPY … FROM STDIN` where it does (PostgreSQL).
    func insertRows(into table: String, columns: [String], rows: [[SQLValue]]) throws
}

extension SQLConnection {
    /// One prepared `INSERT` run per row.
    package func insertRows(into table: String, columns: [String], rows: [[SQLValue]]) throws {
        guard !rows.isEmpty else { return }
        let statement = try prepare(
            sql: "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))")
        for row in rows { try statement.execute(arguments: SQLArguments(row)) }
    }
}

extension SQLConnection {
    @discardableResult
    package func execute(sql: String) throws -> Int { try execute(sql: sql, arguments: []) }

    /// A store that keeps no statements prepared runs it as any other.
    @discardableResult
    package func execute(sql: String, arguments: SQLArguments, cached: Bool) throws -> Int { try execute(sql: sql, arguments: arguments) }

    /// Every row of the result, copied.
    package func fetchAll(sql: String, arguments: SQLArguments = [], cached: Bool = false) throws -> [SQLRecord] {
        var rows: [SQLRecord] = []
        try forEachRow(sql: sql, arguments: arguments, cached: cached) { row in
            rows.append(SQLRecord(row))
            return true
        }
        return rows
    }

    /// The first row of the result, copied.
    package func fetchOne(sql: String, arguments: SQLArguments = [], cached: Bool = false) throws -> SQLRecord? {
        var first: SQLRecord?
        try forEachRow(sql: sql, arguments: arguments, cached: cached) { row in
            first = SQLRecord(row)
            return false
        }
        return first
    }
}

extension SQLRecord {
    /// Every row of `sql`'s result.
    package static func fetchAll(_ db: any SQLConnection, sql: String, arguments: SQLArguments = [], cached: Bool = false) throws -> [SQLRecord] {
        try db.fetchAll(sql: sql, arguments: arguments, cached: cached)
    }

    /// The first row of `sql`'s result.
    package static func fetchOne(_ db: any SQLConnection, sql: String, arguments: SQLArguments = [], cached: Bool = false) throws -> SQLRecord? {
        try db.fetchOne(sql: sql, arguments: arguments, cached: cached)
    }
}

extension SQLValueConvertible {
    /// The first column of the first row of `sql`'s result (nil: no row, or NULL).
    package static func fetchOne(_ db: any SQLConnection, sql: String, arguments: SQLArguments = [], cached: Bool = false) throws -> Self? {
        var result: Self?
        try db.forEachRow(sql: sql, arguments: arguments, cached: cached) { row in
            let value: Self? = row[0]
            result = value
            return false
        }
        return result
    }

    /// The first column of every row of `sql`'s result.
    package static func fetchAll(_ db: any SQLConnection, sql: String, arguments: SQLArguments = [], cached: Bool = false) throws -> [Self] {
        var result: [Self] = []
        try db.forEachRow(sql: sql, arguments: arguments, cached: cached) { row in
            result.append(row[0])
            return true
        }
        return result
    }
}
