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
                try db.execute(sql: "DROP INDEX asset_search_document")
                try db.execute(sql: "ALTER TABLE asset DROP COLUMN search_document")
                try db.execute(sql: "DELETE FROM schema_migrations WHERE identifier IN ('v8-search', 'v14-search-on-asset')")
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
                try db.execute(sql: "UPDATE asset SET search_document = 'tampered'::tsvector WHERE id = (SELECT min(id) FROM asset)")
            }
        }
        let problems = try again.verify().problems.filter { $0.kind == .searchIndex }
        #expect(problems.count == 1 && ids.contains(problems.first?.path ?? ""), "\(problems)")
    }

    /// A PostgreSQL library whose documents were a table of their own (v8–v13) has them on its asset rows once
    /// opened: moved as they are, the table gone.
    @Test(arguments: LibraryProviders.all.filter { $0.description == "PostgreSQL" })
    func documentsMoveOntoTheAssetRows(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(name: "SearchMove", provider: provider)
        defer { library.remove() }
        let ids = try library.addImages(2) { index, request in
            if index == 1 { request.addKeyword("Harbour") }
        }
        let engine = try LibraryEngine.open(at: library.url)
        try engine.metadata.write { db in
            try db.execute(
                sql: "CREATE TABLE asset_search (asset_id BIGINT PRIMARY KEY REFERENCES asset(id) ON DELETE CASCADE, document TSVECTOR NOT NULL)")
            try db.execute(sql: "INSERT INTO asset_search SELECT id, search_document FROM asset")
            try db.execute(sql: "DROP INDEX asset_search_document")
            try db.execute(sql: "ALTER TABLE asset DROP COLUMN search_document")
            try db.execute(sql: "CREATE INDEX asset_search_document ON asset_search USING GIN (document)")
            try db.execute(sql: "DELETE FROM schema_migrations WHERE identifier = 'v14-search-on-asset'")
        }
        let reopened = try PHPhotoLibrary(url: library.url, clientIdentifier: nil)
        let options = PHFetchOptions()
        options.photoLibrary = reopened
        options.searchText = "harbour"
        #expect(PHAsset.fetchAssets(with: options).map(\.localIdentifier) == [ids[1]])
        let after = try LibraryEngine.open(at: library.url)
        let tables = try after.metadata.read { db in
            try Int.fetchOne(
                db, sql: "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'asset_search'")
        }
        #expect(tables == 0)
        #expect(try after.verify().problems.filter { $0.kind == .searchIndex }.isEmpty)
    }
}
