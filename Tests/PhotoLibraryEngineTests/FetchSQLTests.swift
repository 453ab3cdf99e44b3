import Foundation
import PhotoLibraryEngine
import Testing

/// The SQL the fetch planner emits, asserted exactly: predicate text never becomes SQL text.
@Suite("Fetch planning SQL")
struct FetchSQLTests {
    let owner = AccessContext(clientID: nil, grant: nil, libraryIsReadOnly: false)

    func plan(
        _ scope: AssetScope = .library, _ format: String? = nil, _ args: [PredicateValue] = [], sort: [SortKey] = [],
        configure: (inout FetchOptionsSpec) -> Void = { _ in }
    ) throws -> SQLFragment {
        var options = FetchOptionsSpec()
        if let format { options.predicate = try PredicateParser.parse(format, arguments: args) }
        options.sortKeys = sort
        configure(&options)
        return try FetchPlanner(access: owner, dialect: .sqlite, now: Date(timeIntervalSince1970: 1_000_000)).assetIDs(scope: scope, options: options)
    }

    @Test func defaultLibraryFetch() throws {
        let sql = try plan()
        #expect(
            sql.sql
                == "SELECT a.id FROM asset a WHERE a.trashed_date IS NULL AND a.is_hidden = 0 AND a.burst_hidden = 0 AND (a.source_type & ?) != 0 ORDER BY a.creation_date ASC, a.id ASC"
        )
        #expect(sql.arguments == [.integer(1)])
    }

    @Test func benchmarkQuery() throws {
        let sql = try plan(.library, "mediaType == %d AND favorite == NO", [.int(1)], sort: [SortKey(key: "creationDate", ascending: false)])
        #expect(
            sql.sql
                == "SELECT a.id FROM asset a WHERE a.trashed_date IS NULL AND a.is_hidden = 0 AND a.burst_hidden = 0 AND (a.source_type & ?) != 0 AND (a.media_type = ? AND a.is_favorite = ?) ORDER BY a.creation_date DESC, a.id DESC"
        )
        #expect(sql.arguments == [.integer(1), .integer(1), .integer(0)])
    }

    /// A fetch whose conditions are all on tallied columns is counted from `asset_tally`, with the same conditions
    /// (and `trashed` for `trashed_date`); one that names any other column is not.
    @Test func countsFromTheTallies() throws {
        let planner = FetchPlanner(access: owner, dialect: .sqlite, now: Date(timeIntervalSince1970: 1_000_000))
        var options = FetchOptionsSpec()
        options.predicate = try PredicateParser.parse("mediaType == %d", arguments: [.int(1)])
        options.sortKeys = [SortKey(key: "creationDate", ascending: true)]
        let images = try #require(try planner.tallyCount(scope: .library, options: options))
        #expect(
            images.sql
                == "SELECT CAST(coalesce(sum(a.n), 0) AS BIGINT) FROM asset_tally a WHERE a.trashed = 0 AND a.is_hidden = 0 AND a.burst_hidden = 0 AND (a.source_type & ?) != 0 AND a.media_type = ?"
        )
        #expect(images.arguments == [.integer(1), .integer(1)])
        let trash = try #require(try planner.tallyCount(scope: .smartAlbum(subtype: SmartAlbums.recentlyDeletedSubtype), options: FetchOptionsSpec()))
        #expect(trash.sql.hasSuffix("WHERE a.trashed = 1 AND a.is_hidden = 0 AND a.burst_hidden = 0 AND (a.source_type & ?) != 0"))
        options.predicate = try PredicateParser.parse("mediaType == %d AND favorite == NO", arguments: [.int(1)])
        #expect(try planner.tallyCount(scope: .library, options: options) == nil)
        #expect(try planner.tallyCount(scope: .burst("B"), options: FetchOptionsSpec()) == nil)
        #expect(try planner.tallyCount(scope: .moment(day: "2024-05-01", place: "u33d"), options: FetchOptionsSpec()) == nil)
    }

    @Test func optionsChangeTheFilters() throws {
        let sql = try plan(.mediaType(2)) {
            $0.includeHiddenAssets = true
            $0.includeAllBurstAssets = true
            $0.includeAssetSourceTypes = 7
            $0.fetchLimit = 10
        }
        #expect(
            sql.sql == "SELECT a.id FROM asset a WHERE a.trashed_date IS NULL AND a.media_type = ? ORDER BY a.creation_date ASC, a.id ASC LIMIT ?")
        #expect(sql.arguments == [.integer(2), .integer(10)])
    }

    @Test func bitwiseStringAndInPredicates() throws {
        let subtypes = try plan(.library, "(mediaSubtypes & %d) != 0", [.int(8)])
        #expect(subtypes.sql.hasSuffix("AND (a.media_subtypes & ?) != ? ORDER BY a.creation_date ASC, a.id ASC"))
        #expect(subtypes.arguments.suffix(2) == [.integer(8), .integer(0)])

        let ids = try plan(.library, "localIdentifier IN %@", [.array([.string("A/L0/001"), .string("B/L0/001")])])
        #expect(ids.sql.contains("AND a.local_id IN (?, ?) ORDER BY"))

        let burst = try plan(.library, "burstIdentifier BEGINSWITH[c] %@", [.string("ab'; DROP TABLE asset; --")])
        #expect(burst.sql.contains("AND ph_compare(a.burst_identifier, ?, 2, 1) ORDER BY"))
        #expect(burst.arguments.last == .text("ab'; DROP TABLE asset; --"))

        let date = try plan(.library, "creationDate > %@ AND burstIdentifier == nil", [.date(Date(timeIntervalSince1970: 5))])
        #expect(date.sql.contains("AND (a.creation_date > ? AND a.burst_identifier IS NULL) ORDER BY"))
        #expect(date.arguments.last == .real(5))
    }

    @Test func largeInListsBindOneJSONArray() throws {
        let many = (0..<100).map { PredicateValue.string("\($0)/L0/001") }
        let sql = try plan(.library, "localIdentifier IN %@", [.array(many)])
        #expect(sql.sql.contains("a.local_id IN (SELECT value FROM json_each(?))"))
        #expect(sql.arguments.count == 2)
    }

    @Test func scopes() throws {
        #expect(
            try plan(.album(7)).sql
                == "SELECT a.id FROM collection_asset ca JOIN asset a ON a.id = ca.asset_id WHERE a.trashed_date IS NULL AND (a.source_type & ?) != 0 AND ca.collection_id = ? ORDER BY ca.position ASC"
        )
        #expect(try plan(.smartAlbum(subtype: 203)).sql.contains("AND a.is_favorite = 1 ORDER BY"))
        #expect(
            try plan(.smartAlbum(subtype: 205)).sql.contains(
                "a.trashed_date IS NULL AND a.burst_hidden = 0 AND (a.source_type & ?) != 0 AND a.is_hidden = 1"))
        #expect(try plan(.smartAlbum(subtype: 1_000_000_201)).sql.hasPrefix("SELECT a.id FROM asset a WHERE a.trashed_date IS NOT NULL"))
        #expect(try plan(.burst("B")).sql.contains("a.burst_hidden = 0 AND (a.source_type & ?) != 0 AND a.burst_identifier = ?"))
        #expect(
            try plan(.ordered(["X"])).sql
                == "SELECT a.id FROM json_each(?) t JOIN asset a ON a.local_id = t.value WHERE a.trashed_date IS NULL AND (a.source_type & ?) != 0 ORDER BY t.key ASC"
        )
    }

    @Test func limitedClientsSeeTheirSelectionOnly() throws {
        let limited = AccessContext(clientID: "app", grant: .limited, libraryIsReadOnly: false)
        let sql = try FetchPlanner(access: limited, dialect: .sqlite).assetIDs(scope: .library, options: FetchOptionsSpec())
        #expect(sql.sql.contains("AND a.id IN (SELECT asset_id FROM client_selection WHERE client_id = ?) ORDER BY"))
        #expect(sql.arguments.last == .text("app"))
    }

    /// A search's words become one bound FTS5 or tsquery string (never SQL text), dates compare the local day, and
    /// the plan a page gets decides how the database finds the matches.
    @Test func searchesBindTheirWordsAndDates() throws {
        var options = FetchOptionsSpec()
        guard let query = SearchQuery("Beach IMG_45 2019-07 july") else {
            Issue.record("the search did not parse")
            return
        }
        options.search = query
        let owner = AccessContext(clientID: nil, grant: .readWrite, libraryIsReadOnly: false)
        let sqlite = try FetchPlanner(access: owner, dialect: .sqlite).assetIDs(scope: .library, options: options)
        #expect(
            sqlite.sql.hasSuffix(
                "AND a.id IN (SELECT (rowid & 4294967295) FROM asset_search WHERE asset_search MATCH ?) AND a.local_day LIKE ? AND substr(a.local_day, 6, 2) = ? ORDER BY a.creation_date ASC, a.id ASC"
            ))
        #expect(sqlite.arguments.suffix(3) == [.text("\"beach\" AND \"img 45\"*"), .text("2019-07%"), .text("07")])
        let postgres = try FetchPlanner(access: owner, dialect: .postgreSQL).assetIDs(scope: .library, options: options)
        #expect(postgres.sql.contains("AND a.id IN (SELECT asset_id FROM asset_search WHERE document @@ ?::tsquery) AND"))
        #expect(postgres.arguments.suffix(3).first == .text("('beach') & ('img' <-> '45':*)"))
        options.search?.plan = .orderFirst
        #expect(
            try FetchPlanner(access: owner, dialect: .sqlite).assetIDs(scope: .library, options: options).sql.contains(
                "AND +a.id IN (SELECT (rowid & 4294967295)"))
        options.search?.plan = .matchesFirst
        #expect(
            try FetchPlanner(access: owner, dialect: .postgreSQL).assetIDs(scope: .library, options: options).sql.contains(
                "AND a.id = ANY(ARRAY(SELECT asset_id FROM asset_search WHERE document @@ ?::tsquery)) AND"))
        // Quotes and operators are no syntax: they separate tokens.
        let hostile = try #require(SearchQuery("\"a' OR 1=1 -- NEAR(x*"))
        #expect(hostile.words == [["a"], ["or"], ["1", "1"], ["near", "x"]])
        #expect(SQLDialect.tsvectorLiteral("img 4547 jpg") == "'img':1 '4547':2 'jpg':3")
    }

    @Test func unsupportedKeysNameTheKeyAndListTheSupportedOnes() throws {
        do {
            _ = try plan(.library, "filename == 'IMG_1.JPG'")
            Issue.record("filename accepted")
        } catch let error as FetchPredicateError {
            #expect(
                error.description
                    == "Unsupported predicate key 'filename' in a fetch of PHAsset. Supported keys: SELF, localIdentifier, creationDate, modificationDate, mediaType, mediaSubtypes, duration, pixelWidth, pixelHeight, favorite, isFavorite, hidden, isHidden, burstIdentifier, rating"
            )
        }
        #expect(throws: FetchPredicateError.self) { try plan(sort: [SortKey(key: "location", ascending: true)]) }
        #expect(throws: FetchPredicateError.self) { try plan(.library, "favorite > 0") }
        #expect(throws: FetchPredicateError.self) { try plan(.library, "mediaType CONTAINS 'x'") }
        #expect(throws: FetchPredicateError.self) { try plan(.library, "creationDate > 5") }
        #expect(throws: FetchPredicateError.self) { try plan(.library, "mediaType IN 3") }
        #expect(throws: FetchPredicateError.self) { try plan(.library, "duration BETWEEN {1}") }
    }

    @Test func collectionFetches() throws {
        let planner = FetchPlanner(access: owner, dialect: .sqlite)
        var options = FetchOptionsSpec()
        options.predicate = try PredicateParser.parse("title == %@", arguments: [.string("Trip")])
        let sql = try planner.collections(scope: .assetCollections(type: 1, subtype: nil), table: .assetCollection, options: options)
        #expect(
            sql.sql
                == "SELECT c.id, c.local_id, c.kind, c.type, c.subtype, c.title, c.parent_id, c.start_date, c.end_date, c.asset_count FROM collection_info c WHERE c.kind = 1 AND c.type = ? AND c.title = ? ORDER BY c.position ASC, c.id ASC"
        )
        #expect(sql.arguments == [.integer(1), .text("Trip")])
        options.predicate = try PredicateParser.parse("mediaType == 1", arguments: [])
        #expect(throws: FetchPredicateError.self) {
            try planner.collections(scope: .children(of: nil), table: .collection, options: options)
        }
    }
}

@Suite("Moments keys")
struct MomentKeyTests {
    @Test(arguments: [
        (0.0, 0, "1970-01-01"), (1_700_000_000, 0, "2023-11-14"), (1_700_000_000, 7_200, "2023-11-15"),
        (1_700_000_000, -86_400, "2023-11-13"), (-1, 0, "1969-12-31"), (951_782_400, 0, "2000-02-29"), (4_107_542_400, 0, "2100-03-01"),
    ])
    func localDayUsesTheOriginalOffset(seconds: Double, offset: Int, day: String) {
        #expect(Moments.localDay(of: Date(timeIntervalSince1970: seconds), offsetSeconds: offset) == day)
    }

    @Test func localDayAgreesWithCalendar() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let seconds = Double(Int64.random(in: -5_000_000_000...5_000_000_000, using: &generator))
            let c = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: seconds))
            let expected = String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
            #expect(Moments.localDay(of: Date(timeIntervalSince1970: seconds), offsetSeconds: 0) == expected)
        }
    }
}
