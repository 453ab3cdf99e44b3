import Foundation

/// What every store's schema holds the same way, written once: the view of album statistics and what a new library
/// starts with. Each store's migrations (``Schema`` for SQLite, ``PostgreSQLSchema``) use these.
enum LibrarySchema {
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
