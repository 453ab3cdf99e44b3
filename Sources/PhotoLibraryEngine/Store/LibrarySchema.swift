import Foundation

/// What every store's schema holds the same way, written once: the view of album statistics and what a new library
/// starts with. Each store's migrations (``Schema`` for SQLite, ``PostgreSQLSchema``) use these.
package enum LibrarySchema {
    /// Album statistics that PhotoKit exposes on collections (startDate, endDate, estimatedAssetCount).
    static let collectionInfoView = """
        CREATE VIEW collection_info AS
        SELECT c.*,
            CASE WHEN c.kind = 1 AND c.type = 1 THEN (
                SELECT count(*) FROM collection_asset ca JOIN asset m ON m.id = ca.asset_id
                WHERE ca.collection_id = c.id AND m.trashed_date IS NULL) END AS asset_count,
            CASE WHEN c.kind = 1 THEN (
                SELECT min(m.creation_date) FROM collection_asset ca JOIN asset m ON m.id = ca.asset_id
                WHERE ca.collection_id = c.id AND m.trashed_date IS NULL) END AS start_date,
            CASE WHEN c.kind = 1 THEN (
                SELECT max(m.creation_date) FROM collection_asset ca JOIN asset m ON m.id = ca.asset_id
                WHERE ca.collection_id = c.id AND m.trashed_date IS NULL) END AS end_date
        FROM collection c
        """

    /// Counts the assets into `asset_tally` (empty): what the tallies' migration starts from and their repair
    /// rebuilds. From then on each store's triggers keep them, in the transaction that changes the rows.
    package static let recountTallies = """
        INSERT INTO asset_tally (media_type, is_hidden, burst_hidden, source_type, trashed, n)
        SELECT media_type, is_hidden, burst_hidden, source_type, CASE WHEN trashed_date IS NULL THEN 0 ELSE 1 END, count(*)
        FROM asset GROUP BY 1, 2, 3, 4, 5
        """

    /// Tables derived from the library's rows and kept by the store's triggers: a copy does not carry them (its
    /// inserts make them anew).
    package static let derivedTables = ["asset_tally"]

    /// The library's tables, parents before the tables that refer to them: what a copy of a library carries, in the
    /// order it inserts them (a test checks that every store's schema has exactly these and ``transientTables``). Not
    /// among them: each store's own bookkeeping (`grdb_migrations`, `schema_migrations`) and the search index
    /// (`asset_search`, derived from these rows: a copy rebuilds it).
    package static let tables = [
        "library_info", "asset", "asset_keyword", "resource", "collection", "collection_asset", "client_grant",
        "client_selection", "change_journal", "access_token",
    ]

    /// Tables of work in progress that belong to where the library is now — queued renderings, uploads waiting in
    /// its object storage — and that a copy leaves behind (its files are stored anew; its renderings are made on
    /// request or queued by the next commits).
    package static let transientTables = ["work_item", "upload", "incoming_resource", "upload_job"]

    /// The tables whose `id` the database numbers (SQLite's row ids, PostgreSQL's identity columns).
    static let numberedTables: Set<String> = ["asset", "resource", "collection", "change_journal"]

    /// Rows of `library_info` that belong to the store, not to the library (a copy leaves them as they are): the
    /// revision of PostgreSQL's string functions.
    static let storeOwnedInfoKeys: Set<String> = ["ph_string_functions"]

    /// What a new library holds: its identity, the trash's retention, and the smart albums (rows whose membership is
    /// a live query, see `FetchPlanner.smartAlbumCondition`).
    static func seed(_ db: any SQLConnection) throws {
        try db.execute(
            sql: "INSERT INTO library_info (key, value) VALUES ('uuid', ?), ('trash_retention_days', '30')", arguments: [UUID().uuidString])
        let now = Date().timeIntervalSince1970
        for (index, smart) in SmartAlbums.all.enumerated() {
            try db.execute(
                sql: """
                    INSERT INTO collection (local_id, kind, type, subtype, title, position, creation_date, modification_date)
                    VALUES (?, 1, 2, ?, ?, ?, ?, ?)
                    """,
                arguments: [smart.localIdentifier, smart.subtype, smart.title, index, now, now])
        }
    }
}
