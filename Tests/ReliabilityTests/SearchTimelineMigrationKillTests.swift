import Foundation
import OpenPhotos
import PhotoLibraryEngine
import PhotosTestHarness
import PhotosTesting
import Testing

/// SQLite's `v15-search-timeline` (the search documents keyed anew by the timeline) killed at random instants of its
/// copy: after each kill the library is wholly before it (documents under row ids, the migration not recorded) or
/// wholly after (every document under its timeline key); the next open finishes it, and search finds what it did.
@Suite("Reliability: the timeline keys' migration killed mid-way")
struct SearchTimelineMigrationKillTests {
    @Test func aKilledRekeyingIsUndoneWholeAndDoneWholeByTheNextOpen() async throws {
        let library = try TestLibrary(name: "TimelineKill", provider: LocalLibraryProvider())
        defer { library.remove() }
        let ids = try library.addImages(2) { index, request in
            if index == 1 { request.addKeyword("Lighthouse") }
        }
        // Enough documents that their copy takes a while: the kills land inside it.
        try SyntheticLibrary.insertAssets(into: library.url, count: 40_000)
        let database = library.url.appendingPathComponent("database/Photos.sqlite").path
        func count(_ sql: String) -> Int {
            RawSQLiteBaseline.countAndFirst(databasePath: database, sql: sql, arguments: [], rowSQL: "SELECT ?").count
        }
        let key = SQLDialect.timelineKey(date: "a.creation_date", id: "a.id")
        let underTimelineKeys = "SELECT a.id FROM asset a WHERE NOT EXISTS (SELECT 1 FROM asset_search WHERE rowid = \(key))"
        let underRowIDs = "SELECT a.id FROM asset a WHERE NOT EXISTS (SELECT 1 FROM asset_search WHERE rowid = a.id)"
        let recorded = "SELECT 1 FROM grdb_migrations WHERE identifier = 'v15-search-timeline'"
        try await blockingOffThePool {
            let engine = try LibraryEngine.open(at: library.url)
            try engine.metadata.write { db in
                var after: Int64 = 0
                while true {
                    let batch = try Int64.fetchAll(db, sql: "SELECT id FROM asset WHERE id > ? ORDER BY id LIMIT 5000", arguments: [after])
                    guard let last = batch.last else { break }
                    try SearchIndex.refresh(batch, db: db)
                    after = last
                }
            }
        }
        let assets = count("SELECT id FROM asset")
        #expect(assets == 40_002)
        var (kills, midway) = (0, 0)
        var inconsistencies: [String] = []
        var random = SystemRandomNumberGenerator()
        for _ in 0..<10 where midway < 4 {
            // Back to v14: the documents under their row ids.
            try await blockingOffThePool {
                let engine = try LibraryEngine.open(at: library.url)
                try engine.metadata.write { db in
                    try db.execute(
                        sql: """
                            DROP TRIGGER asset_search_redate;
                            DROP TRIGGER asset_search_forget;
                            CREATE VIRTUAL TABLE asset_search_old USING fts5(document, tokenize = 'ascii', prefix = '2 3 4');
                            INSERT INTO asset_search_old (rowid, document) SELECT rowid & 4294967295, document FROM asset_search;
                            DROP TABLE asset_search;
                            ALTER TABLE asset_search_old RENAME TO asset_search;
                            CREATE TRIGGER asset_search_forget AFTER DELETE ON asset BEGIN DELETE FROM asset_search WHERE rowid = old.id; END;
                            DELETE FROM grdb_migrations WHERE identifier = 'v15-search-timeline';
                            """)
                }
            }
            let child = try ChildProcess(
                ChildProcess.builtProduct("photos"), ["ls", "--library", library.url.path, "--search", "lighthouse", "--json"])
            // A random instant of the open: its start, the copy, or after.
            usleep(UInt32.random(in: 0...1_500_000, using: &random))
            let wasRunning = !child.hasEnded
            child.kill()
            _ = child.wait(samplingMemory: false)
            kills += 1
            let done = count(recorded) == 1
            let state = (done, count(underTimelineKeys), count(underRowIDs), count("SELECT rowid FROM asset_search"))
            if done ? state.1 != 0 : state.2 != 0 || state.3 != assets {
                inconsistencies.append("after a kill: recorded \(done), misplaced \(state.1) / \(state.2), documents \(state.3)")
            }
            if wasRunning && !done { midway += 1 }
        }
        #expect(inconsistencies.isEmpty, "\(inconsistencies)")
        #expect(midway >= 3, "\(midway) of \(kills) kills came before the migration was recorded")
        // The next open finishes it; search finds what it found.
        let reopened = try PHPhotoLibrary(url: library.url, clientIdentifier: nil)
        #expect(count(recorded) == 1 && count(underTimelineKeys) == 0 && count("SELECT rowid FROM asset_search") == assets)
        let options = PHFetchOptions()
        options.photoLibrary = reopened
        options.searchText = "lighthouse"
        #expect(PHAsset.fetchAssets(with: options).map(\.localIdentifier) == [ids[1]])
        #expect(try LibraryEngine.open(at: library.url).verify().problems.filter { $0.kind == .searchIndex }.isEmpty)
    }
}
