import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The metadata store of a library folder: `database/Photos.sqlite` in WAL mode through GRDB — opened with the
/// library's SQL functions (`ph_compare`, `ph_moment_id`), its pragmas, and its schema migrated (or refused when a
/// newer OpenPhotoKit wrote it). Writes are serialised by GRDB's writer (and SQLite's lock across processes); reads
/// run concurrently on WAL snapshots. The only file of the engine that knows GRDB, with the connection adapter
/// (``SQLiteConnection``) and the schema.
final class SQLiteMetadataStore: MetadataStore {
    private let writer: any DatabaseWriter
    let commitSignal: any CommitSignal
    var dialect: SQLDialect { .sqlite }

    private init(writer: any DatabaseWriter, commitSignal: any CommitSignal) {
        self.writer = writer
        self.commitSignal = commitSignal
    }

    func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try writer.read { db in try body(SQLiteConnection(db)) }
    }

    func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try writer.write { db in try body(SQLiteConnection(db)) }
    }

    /// SQLite has one writer at a time: a queue write is a write.
    func writeQueue<T>(_ body: (any SQLConnection) throws -> T) throws -> T { try write(body) }

    func write<T>(
        _ body: (any SQLConnection) throws -> T, finished: (_ committed: Bool, _ snapshot: () -> (any MetadataReader)?) -> Void
    ) throws -> T {
        try writer.writeWithoutTransaction { db in
            var committed = false
            // On the writer's queue, outside the transaction: no later write has begun.
            defer { finished(committed) { self.snapshot() } }
            var result: T?
            try db.inTransaction {
                result = try body(SQLiteConnection(db))
                return .commit
            }
            committed = true
            return result!
        }
    }

    /// `flock` on lock files beside the folders: the kernel drops one only when its owner's process is gone.
    let ownerLocks: any OwnerLocks = FileOwnerLocks()

    /// Runs `body` at once: an owner lock of this store dies only with its owner, whose transactions die with it, so
    /// a sweep never meets a writer that could still commit what it removes.
    func whileNoWriterCommits<T>(_ body: () throws -> T) throws -> T { try body() }

    func snapshot() -> (any MetadataReader)? {
        guard let pool = writer as? DatabasePool, let snapshot = try? pool.makeSnapshot() else { return nil }
        return SQLiteSnapshot(snapshot: snapshot)
    }

    /// Opens (and migrates, when writable) the database of `bundle`.
    static func open(bundle: LibraryBundle, readOnly: Bool, watchesFiles: Bool) throws(LibraryError) -> SQLiteMetadataStore {
        var config = Configuration()
        config.foreignKeysEnabled = true
        config.readonly = readOnly
        config.busyMode = .timeout(10)
        config.label = "OpenPhotoKit"
        config.prepareDatabase { db in
            db.add(
                function: DatabaseFunction("ph_compare", argumentCount: 4, pure: true) { values in
                    StringComparison.evaluate(
                        String.fromDatabaseValue(values[0]), String.fromDatabaseValue(values[1]),
                        operation: Int.fromDatabaseValue(values[2]) ?? 0, options: Int.fromDatabaseValue(values[3]) ?? 0)
                })
            db.add(
                function: DatabaseFunction("ph_moment_id", argumentCount: 2, pure: true) { values in
                    Moments.localIdentifier(kind: String.fromDatabaseValue(values[0]) ?? "", key: String.fromDatabaseValue(values[1]) ?? "")
                })
        }
        let database: any DatabaseWriter
        do {
            if readOnly {
                database = try DatabaseQueue(path: bundle.databaseURL.path, configuration: config)
            } else {
                database = try DatabasePool(path: bundle.databaseURL.path, configuration: config)
            }
        } catch {
            throw .internalError("cannot open the library database \(bundle.databaseURL.path): \(error)")
        }

        if !readOnly {
            // The writer's page cache: inserts land at random places of the identifier index, so a larger cache
            // saves most of the page reads and writes of a big import. Readers keep SQLite's default.
            // Each commit synced (the log, in WAL mode) before it returns: a commit's caller hands its answer on — a
            // server its 201 to a device that then forgets the photo, an import of moved files the only copy — so a
            // power loss must not roll back a commit that returned. NORMAL (what GRDB sets for WAL, and what this
            // store set before) syncs the log only at checkpoints.
            do {
                try database.writeWithoutTransaction {
                    try $0.execute(sql: "PRAGMA cache_size = -32768")
                    try $0.execute(sql: "PRAGMA synchronous = FULL")
                }
            } catch {
                throw .internalError("cannot configure \(bundle.databaseURL.path): \(error)")
            }
        }

        let migrator = Schema.migrator
        do {
            let (superseded, complete) = try database.read { db in
                (try migrator.hasBeenSuperseded(db), try migrator.hasCompletedMigrations(db))
            }
            if superseded {
                throw LibraryError.changeNotSupported(
                    "\(bundle.url.path) was written by a newer version of OpenPhotoKit (schema \(try database.read { try migrator.appliedIdentifiers($0) }.sorted().last ?? "?")); upgrade OpenPhotoKit to open it"
                )
            }
            if !complete {
                guard !readOnly else { throw LibraryError.accessRestricted("the read-only library at \(bundle.url.path) needs a schema upgrade") }
                try migrator.migrate(database)
            }
        } catch let error as LibraryError {
            throw error
        } catch {
            throw .internalError("cannot migrate \(bundle.url.path): \(error)")
        }
        return SQLiteMetadataStore(
            writer: database, commitSignal: SQLiteCommitSignal(databaseURL: bundle.databaseURL, watchesFiles: watchesFiles))
    }

    /// A library is read-only when its database or folder cannot be written, or has no write permission bits
    /// at all (which also holds for root, who bypasses permission checks).
    static func isWritable(_ bundle: LibraryBundle) -> Bool {
        for path in [bundle.url.path, bundle.databaseURL.path] {
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            if info.st_mode & 0o222 == 0 { return false }
            if access(path, W_OK) != 0 { return false }
        }
        return true
    }
}

/// One moment of a SQLite library: a WAL snapshot, whose reads see the state it was taken at.
struct SQLiteSnapshot: MetadataReader {
    let snapshot: DatabaseSnapshot

    func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try snapshot.read { db in try body(SQLiteConnection(db)) }
    }
}
