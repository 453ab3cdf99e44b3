import Foundation
import Logging
import NIOPosix
import PhotoLibraryEngine
import PostgresNIO

/// The benchmarks' baseline on PostgreSQL: statements run on a plain PostgresNIO connection with nothing of
/// OpenPhotoKit in between, and bulk rows loaded with `COPY` (psql's `\copy`).
public final class RawPostgreSQLBaseline {
    private let connection: PostgresConnection
    private let logger = Logger(label: "photos-bench.postgres")
    /// The library's schema.
    public let schema: String

    /// Connects to the database of the library at `libraryURL` (`postgres://…?library=NAME`), its schema first on
    /// the search path.
    public init(libraryURL: URL) throws {
        let location = try PostgreSQLLocation(url: libraryURL)
        var configuration = location.configuration
        configuration.options.additionalStartupParameters += [("search_path", "\"\(location.library)\"")]
        schema = location.library
        connection = try PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 1, logger: logger
        ).wait()
    }

    deinit { try? connection.close().wait() }

    /// Runs `sql` (no arguments; statements a test sets a library up with).
    public func execute(_ sql: String) throws {
        _ = try connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).wait()
    }

    /// The first column of the first row `sql` answers, as an integer (nil without a row, or for NULL).
    public func integer(_ sql: String) throws -> Int64? {
        let rows = try connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).wait().rows
        return try rows.first.flatMap { try $0.decode(Int64?.self) }
    }

    /// Runs `sql` (`$n` placeholders, integer arguments), collects the first column of every row, then reads the
    /// first row whole with `rowSQL` (`$1`: its id). Returns the count.
    public func countAndFirst(sql: String, arguments: [Int64], rowSQL: String) throws -> Int {
        var binds = PostgresBindings()
        for argument in arguments { binds.append(argument) }
        let rows = try connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).wait().rows
        var ids = ContiguousArray<Int64>()
        ids.reserveCapacity(rows.count)
        for row in rows { ids.append(try row.decode(Int64.self)) }
        guard let first = ids.first else { return 0 }
        var rowBinds = PostgresBindings()
        rowBinds.append(first)
        let whole = try connection.query(PostgresQuery(unsafeSQL: rowSQL, binds: rowBinds), logger: logger).wait().rows
        precondition(whole.count == 1)
        return ids.count
    }

    /// Loads the synthetic rows of ``SyntheticLibrary/insertAssets(into:count:batch:seed:)`` with `COPY` (psql's
    /// `\copy` from a CSV file) into a new table like the library's `asset` (its indexes and defaults), removed
    /// afterwards. Returns the seconds psql took (the CSV is written before).
    public func copyAssets(libraryURL: URL, count: Int, seed: UInt64 = 42, scratch: URL) throws -> TimeInterval {
        let csv = scratch.appendingPathComponent("bench-rows.csv")
        guard FileManager.default.createFile(atPath: csv.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: csv.path])
        }
        let handle = try FileHandle(forWritingTo: csv)
        var written = 0
        while written < count {
            let rows = SyntheticAssetRow.rows(count: min(20_000, count - written), startingAt: written, seed: seed)
            handle.write(Data(rows.map(\.csvLine).joined().utf8))
            written += rows.count
        }
        try handle.close()
        defer { try? FileManager.default.removeItem(at: csv) }
        let table = "\"\(schema)\".bench_copy"
        _ = try connection.query(PostgresQuery(unsafeSQL: "DROP TABLE IF EXISTS \(table)"), logger: logger).wait()
        _ = try connection.query(PostgresQuery(unsafeSQL: "CREATE TABLE \(table) (LIKE \"\(schema)\".asset INCLUDING ALL)"), logger: logger).wait()
        defer { _ = try? connection.query(PostgresQuery(unsafeSQL: "DROP TABLE IF EXISTS \(table)"), logger: logger).wait() }
        // psql with the library's address, less its query (libpq does not read `library=`).
        var address = URLComponents(url: libraryURL, resolvingAgainstBaseURL: false)
        address?.query = nil
        let command = "\\copy \(table) (\(SyntheticAssetRow.columns.joined(separator: ", "))) FROM '\(csv.path)' WITH (FORMAT csv)"
        let start = Date()
        let end = try ChildProcess(URL(fileURLWithPath: "/usr/bin/psql"), [address?.string ?? "", "-v", "ON_ERROR_STOP=1", "-q", "-c", command])
            .wait()
        let seconds = Date().timeIntervalSince(start)
        guard end.status == 0 else { throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "psql \\copy failed (\(end.status))"]) }
        return seconds
    }
}
