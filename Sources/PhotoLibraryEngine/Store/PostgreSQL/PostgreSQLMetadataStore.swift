import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import Synchronization

/// A metadata store on a PostgreSQL server: each library a schema of one database (`?library=NAME`), so that one
/// server holds many libraries.
///
/// Reads run in `REPEATABLE READ READ ONLY` transactions (every statement of a read sees one committed state, as a
/// SQLite reader's WAL snapshot does). Writers are serialised per library — in this process by a lock, across
/// processes and hosts by a session advisory lock on the library's key, which PostgreSQL releases when the
/// connection dies — so the engine keeps SQLite's one-writer semantics, and the state right after a commit can be
/// pinned before any later write begins.
///
/// The engine's calls are synchronous: they wait for PostgresNIO's futures, so they must not run on its event
/// loops.
package final class PostgreSQLMetadataStore: MetadataStore, @unchecked Sendable {
    let configuration: PostgresConnection.Configuration
    /// The library's schema.
    package let schema: String
    /// Where it is, for messages (no password).
    let location: String
    let logger: Logger
    package let commitSignal: any CommitSignal
    package var dialect: SQLDialect { .postgreSQL }
    /// Session advisory locks on a connection of this store's own (see ``PostgreSQLOwnerLocks``).
    package let ownerLocks: any OwnerLocks

    private let idle = Mutex<[PostgresConnection]>([])
    private let writer = NSLock()
    private let nextID = Atomic<Int>(1)

    private init(configuration: PostgresConnection.Configuration, schema: String, location: String, logger: Logger) {
        var configuration = configuration
        // Set when the session starts, no round trip: the library's schema, and bounds on every wait — a lock
        // (another writer that does not let go: SQLite's busy timeout is 10 s too); the statement's bound comes with
        // the location.
        configuration.options.additionalStartupParameters += [
            ("search_path", Self.quoted(schema)), ("lock_timeout", "10s"),
            ("application_name", Self.applicationName(schema)),
        ]
        self.configuration = configuration
        self.schema = schema
        self.location = location
        self.logger = logger
        commitSignal = PostgreSQLCommitSignal(configuration: configuration, channel: Self.channel(schema), logger: logger)
        ownerLocks = PostgreSQLOwnerLocks(configuration: configuration, schema: schema, logger: logger)
    }

    /// The name a library's sessions give the server (`pg_stat_activity`): which library, in 63 bytes.
    static func applicationName(_ schema: String) -> String { "OpenPhotoKit \(String(fnv1a("library.\(schema)"), radix: 36))" }

    /// The `NOTIFY` channel of a library's commits.
    package static func channel(_ schema: String) -> String { "openphotokit_\(String(fnv1a("commits.\(schema)"), radix: 36))" }

    deinit {
        for connection in idle.withLock({ $0 }) { _ = try? PostgreSQLEventLoops.wait(connection.close()) }
    }

    /// Connects to the database `url` names (`postgres://user[:password]@host[:port]/database?library=NAME`), makes
    /// the library's schema when it is missing (if `creating`; otherwise a missing library is
    /// ``LibraryError/libraryVolumeOffline(_:)``) and migrates it (``PostgreSQLSchema``).
    package static func open(url: URL, creating: Bool = true, logger: Logger = Logger(label: "OpenPhotoKit.postgres")) throws(LibraryError)
        -> PostgreSQLMetadataStore
    {
        let location = try PostgreSQLLocation(url: url)
        let store = PostgreSQLMetadataStore(
            configuration: location.configuration, schema: location.library, location: location.description, logger: logger)
        try PostgreSQLSchema.migrate(store, creating: creating, description: "the library \(location.library) at \(location.description)")
        return store
    }

    /// Whether the database `url` names holds the library (its schema, made by OpenPhotoKit); an unreachable database
    /// throws rather than answering no.
    package static func libraryExists(url: URL) throws(LibraryError) -> Bool {
        let location = try PostgreSQLLocation(url: url)
        let store = PostgreSQLMetadataStore(
            configuration: location.configuration, schema: location.library, location: location.description,
            logger: Logger(label: "OpenPhotoKit.postgres"))
        do {
            return try store.read { db in try PostgreSQLSchema.isMade(db) }
        } catch let error as LibraryError {
            throw error
        } catch {
            throw .internalError("cannot read the database at \(location.description): \(error)")
        }
    }

    /// Removes a library's schema and everything in it (tests, `photos library` tools), ending the library's other
    /// sessions first (a snapshot held open would make the removal wait). Not migrated first: a library of a newer
    /// version is removed too.
    package static func removeLibrary(url: URL) throws(LibraryError) {
        let location = try PostgreSQLLocation(url: url)
        let store = PostgreSQLMetadataStore(
            configuration: location.configuration, schema: location.library, location: location.description,
            logger: Logger(label: "OpenPhotoKit.postgres"))
        do {
            let connection = try store.checkOut()
            defer { _ = try? PostgreSQLEventLoops.wait(connection.close()) }
            let sql = PostgreSQLConnection(connection, logger: store.logger)
            try sql.execute(
                sql: "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ? AND pid <> pg_backend_pid()",
                arguments: [applicationName(store.schema)])
            try sql.execute(sql: "DROP SCHEMA IF EXISTS \(quoted(store.schema)) CASCADE")
        } catch let error as LibraryError {
            throw error
        } catch {
            throw .internalError("cannot remove the library \(store.schema): \(error)")
        }
    }

    // MARK: Transactions

    package func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try withConnection { connection in
            try transaction(on: connection, begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
        }
    }

    @discardableResult
    package func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try write(body, finished: { _, _ in })
    }

    @discardableResult
    package func write<T>(
        _ body: (any SQLConnection) throws -> T, finished: (_ committed: Bool, _ snapshot: () -> (any MetadataReader)?) -> Void
    ) throws -> T {
        try holdingWriterLock { connection in
            var committed = false
            var wrote = false
            // Still holding the writer lock: no later write has begun.
            defer { finished(committed) { self.snapshot() } }
            let result = try transaction(on: connection, begin: "BEGIN ISOLATION LEVEL READ COMMITTED") { db in
                let result = try body(db)
                // Only a transaction that changed something is a commit to tell of (as in SQLite, where one that
                // changed nothing leaves the WAL as it was): the engine's upkeep at every open (recovery, the trash,
                // the history) mostly finds nothing to do. A transaction is given an id at its first change.
                wrote = try Bool.fetchOne(db, sql: "SELECT pg_current_xact_id_if_assigned() IS NOT NULL") ?? true
                // Delivered to listeners only if the transaction commits, and then after it; signed with this
                // process's tag, so that its own probes — which counted the commit when it returned — skip it.
                if wrote {
                    try db.execute(sql: "SELECT pg_notify(?, ?)", arguments: [Self.channel(schema), PostgreSQLCommitSignal.processTag])
                }
                return result
            }
            committed = true
            if wrote { PostgreSQLCommitSignal.countLocalCommit(on: Self.channel(schema)) }
            return result
        }
    }

    /// A transaction of the work queue's rows only: no writer lock (rows claimed are locked by the statement that
    /// claims them, `FOR UPDATE SKIP LOCKED`) and no `NOTIFY` (nothing an observer reads changed).
    package func writeQueue<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try withConnection { connection in
            try transaction(on: connection, begin: "BEGIN ISOLATION LEVEL READ COMMITTED", body)
        }
    }

    /// Runs `body` holding the library's writer lock (in this process and across hosts), outside any transaction.
    package func whileNoWriterCommits<T>(_ body: () throws -> T) throws -> T {
        try holdingWriterLock { _ in try body() }
    }

    /// Runs `body` on a connection that holds the library's writer lock: this process's, then the session advisory
    /// lock that excludes writers of every process and host (released with the connection if it dies).
    private func holdingWriterLock<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        writer.lock()
        defer { writer.unlock() }
        return try withConnection { connection in
            let sql = PostgreSQLConnection(connection, logger: logger)
            try sql.execute(sql: "SELECT pg_advisory_lock(?)", arguments: [writerKey])
            defer { _ = try? sql.execute(sql: "SELECT pg_advisory_unlock(?)", arguments: [writerKey]) }
            return try body(connection)
        }
    }

    package func snapshot() -> (any MetadataReader)? {
        guard let connection = try? checkOut() else { return nil }
        let sql = PostgreSQLConnection(connection, logger: logger)
        do {
            try sql.execute(sql: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            // The snapshot is taken by the transaction's first statement.
            try sql.execute(sql: "SELECT 1")
        } catch {
            _ = try? PostgreSQLEventLoops.wait(connection.close())
            return nil
        }
        return PostgreSQLSnapshot(connection: sql, store: self)
    }

    /// Runs `body` in a transaction opened with `begin` on `connection`: committed when it returns, rolled back when
    /// it throws.
    private func transaction<T>(on connection: PostgresConnection, begin: String, _ body: (any SQLConnection) throws -> T) throws -> T {
        let sql = PostgreSQLConnection(connection, logger: logger)
        try sql.execute(sql: begin)
        let result: T
        do {
            result = try body(sql)
        } catch {
            _ = try? sql.execute(sql: "ROLLBACK")
            throw error
        }
        let outcome: PostgresQueryResult
        do {
            outcome = try sql.run("COMMIT", [])
        } catch {
            // Sent, and no answer: the server may have committed before the connection ended.
            throw LibraryError.commitOutcomeUnknown(
                "the connection to the database of the library \(schema) ended while it committed; the change may or may not be saved: \(error)")
        }
        // A transaction that an error aborted answers COMMIT with ROLLBACK, and no error: never a silent loss.
        guard outcome.metadata.command == "COMMIT" else {
            throw LibraryError.internalError("the database rolled the transaction back (\(outcome.metadata.command)) instead of committing it")
        }
        return result
    }

    /// The advisory lock key of this library's writer: a stable 64-bit hash of its schema.
    private var writerKey: Int64 { Int64(bitPattern: fnv1a("OpenPhotoKit.writer.\(schema)")) }

    // MARK: Connections

    private func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try checkOut()
        do {
            let result = try body(connection)
            checkIn(connection)
            return result
        } catch {
            // A connection whose transaction failed half-way is not reused.
            _ = try? PostgreSQLEventLoops.wait(connection.close())
            throw error
        }
    }

    private func checkOut() throws -> PostgresConnection {
        if let connection = idle.withLock({ $0.popLast() }), !connection.isClosed { return connection }
        do {
            return try Self.connect(configuration, id: nextID.add(1, ordering: .relaxed).oldValue, logger: logger)
        } catch {
            throw LibraryError.libraryVolumeOffline("cannot reach the database of the library \(schema) at \(location): \(describe(error))")
        }
    }

    fileprivate func checkIn(_ connection: PostgresConnection) {
        guard !connection.isClosed else { return }
        let kept = idle.withLock { connections -> Bool in
            guard connections.count < 8 else { return false }
            connections.append(connection)
            return true
        }
        if !kept { _ = try? PostgreSQLEventLoops.wait(connection.close()) }
    }

    static func connect(_ configuration: PostgresConnection.Configuration, id: Int, logger: Logger) throws -> PostgresConnection {
        let connection = try PostgreSQLEventLoops.wait(
            PostgresConnection.connect(on: PostgreSQLEventLoops.group.next(), configuration: configuration, id: id, logger: logger))
        PostgreSQLEventLoops.watchClose(of: connection, replyTimeout: replyTimeout(configuration))
        return connection
    }

    /// How long a caller waits for an answer before its connection counts as lost: the session's statement timeout
    /// (the server ends a statement by then) plus the connect timeout (for the answer to travel). A server that stops
    /// answering without closing — the network gone — ends every wait on it by then.
    static func replyTimeout(_ configuration: PostgresConnection.Configuration) -> TimeAmount {
        let statement =
            configuration.options.additionalStartupParameters.last { $0.0 == "statement_timeout" }
            .flatMap { Int64($0.1.dropLast()) } ?? PostgreSQLLocation.defaultStatementTimeout
        return .seconds(statement) + configuration.options.connectTimeout
    }

    /// `name` as a quoted SQL identifier.
    static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// One moment of a PostgreSQL library: a `REPEATABLE READ` transaction held open on a connection of its own, whose
/// reads all see the state it began with. Reads of one snapshot take turns; the transaction ends with the snapshot.
final class PostgreSQLSnapshot: MetadataReader, @unchecked Sendable {
    private let connection: PostgreSQLConnection
    private let store: PostgreSQLMetadataStore
    private let lock = NSLock()

    fileprivate init(connection: PostgreSQLConnection, store: PostgreSQLMetadataStore) {
        self.connection = connection
        self.store = store
    }

    func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try lock.withLock { try body(connection) }
    }

    deinit {
        if (try? connection.execute(sql: "COMMIT")) != nil {
            store.checkIn(connection.connection)
        } else {
            _ = try? PostgreSQLEventLoops.wait(connection.connection.close())
        }
    }
}

/// How a PostgreSQL library tells of commits: every write transaction sends `NOTIFY` on the library's channel
/// (delivered only when it commits), and a watch or a probe `LISTEN`s on a connection of its own. A notification only
/// says "look again" — what changed is read from the journal — so one lost with a dropped connection costs nothing but
/// time: the change center's safety poll finds the commit, and a probe whose connection is gone says "changed" to
/// every check.
struct PostgreSQLCommitSignal: CommitSignal {
    let configuration: PostgresConnection.Configuration
    let channel: String
    let logger: Logger

    /// What this process signs its notifications with.
    static let processTag = "\(ProcessInfo.processInfo.processIdentifier).\(UUID().uuidString)"

    /// The commits this process made on each channel, counted as each returns: a probe sees them exactly, before
    /// their notification comes back.
    private static let localCommits = Mutex<[String: Int]>([:])

    static func countLocalCommit(on channel: String) {
        localCommits.withLock { $0[channel, default: 0] += 1 }
    }

    static func localCommitCount(on channel: String) -> Int {
        localCommits.withLock { $0[channel, default: 0] }
    }

    func watch(on queue: DispatchQueue, _ wake: @escaping @Sendable () -> Void) -> (any CommitWatch)? {
        try? PostgreSQLListener(configuration: configuration, channel: channel, logger: logger) { _ in queue.async(execute: wake) }
    }

    func makeProbe() -> any CommitProbe {
        PostgreSQLCommitProbe(configuration: configuration, channel: channel, logger: logger)
    }
}

/// A connection that `LISTEN`s on one channel and calls a handler for each notification, until stopped.
final class PostgreSQLListener: CommitWatch, @unchecked Sendable {
    private let connection: PostgresConnection
    private let context: PostgresListenContext

    init(
        configuration: PostgresConnection.Configuration, channel: String, logger: Logger,
        _ handler: @escaping @Sendable (_ payload: String) -> Void
    ) throws {
        connection = try PostgreSQLMetadataStore.connect(configuration, id: 0, logger: logger)
        context = connection.addListener(channel: channel) { _, notification in handler(notification.payload) }
        do {
            _ = try PostgreSQLEventLoops.wait(
                connection.query(PostgresQuery(unsafeSQL: "LISTEN \(PostgreSQLMetadataStore.quoted(channel))"), logger: logger),
                on: connection)
        } catch {
            context.stop()
            _ = try? PostgreSQLEventLoops.wait(connection.close())
            throw error
        }
    }

    /// Whether notifications still arrive (false once the connection is gone).
    var isListening: Bool { !connection.isClosed }

    func stop() {
        context.stop()
        _ = try? PostgreSQLEventLoops.wait(connection.close())
    }

    deinit { stop() }
}

/// A server's per-request check on a PostgreSQL library: this process's commits, counted as they return (exact), and
/// other processes' from its listener's notifications (seen within their delivery, well under a millisecond on one
/// network). With no listener (the server was unreachable, or the connection dropped) every check says "changed".
final class PostgreSQLCommitProbe: CommitProbe, @unchecked Sendable {
    private let channel: String
    private let notifications = Atomic<Int>(0)
    /// The counts of the last look: this process's commits, other processes' notifications.
    private let seen: Mutex<(local: Int, others: Int)>
    private var listener: PostgreSQLListener?

    init(configuration: PostgresConnection.Configuration, channel: String, logger: Logger) {
        self.channel = channel
        seen = Mutex((PostgreSQLCommitSignal.localCommitCount(on: channel), 0))
        listener = try? PostgreSQLListener(configuration: configuration, channel: channel, logger: logger) { [weak self] payload in
            guard payload != PostgreSQLCommitSignal.processTag else { return }
            self?.notifications.add(1, ordering: .relaxed)
        }
    }

    func changed() -> Bool {
        guard let listener, listener.isListening else { return true }
        let now = (local: PostgreSQLCommitSignal.localCommitCount(on: channel), others: notifications.load(ordering: .relaxed))
        return seen.withLock { last in
            defer { last = now }
            return now != last
        }
    }

    deinit { listener?.stop() }
}

/// A PostgreSQL library's address: `postgres://user[:password]@host[:port]/database?library=NAME&files=/path`. The
/// password, as libpq finds it: in the address, else `PGPASSWORD`, else the password file (`PGPASSFILE`, else
/// `~/.pgpass`; ignored unless only its owner can read it).
///
/// Bounds, in seconds: `connect_timeout` (libpq's name; 10 unless given) and `statement_timeout` (300 unless given):
/// the server ends a statement that runs longer, and a caller gives up on a connection whose answer has not come
/// within both — a server gone silent, the network gone — as ``LibraryError/libraryVolumeOffline(_:)``.
///
/// TLS as libpq's `sslmode` (in the address, else `PGSSLMODE`): `disable`; `prefer` (the default: TLS when the server
/// offers it, its certificate not checked); `require` (TLS or no connection, the certificate not checked); `verify-ca`
/// (the certificate signed by a trusted authority); `verify-full` (that, and issued for the host). The authorities:
/// `sslrootcert=/path/ca.pem` (else `PGSSLROOTCERT`), else the system's.
package struct PostgreSQLLocation: CustomStringConvertible {
    package let configuration: PostgresConnection.Configuration
    package let library: String
    package let description: String
    /// Where the library's files are (`files=`, and `cache=` for this node's folder of an object store), when given.
    let files: FilesLocation?
    /// A statement's bound, in seconds, unless the address says (`statement_timeout=`).
    static let defaultStatementTimeout: Int64 = 300

    /// Whether `url` names a PostgreSQL library.
    static func handles(_ url: URL) -> Bool { ["postgres", "postgresql"].contains(url.scheme?.lowercased() ?? "") }

    package init(url: URL) throws(LibraryError) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            ["postgres", "postgresql"].contains(components.scheme?.lowercased() ?? ""), let host = components.host, !host.isEmpty
        else {
            throw .invalidResource("\(url.absoluteString) is not a postgres://user@host:port/database?library=NAME address")
        }
        let user = components.user ?? "postgres"
        let database = String(components.path.drop { $0 == "/" })
        let query = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        let library = query["library"] ?? "library"
        guard !library.isEmpty, library.utf8.count <= 60, library.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
            throw .invalidResource("the library name \(library.debugDescription) is 1 to 60 letters, digits, '_' and '-'")
        }
        let environment = ProcessInfo.processInfo.environment
        let password =
            components.password ?? environment["PGPASSWORD"]
            ?? Self.passwordFile(environment).flatMap {
                Self.password(in: $0, host: host, port: components.port ?? 5432, database: database, user: user)
            }
        let tls = try Self.tls(
            mode: query["sslmode"] ?? environment["PGSSLMODE"] ?? "prefer", rootCertificate: query["sslrootcert"] ?? environment["PGSSLROOTCERT"])
        var configuration = PostgresConnection.Configuration(
            host: host, port: components.port ?? 5432, username: user, password: password, database: database.isEmpty ? nil : database,
            tls: tls)
        let seconds = { (name: String, fallback: Int64) throws(LibraryError) -> Int64 in
            guard let text = query[name] else { return fallback }
            guard let value = Int64(text), (1...86_400).contains(value) else {
                throw .invalidResource("\(name) is a number of seconds from 1 to 86400, not \(text.debugDescription)")
            }
            return value
        }
        configuration.options.connectTimeout = .seconds(try seconds("connect_timeout", 10))
        configuration.options.additionalStartupParameters.append(
            ("statement_timeout", "\(try seconds("statement_timeout", Self.defaultStatementTimeout))s"))
        self.configuration = configuration
        self.library = library
        if let text = query["files"], !text.isEmpty {
            files = try FilesLocation(
                text, cache: query["cache"], cacheSize: query["cache_size"], libraryName: "\(host)-\(components.port ?? 5432)-\(database)-\(library)")
        } else {
            files = nil
        }
        description = "postgres://\(user)@\(host):\(components.port ?? 5432)/\(database)?library=\(library)"
    }
}

extension PostgreSQLLocation {
    /// PostgresNIO's TLS setting for libpq's `sslmode` and `sslrootcert`.
    static func tls(mode: String, rootCertificate: String?) throws(LibraryError) -> PostgresConnection.Configuration.TLS {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch mode {
        case "disable": return .disable
        case "allow", "prefer", "require": configuration.certificateVerification = .none
        case "verify-ca": configuration.certificateVerification = .noHostnameVerification
        case "verify-full": configuration.certificateVerification = .fullVerification
        default:
            throw .invalidResource("sslmode \(mode.debugDescription) is none of disable, allow, prefer, require, verify-ca, verify-full")
        }
        if let rootCertificate, !rootCertificate.isEmpty, configuration.certificateVerification != .none {
            guard FileManager.default.isReadableFile(atPath: rootCertificate) else {
                throw .invalidResource("sslrootcert \(rootCertificate) cannot be read")
            }
            configuration.trustRoots = .file(rootCertificate)
        }
        do {
            let context = try NIOSSLContext(configuration: configuration)
            return mode == "require" || mode.hasPrefix("verify") ? .require(context) : .prefer(context)
        } catch {
            throw .invalidResource("the TLS settings (sslmode=\(mode)) cannot be used: \(error)")
        }
    }

    /// The password file libpq reads, when only its owner can read it.
    static func passwordFile(_ environment: [String: String]) -> String? {
        let path = environment["PGPASSFILE"] ?? (environment["HOME"].map { $0 + "/.pgpass" })
        guard let path else { return nil }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_mode & 0o077 == 0 else { return nil }
        return try? String(contentsOfFile: path, encoding: .utf8)
    }

    /// The password of the first line of a `.pgpass` file that matches (`host:port:database:user:password`, `*` for
    /// any, `\:` and `\\` escaped).
    package static func password(in file: String, host: String, port: Int, database: String, user: String) -> String? {
        for line in file.split(separator: "\n", omittingEmptySubsequences: true) where !line.hasPrefix("#") {
            var fields: [String] = [""]
            var escaped = false
            for character in line {
                if escaped {
                    fields[fields.count - 1].append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == ":", fields.count < 5 {
                    fields.append("")
                } else {
                    fields[fields.count - 1].append(character)
                }
            }
            guard fields.count == 5 else { continue }
            let wanted = [host, String(port), database, user]
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }
}

/// FNV-1a, 64 bits: a hash that stays the same across processes and hosts (`Hasher` is seeded per process).
func fnv1a(_ text: String) -> UInt64 {
    var value: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
        value ^= UInt64(byte)
        value &*= 0x100_0000_01b3
    }
    return value
}

/// A PostgresNIO error as one line that names the cause (its description alone says only which kind of error).
func describe(_ error: any Error) -> String {
    if let error = error as? PSQLError {
        let server = error.serverInfo.flatMap { $0[.message] }.map { ": \($0)" } ?? ""
        let underlying = error.underlying.map { ": \($0)" } ?? ""
        return "\(error.code)\(server)\(underlying)"
    }
    return "\(error)"
}
