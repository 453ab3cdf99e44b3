import Foundation
import PhotoLibraryEngine
import PhotosTestHarness
import PhotosTesting
import Testing

/// The tallies (`asset_tally`, kept by each store's triggers) count a plain fetch in the transaction that reads its
/// ids: the count is known before the ids are read, and it is the count of the same state.
@Suite("Asset tallies")
struct AssetTallyTests {
    let owner = AccessContext(clientID: nil, grant: nil, libraryIsReadOnly: false)

    static func spec(_ format: String? = nil, _ configure: (inout FetchOptionsSpec) -> Void = { _ in }) -> FetchOptionsSpec {
        var options = FetchOptionsSpec()
        if let format { options.predicate = try? PredicateParser.parse(format, arguments: []) }
        configure(&options)
        return options
    }

    /// Fetches the tallies count: every condition is on a tallied column.
    static let counted: [(String, AssetScope, FetchOptionsSpec)] = [
        ("library", .library, spec()),
        ("images", .mediaType(1), spec()),
        ("videos by predicate, sorted", .library, spec("mediaType == 2") { $0.sortKeys = [SortKey(key: "creationDate", ascending: false)] }),
        (
            "everything", .library,
            spec {
                $0.includeHiddenAssets = true
                $0.includeAllBurstAssets = true
                $0.includeAssetSourceTypes = 7
            }
        ),
        ("hidden or not an image", .library, spec("hidden == YES OR mediaType IN {2, 3}") { $0.includeHiddenAssets = true }),
        ("images, limited to 50", .mediaType(1), spec { $0.fetchLimit = 50 }),
        ("Videos", .smartAlbum(subtype: 202), spec()),
        ("Hidden", .smartAlbum(subtype: 205), spec()),
        ("Recently Deleted", .smartAlbum(subtype: SmartAlbums.recentlyDeletedSubtype), spec()),
    ]

    func checkCounts(_ engine: LibraryEngine, _ step: String) throws {
        #expect(try engine.verify().problems.filter { $0.kind == .tallies } == [], "\(step)")
        for (name, scope, options) in Self.counted {
            let (stream, _) = try engine.streamAssetIDs(scope: scope, options: options, access: owner)
            let told = stream.expectedCount
            let ids = stream.all
            #expect(told == ids.count && stream.failureReason == nil, "\(step): \(name) counted \(String(describing: told)), \(ids.count) ids")
            #expect(ids.count > 0, "\(step): \(name) matches something (the check is not vacuous)")
        }
    }

    @Test(arguments: LibraryProviders.all.filter { !$0.description.contains("S3") })
    func theTalliesCountWhatTheRowsHoldAfterEveryKindOfWrite(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(name: "Tallies", provider: provider)
        defer { library.remove() }
        try SyntheticLibrary.insertAssets(into: library.url, count: 3_000, batch: 700)
        let engine = try LibraryEngine.open(at: library.url)
        try engine.metadata.write { db in
            try db.execute(sql: "UPDATE asset SET trashed_date = ? WHERE id % 5 = 0", arguments: [Date().timeIntervalSince1970])
        }
        try checkCounts(engine, "inserted, some trashed")
        // Every tallied column changed (in statements of many rows, and of one), rows deleted, and columns the
        // tallies do not count changed with them.
        try engine.metadata.write { db in
            try db.execute(sql: "UPDATE asset SET is_hidden = 1 - is_hidden WHERE id % 7 = 0")
            try db.execute(sql: "UPDATE asset SET trashed_date = NULL WHERE id % 11 = 0")
            try db.execute(sql: "UPDATE asset SET trashed_date = trashed_date + 1 WHERE trashed_date IS NOT NULL")
            try db.execute(sql: "UPDATE asset SET media_type = 3 WHERE id % 13 = 0")
            try db.execute(sql: "UPDATE asset SET burst_hidden = 1 WHERE id % 17 = 0")
            try db.execute(sql: "UPDATE asset SET source_type = 2 WHERE id % 19 = 0")
            try db.execute(sql: "UPDATE asset SET is_favorite = 1, rating = 3 WHERE id % 4 = 0")
            try db.execute(sql: "UPDATE asset SET media_type = 2 WHERE id = (SELECT min(id) FROM asset WHERE media_type = 1)")
            try db.execute(sql: "DELETE FROM asset WHERE id % 3 = 0")
        }
        try checkCounts(engine, "changed")
        // A transaction that fails leaves the tallies as they were.
        #expect(throws: (any Error).self) {
            try engine.metadata.write { db in
                try db.execute(sql: "DELETE FROM asset WHERE id % 2 = 0")
                try db.execute(sql: "SELECT no_such_column FROM asset")
            }
        }
        try checkCounts(engine, "rolled back")

        // Fetches that filter on anything else are counted by their ids.
        let uncounted: [(String, AssetScope, FetchOptionsSpec)] = [
            ("favorites", .library, Self.spec("favorite == YES")),
            ("an album", .album(1), Self.spec()),
            ("a search", .library, Self.spec { $0.search = SearchQuery("beach") }),
            ("Recently Added", .smartAlbum(subtype: 206), Self.spec()),
        ]
        for (name, scope, options) in uncounted {
            let (stream, _) = try engine.streamAssetIDs(scope: scope, options: options, access: owner)
            #expect(stream.expectedCount == nil, "\(name)")
        }
        let limited = AccessContext(clientID: "limited", grant: .limited, libraryIsReadOnly: false)
        #expect(try engine.streamAssetIDs(scope: .library, options: Self.spec(), access: limited).ids.expectedCount == nil)
    }

    /// A library from before the tallies (schema v11) is counted when it is opened; tallies that disagree with the
    /// rows are reported by `verify`, and a fetch whose count they told keeps that count, its missing slots
    /// objects that cannot be loaded and its error saying why.
    @Test(arguments: LibraryProviders.all.filter { !$0.description.contains("S3") })
    func aLibraryFromBeforeTheTalliesIsCountedWhenOpened(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(name: "TallyMigration", provider: provider)
        defer { library.remove() }
        try SyntheticLibrary.insertAssets(into: library.url, count: 500)
        let engine = try LibraryEngine.open(at: library.url)
        try engine.metadata.write { db in
            if db.dialect.kind == .sqlite {
                for trigger in ["insert", "delete", "update"] { try db.execute(sql: "DROP TRIGGER asset_tally_\(trigger)") }
                try db.execute(sql: "DROP TABLE asset_tally")
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v12-asset-tallies'")
            } else {
                try db.execute(sql: "DROP TABLE asset_tally")
                for (trigger, function) in [("insert", "inserted"), ("delete", "deleted"), ("update", "updated")] {
                    try db.execute(sql: "DROP TRIGGER asset_tally_\(trigger) ON asset")
                    try db.execute(sql: "DROP FUNCTION asset_tally_\(function)()")
                }
                try db.execute(sql: "DELETE FROM schema_migrations WHERE identifier = 'v12-asset-tallies'")
            }
            try db.execute(sql: "UPDATE asset SET trashed_date = ? WHERE id % 5 = 0", arguments: [Date().timeIntervalSince1970])
        }
        let reopened = try LibraryEngine.open(at: library.url)
        try checkCounts(reopened, "migrated")

        // Tallies out of step with the rows.
        try reopened.metadata.write { db in
            try db.execute(sql: "UPDATE asset_tally SET n = n + 2 WHERE media_type = 1 AND is_hidden = 0 AND burst_hidden = 0 AND trashed = 0")
        }
        let images = try reopened.fetchAssetIDs(scope: .mediaType(1), options: Self.spec(), access: owner).count
        let problems = try reopened.verify().problems.filter { $0.kind == .tallies }
        #expect(problems.map(\.detail) == ["media type/hidden/burst hidden/source/trashed 1/0/0/1/0: \(images + 2) counted, \(images) assets"])
        let (stream, _) = try reopened.streamAssetIDs(scope: .mediaType(1), options: Self.spec(), access: owner)
        let arrived = stream.all.count
        #expect(arrived == images)
        #expect(stream.count == arrived + 2 && stream.id(at: arrived) == 0 && stream.id(at: arrived + 1) == 0 && stream.id(at: arrived + 2) == nil)
        #expect(stream.ids(in: arrived - 1..<arrived + 5).count == 3)
        #expect((stream.failureReason as? LibraryError)?.message == "the fetch was counted as \(arrived + 2) assets but matches \(arrived)")
    }
}
