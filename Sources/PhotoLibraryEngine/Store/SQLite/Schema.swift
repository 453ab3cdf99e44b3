import Foundation
import GRDB

/// The library database's versioned schema. Migrations only ever append; a library written by a newer version
/// (one that has migrations this build does not know) refuses to open.
package enum Schema {
    package static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE library_info (
                        key TEXT PRIMARY KEY NOT NULL,
                        value TEXT NOT NULL
                    );
                    CREATE TABLE asset (
                        id INTEGER PRIMARY KEY,
                        local_id TEXT NOT NULL UNIQUE,
                        media_type INTEGER NOT NULL,
                        media_subtypes INTEGER NOT NULL DEFAULT 0,
                        playback_style INTEGER NOT NULL DEFAULT 0,
                        playback_variation INTEGER NOT NULL DEFAULT 0,
                        pixel_width INTEGER NOT NULL DEFAULT 0,
                        pixel_height INTEGER NOT NULL DEFAULT 0,
                        creation_date REAL,
                        creation_tz_offset INTEGER,
                        local_day TEXT,
                        place_cell TEXT NOT NULL DEFAULT '',
                        modification_date REAL NOT NULL,
                        added_date REAL NOT NULL,
                        latitude REAL,
                        longitude REAL,
                        altitude REAL,
                        duration REAL NOT NULL DEFAULT 0,
                        is_favorite INTEGER NOT NULL DEFAULT 0,
                        is_hidden INTEGER NOT NULL DEFAULT 0,
                        is_selfie INTEGER NOT NULL DEFAULT 0,
                        is_raw INTEGER NOT NULL DEFAULT 0,
                        burst_identifier TEXT,
                        burst_selection_types INTEGER NOT NULL DEFAULT 0,
                        represents_burst INTEGER NOT NULL DEFAULT 0,
                        burst_hidden INTEGER NOT NULL DEFAULT 0,
                        source_type INTEGER NOT NULL DEFAULT 1,
                        has_adjustments INTEGER NOT NULL DEFAULT 0,
                        adjustment_format_identifier TEXT,
                        trashed_date REAL,
                        content_version INTEGER NOT NULL DEFAULT 1,
                        added_by_client TEXT
                    );
                    -- The timeline: ordered by (creation_date, id) as fetches sort, and covering the default
                    -- filters, so a date-sorted fetch is one index scan with no sort and no table lookups.
                    CREATE INDEX asset_timeline ON asset(
                        creation_date, id, media_type, is_favorite, is_hidden, burst_hidden, source_type
                    ) WHERE trashed_date IS NULL;
                    CREATE INDEX asset_trash ON asset(trashed_date) WHERE trashed_date IS NOT NULL;
                    CREATE INDEX asset_burst ON asset(burst_identifier) WHERE burst_identifier IS NOT NULL;
                    CREATE INDEX asset_day ON asset(local_day) WHERE trashed_date IS NULL;

                    CREATE TABLE resource (
                        id INTEGER PRIMARY KEY,
                        asset_id INTEGER NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
                        type INTEGER NOT NULL,
                        path TEXT NOT NULL UNIQUE,
                        original_filename TEXT NOT NULL,
                        uniform_type_identifier TEXT NOT NULL,
                        file_size INTEGER NOT NULL,
                        sha256 TEXT NOT NULL,
                        pixel_width INTEGER NOT NULL DEFAULT 0,
                        pixel_height INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE INDEX resource_asset ON resource(asset_id);
                    CREATE INDEX resource_sha256 ON resource(sha256);

                    CREATE TABLE collection (
                        id INTEGER PRIMARY KEY,
                        local_id TEXT NOT NULL UNIQUE,
                        kind INTEGER NOT NULL,
                        type INTEGER NOT NULL,
                        subtype INTEGER NOT NULL,
                        title TEXT,
                        parent_id INTEGER REFERENCES collection(id) ON DELETE CASCADE,
                        position INTEGER NOT NULL DEFAULT 0,
                        creation_date REAL NOT NULL,
                        modification_date REAL NOT NULL,
                        added_by_client TEXT
                    );
                    CREATE INDEX collection_parent ON collection(parent_id, position);
                    CREATE INDEX collection_type ON collection(kind, type, subtype);

                    CREATE TABLE collection_asset (
                        collection_id INTEGER NOT NULL REFERENCES collection(id) ON DELETE CASCADE,
                        asset_id INTEGER NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
                        position INTEGER NOT NULL,
                        PRIMARY KEY (collection_id, asset_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX collection_asset_order ON collection_asset(collection_id, position);
                    CREATE INDEX collection_asset_asset ON collection_asset(asset_id);

                    CREATE TABLE client_grant (
                        client_id TEXT PRIMARY KEY NOT NULL,
                        grant_kind INTEGER NOT NULL
                    );
                    CREATE TABLE client_selection (
                        client_id TEXT NOT NULL REFERENCES client_grant(client_id) ON DELETE CASCADE,
                        asset_id INTEGER NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
                        PRIMARY KEY (client_id, asset_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX client_selection_asset ON client_selection(asset_id);
                    """)
            try db.execute(sql: LibrarySchema.collectionInfoView)
            try LibrarySchema.seed(SQLiteConnection(db))
        }
        migrator.registerMigration("v2-change-journal") { db in
            // One row per committed transaction: what it inserted, updated and deleted (see ChangeJournal).
            // AUTOINCREMENT: identifiers are never reused, so a change token names one point in history for good.
            try db.execute(
                sql: """
                    CREATE TABLE change_journal (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        date REAL NOT NULL,
                        client_id TEXT,
                        changes TEXT NOT NULL
                    );
                    INSERT OR IGNORE INTO library_info (key, value) VALUES ('change_history_days', '30');
                    INSERT OR IGNORE INTO library_info (key, value) VALUES ('change_history_floor', '0');
                    """)
        }
        migrator.registerMigration("v3-media-metadata") { db in
            // What import reads from files beyond PhotoKit's properties: the camera, where the date came from,
            // and Apple's Live Photo key (to pair a video that arrives after its still).
            try db.execute(
                sql: """
                    ALTER TABLE asset ADD COLUMN camera_make TEXT;
                    ALTER TABLE asset ADD COLUMN camera_model TEXT;
                    ALTER TABLE asset ADD COLUMN lens_model TEXT;
                    ALTER TABLE asset ADD COLUMN creation_date_source TEXT;
                    ALTER TABLE asset ADD COLUMN content_identifier TEXT;
                    CREATE INDEX asset_content_identifier ON asset(content_identifier) WHERE content_identifier IS NOT NULL;
                    """)
        }
        migrator.registerMigration("v4-content-editing") { db in
            // Non-destructive edits (see LibraryEngine+Editing): the edit's resources are rows of `resource` with
            // PhotoKit's types (fullSizePhoto 5, fullSizeVideo 6, adjustmentData 7, adjustmentBasePhoto 8); the
            // asset keeps what PHAsset and the editing input read without opening a file. `content_version` (since
            // v1) counts content changes: an output is accepted only for the version its input was made from.
            try db.execute(
                sql: """
                    ALTER TABLE asset ADD COLUMN adjustment_format_version TEXT;
                    ALTER TABLE asset ADD COLUMN adjustment_timestamp REAL;
                    ALTER TABLE asset ADD COLUMN adjustment_client TEXT;
                    ALTER TABLE asset ADD COLUMN adjustment_resumable INTEGER NOT NULL DEFAULT 0;
                    """)
        }
        migrator.registerMigration("v5-access-tokens") { db in
            // Bearer tokens for `photos serve` (see LibraryEngine+AccessTokens): only the secret's SHA-256 is kept;
            // the token acts for `client_id` with whatever `client_grant` says at the time of each request.
            try db.execute(
                sql: """
                    CREATE TABLE access_token (
                        id TEXT PRIMARY KEY NOT NULL,
                        client_id TEXT NOT NULL,
                        secret_sha256 BLOB NOT NULL UNIQUE,
                        created_date REAL NOT NULL
                    );
                    CREATE INDEX access_token_client ON access_token(client_id);
                    """)
        }
        migrator.registerMigration("v6-background-work") { db in
            // Work a commit leaves for `photos worker` (see LibraryEngine+BackgroundWork): one row per asset content
            // version whose renderings are to be made; a claim is a lease (claimed_by until lease_until). And uploads
            // waiting to be imported in a library whose files are in object storage (LibraryEngine+SharedUploads):
            // any node may import what another received.
            try db.execute(
                sql: """
                    CREATE TABLE work_item (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        kind TEXT NOT NULL,
                        asset_id INTEGER NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
                        content_version INTEGER NOT NULL,
                        queued_date REAL NOT NULL,
                        claimed_by TEXT,
                        lease_until REAL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        last_error TEXT,
                        UNIQUE (kind, asset_id, content_version)
                    );
                    CREATE INDEX work_item_asset ON work_item(asset_id);

                    CREATE TABLE upload (
                        id TEXT PRIMARY KEY NOT NULL,
                        client_id TEXT NOT NULL,
                        name TEXT NOT NULL,
                        size INTEGER NOT NULL,
                        sha256 TEXT NOT NULL,
                        created_date REAL NOT NULL
                    );
                    CREATE INDEX upload_client ON upload(client_id);
                    """)
        }
        migrator.registerMigration("v7-extended-metadata") { db in
            // iOS 27's asset metadata (see LibraryEngine+ExtendedMetadata): a star rating (0 unset, 1-5), a caption
            // and keywords (in the order they were added; compared by bytes, as Photos keeps "Beach" and "beach"
            // apart), and whether a Live Photo's video plays (0: it does; a Live Photo turned off shows as a still).
            try db.execute(
                sql: """
                    ALTER TABLE asset ADD COLUMN rating INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE asset ADD COLUMN caption TEXT;
                    ALTER TABLE asset ADD COLUMN live_playback_off INTEGER NOT NULL DEFAULT 0;
                    CREATE TABLE asset_keyword (
                        asset_id INTEGER NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
                        keyword TEXT NOT NULL,
                        position INTEGER NOT NULL,
                        PRIMARY KEY (asset_id, keyword)
                    ) WITHOUT ROWID;
                    CREATE INDEX asset_keyword_keyword ON asset_keyword(keyword);
                    """)
        }
        migrator.registerMigration("v8-search") { db in
            // The search index (see SearchIndex): an FTS5 table of folded tokens, keyed by the asset's row id, with
            // prefix indexes for the one- to three-character starts people type; the asset's deletion removes its
            // row. Filled from the existing assets here.
            try db.execute(
                sql: """
                    CREATE VIRTUAL TABLE asset_search USING fts5(document, tokenize = 'ascii', prefix = '2 3 4');
                    CREATE TRIGGER asset_search_forget AFTER DELETE ON asset BEGIN
                        DELETE FROM asset_search WHERE rowid = old.id;
                    END;
                    """)
            try SearchIndex.rebuild(SQLiteConnection(db))
        }
        migrator.registerMigration("v9-incoming-resources") { db in
            // Backups into the library (see LibraryEngine+IncomingResources): where an asset came from (the client
            // and the identifier the device gave it: one asset per origin) and its cloud identifier; and the
            // resources received for assets not complete yet, each row naming its bytes (stored: once they are).
            try db.execute(
                sql: """
                    ALTER TABLE asset ADD COLUMN cloud_id TEXT;
                    ALTER TABLE asset ADD COLUMN origin_client TEXT;
                    ALTER TABLE asset ADD COLUMN origin_id TEXT;
                    CREATE INDEX asset_cloud_id ON asset(cloud_id);
                    CREATE UNIQUE INDEX asset_origin ON asset(origin_client, origin_id);
                    CREATE TABLE incoming_resource (
                        client_id TEXT NOT NULL,
                        source_id TEXT NOT NULL,
                        resource_type INTEGER NOT NULL,
                        path TEXT NOT NULL,
                        sha256 TEXT NOT NULL,
                        size INTEGER NOT NULL,
                        filename TEXT NOT NULL,
                        asset_info TEXT NOT NULL,
                        received_date REAL NOT NULL,
                        stored INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (client_id, source_id, resource_type)
                    );
                    CREATE INDEX incoming_resource_sha256 ON incoming_resource(sha256);
                    CREATE INDEX incoming_resource_path ON incoming_resource(path);
                    """)
        }
        migrator.registerMigration("v10-upload-jobs") { db in
            // Background upload jobs (see LibraryEngine+UploadJobs): one row per job a client made, the resource it
            // sends (asset, type, and the digest of the bytes at creation), where (the request, as JSON), and where
            // it stands; a performer claims a job with a lease (claimed_by until lease_until), so a performer that
            // dies leaves it to the next.
            try db.execute(
                sql: """
                    CREATE TABLE upload_job (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        local_id TEXT NOT NULL UNIQUE,
                        client_id TEXT NOT NULL,
                        job_type INTEGER NOT NULL,
                        asset_local_id TEXT NOT NULL,
                        resource_type INTEGER NOT NULL,
                        resource_sha256 TEXT NOT NULL,
                        destination TEXT NOT NULL,
                        state INTEGER NOT NULL,
                        acknowledged INTEGER NOT NULL DEFAULT 0,
                        retried INTEGER NOT NULL DEFAULT 0,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        next_attempt REAL NOT NULL,
                        claimed_by TEXT,
                        lease_until REAL,
                        error TEXT,
                        response_status INTEGER,
                        response_headers TEXT,
                        created_date REAL NOT NULL
                    );
                    CREATE INDEX upload_job_client_state ON upload_job(client_id, state, acknowledged);
                    """)
        }
        migrator.registerMigration("v11-original-choice") { db in
            // iOS 27's RAW + JPEG: which original of a pair the asset shows (0 the JPEG or HEIC, 1 the RAW).
            try db.execute(sql: "ALTER TABLE asset ADD COLUMN original_choice INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v12-asset-tallies") { db in
            // How many assets each combination of the columns a plain fetch filters on has (see
            // FetchPlanner+Tallies): what answers a fetch's count before its ids are read, as Photos' cached counts
            // do. Kept by triggers in the transaction that changes the rows, so a read sees the tallies of the rows
            // it sees; counted from the existing assets here.
            try db.execute(
                sql: """
                    CREATE TABLE asset_tally (
                        media_type INTEGER NOT NULL,
                        is_hidden INTEGER NOT NULL,
                        burst_hidden INTEGER NOT NULL,
                        source_type INTEGER NOT NULL,
                        trashed INTEGER NOT NULL,
                        n INTEGER NOT NULL,
                        PRIMARY KEY (media_type, is_hidden, burst_hidden, source_type, trashed)
                    ) WITHOUT ROWID;
                    CREATE TRIGGER asset_tally_insert AFTER INSERT ON asset BEGIN
                        INSERT INTO asset_tally VALUES (
                            new.media_type, new.is_hidden, new.burst_hidden, new.source_type, new.trashed_date IS NOT NULL, 1
                        ) ON CONFLICT DO UPDATE SET n = n + 1;
                    END;
                    CREATE TRIGGER asset_tally_delete AFTER DELETE ON asset BEGIN
                        UPDATE asset_tally SET n = n - 1 WHERE media_type = old.media_type AND is_hidden = old.is_hidden
                            AND burst_hidden = old.burst_hidden AND source_type = old.source_type
                            AND trashed = (old.trashed_date IS NOT NULL);
                    END;
                    CREATE TRIGGER asset_tally_update AFTER UPDATE OF media_type, is_hidden, burst_hidden, source_type, trashed_date ON asset
                    WHEN old.media_type IS NOT new.media_type OR old.is_hidden IS NOT new.is_hidden
                        OR old.burst_hidden IS NOT new.burst_hidden OR old.source_type IS NOT new.source_type
                        OR (old.trashed_date IS NULL) IS NOT (new.trashed_date IS NULL)
                    BEGIN
                        UPDATE asset_tally SET n = n - 1 WHERE media_type = old.media_type AND is_hidden = old.is_hidden
                            AND burst_hidden = old.burst_hidden AND source_type = old.source_type
                            AND trashed = (old.trashed_date IS NOT NULL);
                        INSERT INTO asset_tally VALUES (
                            new.media_type, new.is_hidden, new.burst_hidden, new.source_type, new.trashed_date IS NOT NULL, 1
                        ) ON CONFLICT DO UPDATE SET n = n + 1;
                    END;
                    """)
            try db.execute(sql: LibrarySchema.recountTallies)
        }
        migrator.registerMigration("v13-asset-lookup") { _ in
            // PostgreSQL's covering index of the columns a search filters and sorts on (see PostgreSQLSchema). Nothing
            // here: an SQLite table is stored in row id order, so a lookup by id already reads those columns.
        }
        migrator.registerMigration("v14-search-date") { _ in
            // PostgreSQL's creation dates beside the search documents (see PostgreSQLSchema). Nothing here: FTS5
            // finds a page's matches in the list of a search's row ids.
        }
        migrator.registerMigration("v15-search-timeline") { db in
            // The search documents keyed by the timeline (SQLDialect.timelineKey: the creation date's minute, then
            // the asset's row id), so that FTS5 yields a search's matches in the timeline's order and a page reads a
            // page of them (see SQLDialect.timelineSearchCondition). The documents are copied (the old keys' low bits
            // are the row id too); the asset's deletion removes its document, a new date's minute moves it.
            let old = SQLDialect.timelineKey(date: "old.creation_date", id: "old.id")
            let new = SQLDialect.timelineKey(date: "new.creation_date", id: "new.id")
            try db.execute(
                sql: """
                    DROP TRIGGER asset_search_forget;
                    CREATE VIRTUAL TABLE asset_search_timeline USING fts5(document, tokenize = 'ascii', prefix = '2 3 4');
                    INSERT INTO asset_search_timeline (rowid, document)
                        SELECT \(SQLDialect.timelineKey(date: "a.creation_date", id: "a.id")), s.document
                        FROM asset_search s JOIN asset a ON a.id = \(SQLDialect.assetOfTimelineKey("s.rowid"));
                    DROP TABLE asset_search;
                    ALTER TABLE asset_search_timeline RENAME TO asset_search;
                    CREATE TRIGGER asset_search_forget AFTER DELETE ON asset BEGIN
                        DELETE FROM asset_search WHERE rowid = \(old);
                    END;
                    CREATE TRIGGER asset_search_redate AFTER UPDATE OF creation_date ON asset WHEN \(old) != \(new) BEGIN
                        INSERT INTO asset_search (rowid, document) SELECT \(new), document FROM asset_search WHERE rowid = \(old);
                        DELETE FROM asset_search WHERE rowid = \(old);
                    END;
                    """)
        }
        return migrator
    }
}

/// Collection kinds stored in `collection.kind`.
package enum CollectionKind: Int, Sendable, Codable {
    case assetCollection = 1
    case collectionList = 2
}

/// The smart albums every library has, with fixed identifiers (the same in every library, as on Apple devices).
package enum SmartAlbums {
    package struct Definition: Sendable {
        package var subtype: Int
        package var title: String
        package var localIdentifier: String
    }

    /// Apple's private raw value for Recently Deleted, which clients filter on.
    package static let recentlyDeletedSubtype = 1_000_000_201

    package static let all: [Definition] = [
        (209, "Recents"), (203, "Favorites"), (202, "Videos"), (210, "Selfies"), (213, "Live Photos"),
        (212, "Portrait"), (201, "Panoramas"), (204, "Time-lapse"), (208, "Slo-mo"), (207, "Bursts"),
        (211, "Screenshots"), (220, "Screen Recordings"), (214, "Animated"), (215, "Long Exposure"),
        (217, "RAW"), (218, "Cinematic"), (219, "Spatial"), (206, "Recently Added"), (205, "Hidden"),
        (216, "Unable to Upload"), (200, "Generic"), (recentlyDeletedSubtype, "Recently Deleted"),
    ].map { subtype, title in
        // Deterministic identifiers: "smart album <subtype>" in a UUID-shaped string.
        let hex = String(format: "%012X", subtype)
        return Definition(subtype: subtype, title: title, localIdentifier: "5A4A7A1B-0000-4000-8000-\(hex)/L0/040")
    }
}
