import Foundation

/// Something the engine reads rows from: the store itself, or one pinned state of it (``MetadataStore/snapshot()``).
package protocol MetadataReader: Sendable {
    /// Runs `body` in one read transaction: every statement in it sees the same committed state.
    func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T
}

/// The rows of a library — assets, resources, collections, grants, tokens, settings and the change journal — behind
/// the engine's one body of SQL: the engine runs its statements on a ``SQLConnection`` in read and write
/// transactions, and asks the store's ``SQLDialect`` where databases differ. The store opens and migrates the
/// schema, registers the library's SQL functions (`ph_compare`, `ph_moment_id`), serialises writers and tells of
/// commits (``commitSignal``). The first store is SQLite (``SQLiteMetadataStore``); a server database is the next.
package protocol MetadataStore: MetadataReader {
    var dialect: SQLDialect { get }
    /// How this store tells of commits by any process.
    var commitSignal: any CommitSignal { get }

    /// Runs `body` in one write transaction: committed when it returns, rolled back when it throws. Writers are
    /// serialised (in this process and across processes).
    @discardableResult
    func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T

    /// Like ``write(_:)``, and then — still holding the writer, before any later write can begin — calls `finished`
    /// with whether the transaction committed and a way to pin the state right after it (see ``snapshot()``). What
    /// change details are described against.
    @discardableResult
    func write<T>(
        _ body: (any SQLConnection) throws -> T, finished: (_ committed: Bool, _ snapshot: () -> (any MetadataReader)?) -> Void
    ) throws -> T

    /// Runs `body` in one write transaction that changes only rows of the work queue (`work_item`): serialised with
    /// other writers only as far as the rows it touches require — on a server database, without the library's writer
    /// lock, so that workers claiming work neither wait for a commit nor tell observers of one.
    @discardableResult
    func writeQueue<T>(_ body: (any SQLConnection) throws -> T) throws -> T

    /// Who is alive among the processes that write the library (their writer slots, upload and editing areas): see
    /// ``OwnerLocks``. A store whose owner locks can die while their owner lives on (a server connection lost) refuses
    /// that owner's write transactions from then on, so what recovery swept is never committed.
    var ownerLocks: any OwnerLocks { get }

    /// Runs `body` — recovery's sweep of what dead owners left — where no writer whose owner lock was claimed can
    /// commit during it: on a store whose owner locks die only with their owner, at once; otherwise while no write
    /// transaction is in progress (what any writer committed before is visible to it). Not a transaction: `body`
    /// may read.
    func whileNoWriterCommits<T>(_ body: () throws -> T) throws -> T

    /// A reader whose reads all see the state committed now, whatever commits later (nil: this store cannot pin
    /// one now; the caller reads the live store).
    func snapshot() -> (any MetadataReader)?
}
