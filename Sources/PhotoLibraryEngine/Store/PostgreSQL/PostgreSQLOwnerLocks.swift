import Foundation
import Logging
import PostgresNIO

/// Owner locks of a library on PostgreSQL (see ``OwnerLocks``): session advisory locks, held on a connection of the
/// store's own, which the server releases when that connection ends — the owner's process killed, or its host gone
/// (then after TCP keepalives notice: the session is started with 10 s idle, 5 s interval, 3 probes). The files
/// folder may be shared by hosts whose `flock` does not reach each other; the database is the one place they all
/// reach.
///
/// A process can lose its connection and live on (a network cut, the server restarted): its locks are gone and
/// another host may sweep its slot. So the engine fences: a transaction that places files first checks, inside the
/// transaction and under the library's writer lock, that its writer slot's lock is still held by this process's
/// owner connection (`pg_locks`; ``OwnerLock/checkHeld(on:)``), and recovery sweeps only under that writer lock too
/// (``PostgreSQLMetadataStore/whileNoWriterCommits(_:)``). Either a writer commits before a sweep, which then sees
/// its rows and keeps its files, or the sweep comes first and the writer's check refuses its commit: never a row
/// naming a swept file. A slot whose lock was lost is replaced at the next write (``WriterSlots``).
package final class PostgreSQLOwnerLocks: OwnerLocks, @unchecked Sendable {
    private let configuration: PostgresConnection.Configuration
    private let schema: String
    private let logger: Logger
    private let lock = NSLock()
    /// The connection that holds this store's owner locks, its backend's pid, and the names it holds.
    private var connection: PostgresConnection?
    private var backendPID: Int64 = 0
    /// The names held, and the backend that holds each (a name of a backend that died is lost until released).
    private var held: [String: Int64] = [:]

    init(configuration: PostgresConnection.Configuration, schema: String, logger: Logger) {
        var configuration = configuration
        configuration.options.additionalStartupParameters += [
            ("tcp_keepalives_idle", "10"), ("tcp_keepalives_interval", "5"), ("tcp_keepalives_count", "3"),
        ]
        self.configuration = configuration
        self.schema = schema
        self.logger = logger
    }

    deinit {
        if let connection { _ = try? PostgreSQLEventLoops.wait(connection.close()) }
    }

    /// The advisory lock key of `name` in `area`.
    private func key(_ name: String, in area: URL) -> Int64 { Self.key(schema: schema, area: area.lastPathComponent, name: name) }

    /// The advisory lock key of the owner of `name` in the area named `area` (`writers`, `uploads`) of a library.
    package static func key(schema: String, area: String, name: String) -> Int64 {
        Int64(bitPattern: fnv1a("OpenPhotoKit.owner.\(schema).\(area)/\(name)"))
    }

    /// Runs `sql` on the owner connection (made when there is none, or when the last one died and holds nothing).
    private func run(_ sql: String, _ arguments: SQLArguments) throws -> SQLRecord? {
        if connection == nil || connection?.isClosed == true {
            // A dead connection that held locks: those are gone; their owners find out at their next commit.
            if let old = connection { _ = try? PostgreSQLEventLoops.wait(old.close()) }
            let made = try PostgreSQLMetadataStore.connect(configuration, id: 0, logger: logger)
            connection = made
            backendPID = try PostgreSQLConnection(made, logger: logger).fetchOne(sql: "SELECT pg_backend_pid()::bigint")?[0] ?? 0
        }
        return try PostgreSQLConnection(connection!, logger: logger).fetchOne(sql: sql, arguments: arguments)
    }

    package func acquire(_ name: String, in area: URL) throws(LibraryError) -> any OwnerLock {
        do {
            return try lock.withLock {
                guard try run("SELECT pg_try_advisory_lock(?)", [key(name, in: area)])?[0] == true else {
                    throw LibraryError.internalError("the owner lock of \(name) is taken")
                }
                held["\(area.lastPathComponent)/\(name)"] = backendPID
                return PostgreSQLOwnerLock(locks: self, name: name, key: key(name, in: area), area: area, backend: backendPID)
            }
        } catch let error as LibraryError {
            throw error
        } catch {
            throw .libraryVolumeOffline("cannot take an owner lock of the library \(schema): \(error)")
        }
    }

    package func claimAbandoned(_ name: String, in area: URL) -> (any OwnerLock)? {
        lock.withLock {
            // Advisory locks are re-entrant within a session: a name this store holds is alive, not claimable.
            guard held["\(area.lastPathComponent)/\(name)"] == nil,
                (try? run("SELECT pg_try_advisory_lock(?)", [key(name, in: area)])?[0]) == true
            else { return nil }
            held["\(area.lastPathComponent)/\(name)"] = backendPID
            return PostgreSQLOwnerLock(locks: self, name: name, key: key(name, in: area), area: area, backend: backendPID)
        }
    }

    /// No lock files: a sweeper visits the folders.
    package func lockedNames(in area: URL) -> [String] { [] }

    fileprivate func release(_ name: String, key: Int64, in area: URL, backend: Int64) {
        lock.withLock {
            guard held.removeValue(forKey: "\(area.lastPathComponent)/\(name)") == backend else { return }
            // Held by a backend that died: nothing to unlock.
            guard backend == backendPID, connection?.isClosed == false else { return }
            _ = try? run("SELECT pg_advisory_unlock(?)", [key])
        }
    }

    /// Whether the lock may still be held: taken by the owner connection of now, which is open.
    fileprivate func mayHold(backend: Int64) -> Bool {
        lock.withLock { backend == backendPID && connection?.isClosed == false }
    }
}

/// One held advisory owner lock.
final class PostgreSQLOwnerLock: OwnerLock, @unchecked Sendable {
    private weak var locks: PostgreSQLOwnerLocks?
    private let name: String
    private let key: Int64
    private let area: URL
    private let backend: Int64

    init(locks: PostgreSQLOwnerLocks, name: String, key: Int64, area: URL, backend: Int64) {
        self.locks = locks
        self.name = name
        self.key = key
        self.area = area
        self.backend = backend
    }

    var mayBeHeld: Bool { locks?.mayHold(backend: backend) ?? false }

    func checkHeld(on db: any SQLConnection) throws {
        // An advisory lock on a bigint key is listed with its high half as classid, its low half as objid.
        let bits = UInt64(bitPattern: key)
        let holds =
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = ?
                        AND classid::bigint = ? AND objid::bigint = ? AND objsubid = 1)
                    """, arguments: [backend, Int64(bits >> 32), Int64(bits & 0xffff_ffff)]) ?? false
        if !holds {
            throw LibraryError.libraryVolumeOffline(
                "this process lost its connection to the library's database while it was writing: what it had staged may have been "
                    + "recovered by another process, so nothing of this change was saved; try again")
        }
    }

    func release() { locks?.release(name, key: key, in: area, backend: backend) }

    deinit { release() }
}
