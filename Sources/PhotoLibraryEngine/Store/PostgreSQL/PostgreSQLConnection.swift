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
            return try PostgreSQLEventLoops.wait(connection.query(query, logger: logger), on: connection)
        } catch {
            // A lost connection is the library going offline, not a failed statement.
            if let lost = lostConnection(error) { throw lost }
            // PostgresNIO's errors say only their kind when printed: the server's message and the statement say why.
            throw PostgreSQLError(message: describe(error), sql: sql)
        }
    }

    /// `error` as the library going offline when it is the connection's loss — closed, or no answer within its
    /// bound — rather than a failed statement; nil otherwise.
    func lostConnection(_ error: any Error) -> LibraryError? {
        guard connection.isClosed || error is PostgreSQLEventLoops.ConnectionClosed || error is PostgreSQLEventLoops.NoAnswer else {
            return nil
        }
        return .libraryVolumeOffline("the connection to the library's database server was lost: \(describe(error))")
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

    /// Streams: the rows are handed over as they arrive (PostgresNIO calls back per row on its event loop), so the
    /// first batch is there as soon as the server sends its first rows, not once the whole result is read.
    ///
    /// A sorted result's first rows come only after the server has sorted them all, unless the planner knows only a
    /// few are wanted: so a small first batch is its own `LIMIT` query (an index scan where there is one), and the
    /// whole result follows from the same transaction's snapshot, its first rows skipped. Only for an order that ends
    /// on the row id (a total order: both statements put every row in the same place).
    func forEachInt64(
        sql: String, arguments: SQLArguments, cached: Bool, firstBatch: Int, _ body: (UnsafeBufferPointer<Int64>) throws -> Void
    ) throws {
        var skip = 0
        if firstBatch > 0, firstBatch <= 1_000, Self.endsOnRowID(sql) {
            var first = ContiguousArray<Int64>()
            for row in try run(sql + " LIMIT \(firstBatch)", arguments).rows { first.append(PostgreSQLRow(row: row.makeRandomAccess()).int64(at: 0)) }
            try first.withUnsafeBufferPointer { try body($0) }
            if first.count < firstBatch { return }
            skip = first.count
        }
        try streamInt64(sql: skip > 0 ? sql + " OFFSET \(skip)" : sql, arguments: arguments, firstBatch: skip > 0 ? 4096 : firstBatch, body)
    }

    /// Whether `sql` is one statement whose `ORDER BY` ends on a row id, with no `LIMIT` or `OFFSET` of its own.
    static func endsOnRowID(_ sql: String) -> Bool {
        let upper = sql.uppercased()
        guard let order = upper.range(of: " ORDER BY ", options: .backwards), !upper.contains(" LIMIT "), !upper.contains(" OFFSET "),
            !upper.contains(";")
        else { return false }
        let last = upper[order.upperBound...].split(separator: ",").last?.trimmingCharacters(in: .whitespaces) ?? ""
        let term = last.split(separator: " ").first.map(String.init) ?? ""
        return term == "ID" || term.hasSuffix(".ID")
    }

    private func streamInt64(
        sql: String, arguments: SQLArguments, firstBatch: Int, _ body: (UnsafeBufferPointer<Int64>) throws -> Void
    ) throws {
        let query = try Self.query(sql, arguments)
        let stream = IDStream()
        let finished = connection.query(query, logger: logger) { row in
            stream.append(PostgreSQLRow(row: row.makeRandomAccess()).int64(at: 0))
        }
        finished.whenComplete { result in
            switch result {
            case .success: stream.finish(nil)
            case .failure(let error): stream.finish(PostgreSQLError(message: describe(error), sql: sql))
            }
        }
        var size = Swift.max(1, firstBatch)
        var failure: (any Error)?
        // A query written to a connection that has just closed is never failed by PostgresNIO: the close ends it.
        let closed = { stream.finish(PostgreSQLError(message: "the connection to the database server was closed", sql: sql)) }
        let watch = PostgreSQLEventLoops.closeWatch(of: connection)
        let deadline = watch.deadline(on: connection) { stream.finish($0) }
        defer { deadline?.cancel() }
        watch.whileWaiting(closed) {
            while let batch = stream.next(size) {
                size = 4096
                // A body that throws stops the caller; the rest of the result is still read (and dropped) so that
                // the connection is ready for the next statement.
                if failure == nil {
                    do { try batch.withUnsafeBufferPointer { try body($0) } } catch { failure = error }
                }
            }
        }
        if let failure { throw failure }
        if let error = stream.error {
            if let lost = lostConnection(error) { throw lost }
            throw error
        }
    }

    /// `COPY … FROM STDIN`: the rows travel in PostgreSQL's text format, each value read by its column's input
    /// function — PostgreSQL's own bulk path, no statement per row, no limit on parameters. The text is made on the
    /// calling thread; the connection's event loop only sends it.
    func insertRows(into table: String, columns: [String], rows: [[SQLValue]]) throws {
        guard !rows.isEmpty else { return }
        let chunks = Self.copyText(rows)
        let connection = connection
        let logger = logger
        do {
            try PostgreSQLEventLoops.run(on: connection) {
                try await connection.copyFrom(table: table, columns: columns, logger: logger) { writer in
                    for chunk in chunks { try await writer.write(chunk) }
                }
            }
        } catch {
            if let lost = lostConnection(error) { throw lost }
            throw PostgreSQLError(message: describe(error), sql: "COPY \(table) (\(columns.joined(separator: ", "))) FROM STDIN")
        }
    }

    /// `rows` in `COPY`'s text format (tab between values, a line per row, `\N` for NULL, backslash escapes), in
    /// buffers of about 1 MiB.
    static func copyText(_ rows: [[SQLValue]]) -> [ByteBuffer] {
        var chunks: [ByteBuffer] = []
        var buffer = ByteBuffer()
        buffer.reserveCapacity(1 << 20 + 4096)
        for row in rows {
            for (index, value) in row.enumerated() {
                if index > 0 { buffer.writeInteger(UInt8(ascii: "\t")) }
                appendCopyText(value, to: &buffer)
            }
            buffer.writeInteger(UInt8(ascii: "\n"))
            if buffer.readableBytes >= 1 << 20 {
                chunks.append(buffer)
                buffer = ByteBuffer()
                buffer.reserveCapacity(1 << 20 + 4096)
            }
        }
        if buffer.readableBytes > 0 { chunks.append(buffer) }
        return chunks
    }

    /// `value` as `COPY`'s text format has it, read back exactly by the column's input function: numbers in Swift's
    /// shortest round-tripping form, text with backslash, tab, newline and carriage return escaped, bytes as
    /// `bytea`'s hex form.
    static func appendCopyText(_ value: SQLValue, to buffer: inout ByteBuffer) {
        switch value {
        case .null: buffer.writeStaticString("\\N")
        case .integer(let i): buffer.writeString(String(i))
        case .real(let d): buffer.writeString(d.isFinite ? "\(d)" : (d > 0 ? "Infinity" : (d < 0 ? "-Infinity" : "NaN")))
        case .text(let text):
            var text = text
            text.withUTF8 { bytes in
                guard bytes.contains(where: { $0 == UInt8(ascii: "\\") || $0 < 0x20 }) else {
                    buffer.writeBytes(bytes)
                    return
                }
                for byte in bytes {
                    switch byte {
                    case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
                    case UInt8(ascii: "\t"): buffer.writeStaticString("\\t")
                    case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
                    case UInt8(ascii: "\r"): buffer.writeStaticString("\\r")
                    default: buffer.writeInteger(byte)
                    }
                }
            }
        case .blob(let data):
            buffer.writeStaticString("\\\\x")
            let digits: StaticString = "0123456789abcdef"
            for byte in data {
                buffer.writeInteger(digits.utf8Start[Int(byte >> 4)])
                buffer.writeInteger(digits.utf8Start[Int(byte & 15)])
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

/// Ids arriving from PostgresNIO's event loop, taken in batches by the caller's thread.
private final class IDStream: @unchecked Sendable {
    private let condition = NSCondition()
    private var ids = ContiguousArray<Int64>()
    /// Where the ids not yet taken begin in `ids`.
    private var start = 0
    private var done = false
    private(set) var error: (any Error)?
    /// How many ids the waiting reader wants before it is woken (0: none waits).
    private var wanted = 0

    func append(_ id: Int64) {
        condition.lock()
        ids.append(id)
        if wanted > 0, ids.count - start >= wanted { condition.signal() }
        condition.unlock()
    }

    /// The first end wins (the query's, or the connection's close).
    func finish(_ error: (any Error)?) {
        condition.lock()
        if done {
            condition.unlock()
            return
        }
        done = true
        self.error = error
        condition.signal()
        condition.unlock()
    }

    /// The next `count` ids (fewer once the result ended); nil when nothing is left.
    func next(_ count: Int) -> ContiguousArray<Int64>? {
        condition.lock()
        defer { condition.unlock() }
        while ids.count - start < count, !done {
            wanted = count
            condition.wait()
        }
        wanted = 0
        let end = Swift.min(start + count, ids.count)
        guard end > start else { return nil }
        let batch = ContiguousArray(ids[start..<end])
        start = end
        if start == ids.count {
            ids.removeAll(keepingCapacity: true)
            start = 0
        }
        return batch
    }
}
