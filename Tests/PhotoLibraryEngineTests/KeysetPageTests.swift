import Foundation
import OpenPhotos
import PhotoLibraryEngine
import PhotosTesting
import Testing

/// Keyset pages (what `photos serve` pages the timeline with): the statements, the index they are answered with,
/// and pages that add up to the whole fetch when creation dates are missing.
@Suite("Keyset pages")
struct KeysetPageTests {
    let owner = AccessContext(clientID: nil, grant: nil, libraryIsReadOnly: false)

    func newestFirst() -> FetchOptionsSpec {
        var options = FetchOptionsSpec()
        options.sortKeys = [SortKey(key: "creationDate", ascending: false)]
        return options
    }

    @Test func aDescendingPageIsARangeThenTheUndatedRows() throws {
        let planner = FetchPlanner(access: owner, dialect: .sqlite, now: Date(timeIntervalSince1970: 1_000_000))
        let (statements, keyCount) = try planner.assetPage(
            scope: .library, options: newestFirst(), after: [.real(1_700_000_000), .integer(42)], limit: 501)
        #expect(keyCount == 2)
        let filters = "a.trashed_date IS NULL AND a.is_hidden = 0 AND a.burst_hidden = 0 AND (a.source_type & ?) != 0"
        #expect(
            statements.map(\.sql) == [
                "SELECT a.id, a.creation_date, a.id FROM asset a WHERE \(filters) AND (a.creation_date, a.id) < (?, ?) ORDER BY a.creation_date DESC, a.id DESC LIMIT ?",
                "SELECT a.id, a.creation_date, a.id FROM asset a WHERE \(filters) AND a.creation_date IS NULL ORDER BY a.creation_date DESC, a.id DESC LIMIT ?",
            ])
        #expect(statements[0].arguments == [.integer(1), .real(1_700_000_000), .integer(42), .integer(501)])
        #expect(statements[1].arguments == [.integer(1), .integer(501)])
        // Ascending, undated rows come first: before any dated key, so one statement.
        var oldestFirst = newestFirst()
        oldestFirst.sortKeys = [SortKey(key: "creationDate", ascending: true)]
        #expect(try planner.assetPage(scope: .library, options: oldestFirst, after: [.real(5), .integer(1)], limit: 10).statements.count == 1)

        // SQLite answers the first with a range of the timeline index (a page deep in a large library reads only
        // its own rows), not a scan from the top of the index.
        let library = try TestLibrary(name: "KeysetPlan")
        defer { library.remove() }
        let engine = try LibraryEngine.open(at: library.url)
        let plan = try engine.metadata.read { db in
            try SQLRecord.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statements[0].sql, arguments: statements[0].statementArguments)
                .map { $0[3] as String }  // id, parent, notused, detail
        }
        #expect(plan == ["SEARCH a USING INDEX asset_timeline (creation_date<?)"])
    }

    @Test func pagesAddUpToTheFetchWithUndatedAssets() throws {
        let library = try TestLibrary(name: "KeysetNulls")
        defer { library.remove() }
        // Seven assets, three without a creation date, two sharing one.
        try library.addImages(7) { index, request in
            if [1, 4, 6].contains(index) { request.creationDate = nil }
            if index == 3 { request.creationDate = Date(timeIntervalSince1970: 1_700_000_000) }
        }
        let engine = try LibraryEngine.open(at: library.url)
        #expect(try engine.metadata.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM asset WHERE creation_date IS NULL") } == 3)
        let whole = try engine.metadata.read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM asset ORDER BY creation_date DESC, id DESC")
        }
        for size in 1...4 {
            var paged: [Int64] = []
            var key: PageCursor?
            repeat {
                let page = try engine.fetchAssetPage(scope: .library, options: newestFirst(), access: owner, after: key, limit: size)
                #expect(page.ids.count <= size)
                paged += page.ids
                key = page.next
            } while key != nil
            #expect(paged == whole, "pages of \(size)")
        }
    }
}

/// Pages through cursors as `photos serve` hands them out, over every sort key the server accepts, both directions,
/// several page sizes, with ties (every import shares one modification date; creation dates repeat; some are missing)
/// and with assets added between pages. The cursor once carried a rounded double of a date: `modificationDate`
/// stopped after one page and `-modificationDate` returned the same page forever.
extension KeysetPageTests {
    static let sortKeys = ["creationDate", "modificationDate", "mediaType", "duration", "pixelWidth", "pixelHeight", "favorite", "hidden"]

    func walk(_ library: PHPhotoLibrary, sort: NSSortDescriptor, size: Int, between: (Int) throws -> Void = { _ in }) throws -> [String] {
        let options = PHFetchOptions()
        options.sortDescriptors = [sort]
        var seen: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            let page = try library.fetchAssetPage(options: options, cursor: cursor, limit: size)
            #expect(page.assets.count <= size)
            page.assets.enumerateObjects { asset, _, _ in seen.append(asset.localIdentifier) }
            cursor = page.nextCursor
            pages += 1
            try between(pages)
            // A cursor that repeats a page would loop forever: the walk is bounded by what can exist.
            if pages > 400 { Issue.record("\(sort.photosSortKey ?? "") \(sort.ascending) by \(size): more than 400 pages"); break }
        } while cursor != nil
        return seen
    }

    @Test func cursorsWalkEverySortKeyExactlyOverTies() throws {
        let library = try TestLibrary(name: "KeysetTies")
        defer { library.remove() }
        // 40 assets in one import (one modification date), creation dates in groups of three sharing one, every
        // seventh without a date, some favourites.
        try library.addImages(40) { index, request in
            request.creationDate = index % 7 == 3 ? nil : Date(timeIntervalSince1970: 1_700_000_000.123_456 + Double(index / 3) * 0.000_1)
            request.isFavorite = index % 4 == 0
        }
        for key in Self.sortKeys {
            for ascending in [true, false] {
                let sort = NSSortDescriptor(key: key, ascending: ascending)
                let options = library.options { $0.sortDescriptors = [sort] }
                var whole: [String] = []
                PHAsset.fetchAssets(with: options).enumerateObjects { asset, _, _ in whole.append(asset.localIdentifier) }
                #expect(whole.count == 40)
                for size in [1, 3, 7, 40, 41] {
                    let paged = try walk(library.library, sort: sort, size: size)
                    let exact = paged == whole
                    #expect(
                        exact,
                        "\(ascending ? "" : "-")\(key) in pages of \(size): \(paged.count) listed, \(Set(paged).count) distinct, of \(whole.count)")
                }
            }
        }
    }

    @Test func cursorsStayExactWhileAssetsAreAdded() throws {
        let library = try TestLibrary(name: "KeysetInserts")
        defer { library.remove() }
        let first = Set(try library.addImages(20, step: 0))
        for key in ["creationDate", "modificationDate"] {
            for ascending in [true, false] {
                var added = 0
                let paged = try walk(library.library, sort: NSSortDescriptor(key: key, ascending: ascending), size: 6) { page in
                    // New assets after each of the first pages: some tie with the assets already listed.
                    if page <= 2 {
                        try library.addImages(2, step: 0)
                        added += 2
                    }
                }
                let distinct = Set(paged).count, missing = first.subtracting(paged).count
                #expect(distinct == paged.count, "\(key) \(ascending): \(paged.count - distinct) assets listed twice")
                #expect(missing == 0, "\(key) \(ascending): \(missing) assets never listed")
            }
        }
    }
}
