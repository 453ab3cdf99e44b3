import Foundation
import PhotoLibraryEngine
import PhotosTesting
import Synchronization
import Testing

/// The PostgreSQL library schema against the SQLite one, and its migrations. Runs where the test command started a
/// server (`OPENPHOTOKIT_TEST_POSTGRES`).
@Suite("PostgreSQL schema", .enabled(if: StoreUnderTest.postgresURL != nil, "no PostgreSQL server (OPENPHOTOKIT_TEST_POSTGRES)"))
struct PostgreSQLSchemaTests {
    func libraryURL(_ name: String) throws -> URL {
        let base = try #require(StoreUnderTest.postgresURL)
        return try #require(URL(string: "\(base)?library=schema_\(name)_\(UUID().uuidString.prefix(8).lowercased())"))
    }

    /// Every table and view has the same columns, in the same order, in both stores: the engine's one body of SQL
    /// reads both.
    @Test func theTablesAreTheSQLiteStoresColumnForColumn() throws {
        let library = try TestLibrary(name: "SchemaSQLite")
        defer { library.remove() }
        let sqlite = try LibraryEngine.open(at: library.url).metadata
        let url = try libraryURL("columns")
        defer { try? PostgreSQLMetadataStore.removeLibrary(url: url) }
        let postgres = try PostgreSQLMetadataStore.open(url: url)

        let sqliteTables = try sqlite.read { db in
            try String.fetchAll(
                db,
                sql:
                    "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations' AND name NOT LIKE 'asset_search%' ORDER BY name"
            )
        }
        var sqliteColumns: [String: [String]] = [:]
        for table in sqliteTables {
            sqliteColumns[table] = try sqlite.read { db in
                try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?) ORDER BY cid", arguments: [table])
            }
        }
        let postgresColumns = try postgres.read { db in
            try SQLRecord.fetchAll(
                db,
                sql: """
                    SELECT table_name::text, column_name::text FROM information_schema.columns
                    WHERE table_schema = current_schema() AND table_name != 'schema_migrations' ORDER BY table_name, ordinal_position
                    """)
        }
        var grouped: [String: [String]] = [:]
        // The search index is each store's own (an FTS5 table; a tsvector), derived from the rows.
        for row in postgresColumns where !(row[0] as String).hasPrefix("asset_search") { grouped[row[0], default: []].append(row[1]) }
        #expect(sqliteColumns.count >= 9)
        #expect(grouped == sqliteColumns)
        // A copy of a library carries exactly the library's tables (and leaves the transient ones).
        #expect(
            Set(sqliteColumns.keys) == Set(LibrarySchema.tables + LibrarySchema.transientTables + LibrarySchema.derivedTables + ["collection_info"]))
    }

    @Test func migrationsRunOnceAndSeedTheLibrary() throws {
        let url = try libraryURL("once")
        defer { try? PostgreSQLMetadataStore.removeLibrary(url: url) }
        // Opened by several at once, as processes starting together would.
        let stores = Mutex<[PostgreSQLMetadataStore]>([])
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do {
                let store = try PostgreSQLMetadataStore.open(url: url)
                stores.withLock { $0.append(store) }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let store = try PostgreSQLMetadataStore.open(url: url)
        let (migrations, smartAlbums, uuids) = try store.read { db in
            (
                Set(try String.fetchAll(db, sql: "SELECT identifier FROM schema_migrations")),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM collection WHERE type = 2") ?? 0,
                try Int.fetchOne(db, sql: "SELECT count(*) FROM library_info WHERE key = 'uuid'") ?? 0
            )
        }
        #expect(
            migrations == [
                "v1", "v2-change-journal", "v3-media-metadata", "v4-content-editing", "v5-access-tokens", "v6-background-work",
                "v7-extended-metadata", "v8-search", "v9-incoming-resources", "v10-upload-jobs", "v11-original-choice",
                "v12-asset-tallies", "v13-asset-lookup", "v14-search-date", "v15-search-buckets",
            ])
        #expect(smartAlbums == SmartAlbums.all.count)
        #expect(uuids == 1)
    }

    @Test func aLibraryFromANewerVersionIsRefused() throws {
        let url = try libraryURL("newer")
        defer { try? PostgreSQLMetadataStore.removeLibrary(url: url) }
        let store = try PostgreSQLMetadataStore.open(url: url)
        try store.write { db in try db.execute(sql: "INSERT INTO schema_migrations (identifier) VALUES ('v99-from-the-future')") }
        #expect {
            _ = try PostgreSQLMetadataStore.open(url: url)
        } throws: { error in
            (error as? LibraryError).map { $0.code == LibraryError.changeNotSupported("").code && $0.message.contains("v99-from-the-future") }
                ?? false
        }
    }

    /// `ph_moment_id` in SQL makes exactly the identifiers `Moments.localIdentifier` makes in Swift.
    @Test func momentIdentifiersAreTheSwiftOnes() throws {
        let url = try libraryURL("moments")
        defer { try? PostgreSQLMetadataStore.removeLibrary(url: url) }
        let store = try PostgreSQLMetadataStore.open(url: url)
        let keys = [("moment", "2024-05-01|u33d"), ("year", "2024"), ("cluster", "2024-05"), ("moment", "2023-12-31|"), ("moment", "é 🙂|x")]
        for (kind, key) in keys {
            let sql = try store.read { db in try String.fetchOne(db, sql: "SELECT ph_moment_id(?, ?)", arguments: [kind, key]) }
            #expect(sql == Moments.localIdentifier(kind: kind, key: key), "\(kind) \(key)")
        }
    }

    /// `ph_compare` in SQL agrees with the Swift function the SQLite store registers, on random strings made of the
    /// characters where the two could part: full case folding (ß, ẞ, ﬁ, ı, final sigma), precomposed and decomposed
    /// diacritics, LIKE's wildcards and escapes and SQL's own, quotes, emoji. (Not `İ`: folded for case alone it
    /// becomes `i` and a combining dot that no precomposed letter holds, one Character for Swift's prefix and
    /// wildcard tests and two code points for PostgreSQL's — the one difference known, noted in ARCHITECTURE.md.)
    @Test func stringComparisonIsFoundationsExactly() throws {
        let url = try libraryURL("compare")
        defer { try? PostgreSQLMetadataStore.removeLibrary(url: url) }
        let store = try PostgreSQLMetadataStore.open(url: url)
        let alphabet = [
            "a", "A", "e", "E", "é", "É", "e\u{301}", "E\u{301}", "ß", "ẞ", "ss", "ı", "i", "I", "ﬁ", "Å", "å", "ǰ", "Σ", "ς", "σ",
            "ö", "O\u{308}", "Ø", "*", "?", "\\", "%", "_", "'", "x", "🙂", " ",
        ]
        var random = SplitMix64(seed: 24)
        func word(_ maximum: Int) -> String? {
            if random.next(below: 12) == 0 { return nil }
            return (0..<random.next(below: maximum + 1)).map { _ in alphabet[random.next(below: alphabet.count)] }.joined()
        }
        var disagreements: [String] = []
        var checked = 0
        try store.read { db in
            for _ in 0..<3000 {
                let (lhs, rhs) = (word(5), word(3))
                let operation = random.next(below: 6)
                let options = random.next(below: 4)
                let swift = StringComparison.evaluate(lhs, rhs, operation: operation, options: options)
                let sql = try Bool.fetchOne(db, sql: "SELECT ph_compare(?, ?, ?, ?)", arguments: [lhs, rhs, operation, options])
                checked += 1
                if sql != swift {
                    disagreements.append(
                        "\(lhs.debugDescription) \(rhs.debugDescription) op \(operation) options \(options): Swift \(swift), SQL \(String(describing: sql))"
                    )
                }
            }
        }
        #expect(checked == 3000)
        #expect(disagreements.isEmpty, "\(disagreements.prefix(20).joined(separator: "\n"))")
    }
}

/// Where a PostgreSQL library's password comes from (libpq's rules for `.pgpass`).
@Suite("PostgreSQL passwords")
struct PostgreSQLPasswordTests {
    @Test func passwordFileLinesMatchLikeLibpqs() {
        let file = """
            # comment
            db.example:5432:photos:alice:first
            *:*:photos:bob:with\\:colon\\\\slash
            *:*:*:*:fallback
            """
        #expect(PostgreSQLLocation.password(in: file, host: "db.example", port: 5432, database: "photos", user: "alice") == "first")
        #expect(PostgreSQLLocation.password(in: file, host: "other", port: 6543, database: "photos", user: "bob") == "with:colon\\slash")
        #expect(PostgreSQLLocation.password(in: file, host: "db.example", port: 5433, database: "photos", user: "alice") == "fallback")
        #expect(PostgreSQLLocation.password(in: "h:1:d:u:p", host: "h", port: 2, database: "d", user: "u") == nil)
    }
}
