import Foundation
import OpenPhotos
import PhotoLibraryEngine
import PhotosTesting
import Testing

/// SQLite's search documents are keyed by the timeline (the creation date's minute, then the row id), so that a page
/// of a search with thousands of matches reads FTS5's postings in that order (`SQLDialect.timelineSearchCondition`):
/// its pages are exactly the whole order's, with several assets to a minute out of row id order, equal dates and
/// undated assets, either way, in the library and in an album, wherever the cursor is; the keys follow redates and
/// deletions; and a library keyed by row id (before `v15-search-timeline`) is keyed anew when opened.
@Suite("Search timeline keys")
struct SearchTimelineTests {
    static var stores: [any LibraryProvider] { LibraryProviders.all.filter { $0 is LocalLibraryProvider } }

    let owner = AccessContext(clientID: nil, grant: nil, libraryIsReadOnly: false)

    /// 36 assets, 3 to 4 a minute in an order other than their row ids', pairs of equal dates, some undated; 18 with
    /// "harbour" and an evening caption. Returns the library, its identifiers and its album's row id (every third
    /// asset from the 2nd).
    func library(_ provider: any LibraryProvider) throws -> (TestLibrary, [String], Int64) {
        let library = try TestLibrary(name: "SearchTimeline", provider: provider)
        let ids = try library.addImages(36) { index, request in
            let second = Double((index * 37) % 216)
            request.creationDate = index % 11 == 5 ? nil : Date(timeIntervalSince1970: 1_700_000_000 + second - (index % 9 == 2 ? 1 : 0))
            if index % 4 != 1 { request.addKeyword("Harbour") }
            if index % 3 != 2 { request.caption = "Evening light" }
            request.rating = PHAsset.Rating(rawValue: index % 4) ?? .unset
        }
        try library.library.performChangesAndWait {
            let album = PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Harbour walks")
            album.addAssets(
                PHAsset.fetchAssets(withLocalIdentifiers: ids.enumerated().filter { $0.offset % 3 == 1 }.map(\.element), options: library.options()))
        }
        let engine = try LibraryEngine.open(at: library.url)
        let album = try engine.metadata.read { db in try Int64.fetchOne(db, sql: "SELECT id FROM collection WHERE title = 'Harbour walks'") }
        return (library, ids, try #require(album))
    }

    @Test(arguments: stores)
    func timelinePagesAreTheWholeOrder(_ provider: any LibraryProvider) throws {
        let (library, _, album) = try library(provider)
        defer { library.remove() }
        let engine = try LibraryEngine.open(at: library.url)
        try expectTimelinePages(engine, album: album, matches: (library: 18, album: 9))
    }

    func expectTimelinePages(_ engine: LibraryEngine, album: Int64, matches: (library: Int, album: Int)) throws {
        let planner = FetchPlanner(access: owner, dialect: engine.metadata.dialect)
        for (scope, expected) in [(AssetScope.library, matches.library), (.album(album), matches.album)] {
            // By date alone, and by date then rating the other way (three terms: the row id last).
            for (ascending, thenRating) in [(true, false), (false, false), (true, true), (false, true)] {
                var options = FetchOptionsSpec()
                options.sortKeys =
                    [SortKey(key: "creationDate", ascending: ascending)] + (thenRating ? [SortKey(key: "rating", ascending: !ascending)] : [])
                options.search = SearchQuery("harbour eve")
                options.search?.plan = .matchesFirst
                let whole = try run(planner.assetPage(scope: scope, options: options, after: nil, limit: 100).statements, engine, limit: 100)
                    .map { $0[0] as Int64 }
                #expect(whole.count == expected)
                for size in [1, 2, 3, 5, 50] {
                    var paged: [Int64] = []
                    var key: [SQLValue]?
                    while true {
                        // As the engine does: the plan oriented from the cursor; after an undated row, the order's walk.
                        var page = options
                        page.search?.plan = .orderFirst
                        page.search?.window = SearchQuery.DateWindow(documents: 0)
                        let window = try planner.searchWindow(scope: scope, options: page, after: key)
                        page.search?.window = window
                        if window != nil { page.search?.plan = .timeline }
                        let statements = try planner.assetPage(scope: scope, options: page, after: key, limit: size + 1).statements
                        #expect(statements.allSatisfy { $0.sql.contains("ORDER BY s.rowid") } == (window != nil))
                        let rows = try run(statements, engine, limit: size)
                        let shown = rows.prefix(size)
                        paged += shown.map { $0[0] as Int64 }
                        guard rows.count > size, let last = shown.last else { break }
                        key = (1...(thenRating ? 3 : 2)).map { last.value(at: $0) }
                    }
                    #expect(paged == whole, "\(scope), pages of \(size), ascending \(ascending), then rating \(thenRating)")
                }
            }
        }
    }

    func run(_ statements: [SQLFragment], _ engine: LibraryEngine, limit: Int) throws -> [SQLRecord] {
        try engine.metadata.read { db in
            var rows: [SQLRecord] = []
            for statement in statements where rows.count <= limit {
                rows += try SQLRecord.fetchAll(db, sql: statement.sql, arguments: statement.statementArguments)
            }
            return rows
        }
    }

    /// Documents whose key is not their asset's timeline key, and assets without a document.
    func misplacedDocuments(_ engine: LibraryEngine) throws -> (misplaced: Int, documents: Int, assets: Int) {
        try engine.metadata.read { db in
            let key = SQLDialect.timelineKey(date: "a.creation_date", id: "a.id")
            let misplaced =
                try Int.fetchOne(db, sql: "SELECT count(*) FROM asset a WHERE NOT EXISTS (SELECT 1 FROM asset_search WHERE rowid = \(key))") ?? -1
            let documents = try Int.fetchOne(db, sql: "SELECT count(*) FROM asset_search") ?? -1
            let assets = try Int.fetchOne(db, sql: "SELECT count(*) FROM asset") ?? -1
            return (misplaced, documents, assets)
        }
    }

    @Test(arguments: stores)
    func theKeysFollowRedatesAndDeletions(_ provider: any LibraryProvider) throws {
        let (library, ids, album) = try library(provider)
        defer { library.remove() }
        let engine = try LibraryEngine.open(at: library.url)
        #expect(try misplacedDocuments(engine) == (0, 36, 36))
        // Undated, dated, within the same minute, to a year before, to another minute: one change.
        let dates: [Date?] = [
            nil, Date(timeIntervalSince1970: 1_700_000_100), Date(timeIntervalSince1970: 1_700_000_198),
            Date(timeIntervalSince1970: 1_668_000_000), Date(timeIntervalSince1970: 1_700_000_030),
        ]
        try library.library.performChangesAndWait {
            let assets = PHAsset.fetchAssets(withLocalIdentifiers: [ids[0], ids[5], ids[17], ids[20], ids[21]], options: library.options())
            assets.enumerateObjects { asset, _, _ in
                PHAssetChangeRequest(for: asset).creationDate =
                    dates[[ids[0], ids[5], ids[17], ids[20], ids[21]].firstIndex(of: asset.localIdentifier)!]
            }
        }
        #expect(try misplacedDocuments(engine) == (0, 36, 36))
        // Deleted for good: its document goes with it.
        try library.library.performChangesAndWait {
            PHAssetChangeRequest.deleteAssets(PHAsset.fetchAssets(withLocalIdentifiers: [ids[4]], options: library.options()))
        }
        let trash = try #require(
            PHAssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .any, options: library.options()).first {
                $0.localizedTitle == "Recently Deleted"
            })
        try library.library.performChangesAndWait {
            PHAssetChangeRequest.deleteAssets(PHAsset.fetchAssets(in: trash, options: library.options()))
        }
        #expect(try misplacedDocuments(engine) == (0, 35, 35))
        #expect(try engine.verify().problems.filter { $0.kind == .searchIndex }.isEmpty)
        // ids[4] had "harbour" and an evening caption, and was in the album.
        try expectTimelinePages(engine, album: album, matches: (library: 17, album: 8))
    }

    @Test(arguments: stores)
    func aLibraryKeyedByRowIDIsKeyedByTheTimelineWhenOpened(_ provider: any LibraryProvider) throws {
        let (library, _, album) = try library(provider)
        defer { library.remove() }
        // Back to v14: the documents under their assets' row ids, the asset's deletion removing that row.
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
        #expect(try misplacedDocuments(engine).misplaced == 33)  // all but the 3 undated assets, whose keys are their row ids
        let reopened = try LibraryEngine.open(at: library.url)
        #expect(try misplacedDocuments(reopened) == (0, 36, 36))
        #expect(try reopened.verify().problems.filter { $0.kind == .searchIndex }.isEmpty)
        try expectTimelinePages(reopened, album: album, matches: (library: 18, album: 9))
    }
}
