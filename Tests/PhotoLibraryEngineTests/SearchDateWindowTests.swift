import Foundation
import OpenPhotos
import PhotoLibraryEngine
import PhotosTesting
import Testing

/// PostgreSQL's pages of a search with thousands of matches look among a window of dates (`asset_search`'s copy of
/// each asset's creation date): a window's rows are exactly the start of the whole order, however small the window
/// and wherever the cursor is, with ties and undated assets; a window that holds less than a page is looked for again
/// without it (as `LibraryEngine.fetchAssetPage` does); and the copy of the date follows the asset's.
@Suite("Search date windows")
struct SearchDateWindowTests {
    static var stores: [any LibraryProvider] {
        LibraryProviders.all.filter { $0.description.contains("PostgreSQL") && !$0.description.contains("S3") }
    }

    let owner = AccessContext(clientID: nil, grant: nil, libraryIsReadOnly: false)

    @Test(arguments: stores)
    func windowedPagesAreTheStartOfTheWholeOrder(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(name: "SearchWindow", provider: provider)
        defer { library.remove() }
        // 30 assets: 15 with "harbour" and an evening caption (dates in pairs 35 days apart, so that windows span one
        // bucket of dates or several; some undated), 15 with one or neither.
        try library.addImages(30) { index, request in
            request.creationDate = index % 9 == 4 ? nil : Date(timeIntervalSince1970: 1_700_000_000 + Double(index / 2) * 3_000_000)
            if index % 4 != 1 { request.addKeyword("Harbour") }
            if index % 3 != 2 { request.caption = "Evening light" }
        }
        let engine = try LibraryEngine.open(at: library.url)
        let planner = FetchPlanner(access: owner, dialect: engine.metadata.dialect)
        for (ascending, driving) in [(true, nil), (false, nil), (true, 0), (false, 1)] as [(Bool, Int?)] {
            var options = FetchOptionsSpec()
            options.sortKeys = [SortKey(key: "creationDate", ascending: ascending)]
            options.search = SearchQuery("harbour eve")
            options.search?.plan = .matchesFirst
            let whole = try run(planner.assetPage(scope: .library, options: options, after: nil, limit: 100).statements, engine: engine, limit: 100)
                .map { $0[0] as Int64 }
            #expect(whole.count == 15)
            // The matches sorted by the documents' dates are the assets' order (the database's own plan).
            var database = options
            database.search?.plan = .database
            let statements = try planner.assetPage(scope: .library, options: options, after: nil, limit: 100).statements
            #expect(statements.allSatisfy { $0.sql.contains("FROM asset_search s WHERE") })
            #expect(
                try run(planner.assetPage(scope: .library, options: database, after: nil, limit: 100).statements, engine: engine, limit: 100).map {
                    $0[0] as Int64
                } == whole)
            // The engine's own choice of plan, window and word: the same page; pages of one and two (which look in
            // windows) before and after the documents are analyzed (a window's bound counted in the dates' index, or
            // estimated from their histogram).
            #expect(try engine.fetchAssetPage(scope: .library, options: options, access: owner, after: nil, limit: 100).ids == whole)
            for analyzed in [false, true] {
                if analyzed {
                    try engine.metadata.write { db in try db.execute(sql: "ANALYZE asset_search") }
                    let histogram = try engine.metadata.read { db in try SQLRecord.fetchOne(db, sql: db.dialect.searchDateHistogram) }
                    #expect(histogram.flatMap { DateHistogram(bounds: $0[0], nullFraction: $0[1], documents: 30) } != nil)
                }
                for size in [1, 2] {
                    var paged: [Int64] = []
                    var cursor: PageCursor?
                    repeat {
                        let page = try engine.fetchAssetPage(scope: .library, options: options, access: owner, after: cursor, limit: size)
                        paged += page.ids
                        cursor = page.next
                    } while cursor != nil && paged.count <= whole.count
                    #expect(paged == whole, "pages of \(size), analyzed \(analyzed), ascending \(ascending)")
                }
            }
            // The rarer word alone from the index, the search checked on its rows: the same matches.
            options.search?.drivingWord = driving
            #expect(
                try engine.metadata.read { db in
                    let statement = try planner.assetPage(scope: .library, options: options, after: nil, limit: 100).statements[0]
                    return try SQLRecord.fetchAll(db, sql: statement.sql, arguments: statement.statementArguments).map { $0[0] as Int64 }
                } == whole)
            var bucketed = 0
            for documents in [0, 1, 3, 8, 30] {
                var narrowed = 0
                for size in [1, 4, 7] {
                    var windowed = options
                    windowed.search?.window = SearchQuery.DateWindow(documents: documents)
                    var paged: [Int64] = []
                    var key: [SQLValue]?
                    while true {
                        // As the engine does: the window oriented from the cursor, its bound read first.
                        var page = windowed
                        page.search?.window = nil
                        if var window = try planner.searchWindow(scope: .library, options: windowed, after: key) {
                            let bound = engine.metadata.dialect.dateWindowBound(window)
                            window.bound = try engine.metadata.read { db in
                                try Double.fetchOne(db, sql: bound.sql, arguments: bound.statementArguments)
                            }
                            if window.bound != nil {
                                if window.after == nil {
                                    window.start = try engine.metadata.read { db in
                                        try Double.fetchOne(db, sql: db.dialect.dateWindowStart(ascending: window.ascending))
                                    }
                                }
                                page.search?.window = window
                            }
                        }
                        let statements = try planner.assetPage(scope: .library, options: page, after: key, limit: size + 1).statements
                        if page.search?.window != nil {
                            // The window's words asked of the index within the buckets of dates it spans.
                            #expect(statements.allSatisfy { $0.sql.contains("\(SQLDialect.bucketedDocument) @@ ?::tsquery") })
                            bucketed += 1
                        }
                        var rows = try run(statements, engine: engine, limit: size)
                        if rows.count <= size, page.search?.window != nil {
                            // The engine's fallback: the same page without the window.
                            var all = windowed
                            all.search?.window = nil
                            all.search?.drivingWord = nil
                            let unwindowed = try planner.assetPage(scope: .library, options: all, after: key, limit: size + 1).statements
                            let exact = try run(unwindowed, engine: engine, limit: size)
                            if exact.count > rows.count { narrowed += 1 }
                            rows = exact
                        } else {
                            let ids = rows.map { $0[0] as Int64 }
                            #expect(ids == Array(whole[paged.count..<min(whole.count, paged.count + ids.count)]), "window \(documents), \(ascending)")
                        }
                        let shown = rows.prefix(size)
                        paged += shown.map { $0[0] as Int64 }
                        guard rows.count > size, let last = shown.last else { break }
                        key = [last.value(at: 1), last.value(at: 2)]
                    }
                    #expect(paged == whole, "window of \(documents) documents, pages of \(size), ascending \(ascending)")
                }
                // A window of no document holds one date (and, ascending, the undated assets): pages fall short of it.
                if documents == 0 { #expect(narrowed > 0) }
            }
            #expect(bucketed > 20)
        }
    }

    /// The buckets of dates: the database's function and the engine's names agree at their edges, before 1970, far out
    /// and without a date; a window names the buckets from its start to its bound (and the undated documents' on an
    /// ascending first page), and none past 16 of them (the window is then looked for by its dates alone).
    @Test(arguments: stores)
    func bucketsOfDates(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(name: "SearchBuckets", provider: provider)
        defer { library.remove() }
        let engine = try LibraryEngine.open(at: library.url)
        let span = SQLDialect.searchBucketSeconds
        let dates: [Double?] = [nil, 0, -1, -span, -span - 0.5, span - 0.001, span, 1_700_000_000.25, -1e20, 1e20, 62_000_000_000]
        for date in dates {
            let bucketed = try engine.metadata.read { db in
                try String.fetchOne(
                    db, sql: "SELECT asset_search_bucketed('''harbour'':2 ''img'':5,7'::tsvector, ?)::text", arguments: [date])
            }
            let bucket = SQLDialect.searchBucket(of: date)
            #expect(bucketed == "'\(bucket)#harbour':2 '\(bucket)#img':5,7", "\(String(describing: date))")
        }
        #expect(
            dates.dropFirst().map { SQLDialect.searchBucket(of: $0) } == ["0", "-1", "-1", "-2", "0", "1", "405", "-238418580", "238418579", "14781"])
        #expect(SQLDialect.searchBucket(of: nil) == "u")
        var window = SearchQuery.DateWindow(documents: 10, ascending: true, after: nil, bound: 3 * span + 1, start: span)
        #expect(SQLDialect.searchBuckets(of: window) == ["1", "2", "3", "u"])
        window.ascending = false
        (window.start, window.bound) = (3 * span + 1, span)
        #expect(SQLDialect.searchBuckets(of: window) == ["1", "2", "3"])
        window.after = 2 * span
        #expect(SQLDialect.searchBuckets(of: window) == ["1", "2"])
        window.bound = 2 * span - 16 * span
        #expect(SQLDialect.searchBuckets(of: window) == nil)
        window.bound = 2 * span - 15 * span
        #expect(SQLDialect.searchBuckets(of: window)?.count == 16)
        window.start = nil
        window.after = nil
        #expect(SQLDialect.searchBuckets(of: window) == nil)
    }

    func run(_ statements: [SQLFragment], engine: LibraryEngine, limit: Int) throws -> [SQLRecord] {
        try engine.metadata.read { db in
            var rows: [SQLRecord] = []
            for statement in statements where rows.count <= limit {
                rows += try SQLRecord.fetchAll(db, sql: statement.sql, arguments: statement.statementArguments)
            }
            return rows
        }
    }

    @Test(arguments: stores)
    func theDocumentsDateFollowsTheAssets(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(name: "SearchWindowDates", provider: provider)
        defer { library.remove() }
        let ids = try library.addImages(3) { index, request in
            request.addKeyword("Harbour")
            if index == 2 { request.creationDate = nil }
        }
        let engine = try LibraryEngine.open(at: library.url)
        func mismatches() throws -> Int {
            try engine.metadata.read { db in
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT count(*) FROM asset a LEFT JOIN asset_search s ON s.asset_id = a.id
                        WHERE s.asset_id IS NULL OR s.creation_date IS DISTINCT FROM a.creation_date
                        """) ?? -1
            }
        }
        #expect(try mismatches() == 0)
        try library.library.performChangesAndWait {
            let assets = PHAsset.fetchAssets(withLocalIdentifiers: ids, options: library.options())
            assets.enumerateObjects { asset, index, _ in
                let request = PHAssetChangeRequest(for: asset)
                request.creationDate = index == 0 ? nil : Date(timeIntervalSince1970: 1_600_000_000 + Double(index))
            }
        }
        #expect(try mismatches() == 0)
        let dated = try engine.metadata.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM asset_search WHERE creation_date IS NOT NULL") ?? -1
        }
        #expect(dated == 2)
        // The bucketed words follow the dates: each asset is found in its new date's bucket (no date: `u`), no other.
        let buckets = try engine.metadata.read { db in
            try SQLRecord.fetchAll(db, sql: "SELECT local_id, creation_date FROM asset").map {
                (id: $0[0] as String, bucket: SQLDialect.searchBucket(of: $0[1] as Double?))
            }
        }
        #expect(Set(buckets.map(\.bucket)).count == 2)
        for bucket in Set(buckets.map(\.bucket)) {
            let found = try engine.metadata.read { db in
                try String.fetchAll(
                    db,
                    sql:
                        "SELECT local_id FROM asset WHERE id IN (SELECT asset_id FROM asset_search WHERE \(SQLDialect.bucketedDocument) @@ ?::tsquery) ORDER BY local_id",
                    arguments: ["'\(bucket)#harbour'"])
            }
            #expect(found == buckets.filter { $0.bucket == bucket }.map(\.id).sorted(), "\(bucket)")
        }
        // verify says where a document's date is not its asset's.
        #expect(try engine.verify().problems.filter { $0.kind == .searchIndex }.isEmpty)
        try engine.metadata.write { db in
            try db.execute(
                sql: "UPDATE asset_search SET creation_date = 1 WHERE asset_id = (SELECT id FROM asset WHERE local_id = ?)", arguments: [ids[1]])
        }
        let problems = try engine.verify().problems.filter { $0.kind == .searchIndex }
        #expect(problems.map(\.path) == [ids[1]], "\(problems)")
    }
}
