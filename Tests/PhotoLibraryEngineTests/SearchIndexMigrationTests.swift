import Foundation
import OpenPhotos
import PhotoLibraryEngine
import PhotosTesting
import Testing

/// A library made before the search index (schema v7) gets one when it is opened: every asset's file names, captions
/// and keywords are indexed by the migration, on both stores.
@Suite("Search index migration")
struct SearchIndexMigrationTests {
    @Test(arguments: LibraryProviders.all.filter { !$0.description.contains("S3") })
    func aLibraryFromBeforeSearchIsIndexedWhenOpened(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(name: "SearchMigration", provider: provider)
        defer { library.remove() }
        let ids = try library.addImages(3) { index, request in
            if index == 2 { request.addKeyword("Lighthouse") }
        }
        // Back to v7: no search index, the migration not recorded.
        let engine = try LibraryEngine.open(at: library.url)
        try engine.metadata.write { db in
            if db.dialect.kind == .sqlite {
                try db.execute(sql: "DROP TRIGGER asset_search_forget")
                try db.execute(sql: "DROP TABLE asset_search")
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v8-search'")
            } else {
                // And without what v14 added to it (the documents' dates, and the trigger that keeps them).
                try db.execute(sql: "DROP TRIGGER asset_search_date ON asset")
                try db.execute(sql: "DROP FUNCTION asset_search_date_changed()")
                try db.execute(sql: "DROP TABLE asset_search")
                try db.execute(sql: "DELETE FROM schema_migrations WHERE identifier IN ('v8-search', 'v14-search-date')")
            }
        }
        let reopened = try PHPhotoLibrary(url: library.url, clientIdentifier: nil)
        let options = PHFetchOptions()
        options.photoLibrary = reopened
        options.searchText = "lighthouse"
        #expect(PHAsset.fetchAssets(with: options).map(\.localIdentifier) == [ids[2]])
        options.searchText = "jpg"
        #expect(PHAsset.fetchAssets(with: options).count == 3)

        // verify finds every document as the rows make it, and says where one is not.
        let again = try LibraryEngine.open(at: library.url)
        #expect(try again.verify().problems.filter { $0.kind == .searchIndex }.isEmpty)
        try again.metadata.write { db in
            if db.dialect.kind == .sqlite {
                try db.execute(sql: "UPDATE asset_search SET document = 'tampered' WHERE rowid = (SELECT min(rowid) FROM asset_search)")
            } else {
                try db.execute(
                    sql: "UPDATE asset_search SET document = 'tampered'::tsvector WHERE asset_id = (SELECT min(asset_id) FROM asset_search)")
            }
        }
        let problems = try again.verify().problems.filter { $0.kind == .searchIndex }
        #expect(problems.count == 1 && ids.contains(problems.first?.path ?? ""), "\(problems)")
    }
}
