import Foundation
import OpenPhotos
import PhotosTestHarness
import PhotosTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A library on PostgreSQL made before search (schema v7) is migrated by the first process that opens it — the
/// search table (v8), its documents written for every asset, their dates and the trigger that keeps them (v14), in
/// one transaction under the writer lock. `photos` processes opening it are killed with SIGKILL while that
/// transaction is open: each kill leaves the library as it was before (nothing of v8 or v14, neither recorded), and
/// the next open migrates it whole.
@Suite("Reliability: a migration killed mid-way")
struct MigrationKillTests {
    struct Outcome: Sendable {
        var kills = 0
        /// Kills that came while the migration's transaction was open (its lock on `asset` held).
        var midway = 0
        /// Opens that finished the migration before the kill came.
        var finished = 0
        /// States after a kill that were neither before nor after the migration.
        var inconsistencies: [String] = []
        var searchAfter: [String] = []
        var expectedSearch: [String] = []
        /// What the open after the campaign left wrong.
        var problems: [String] = []
    }

    @Test(arguments: LibraryProviders.all.filter { $0 is PostgreSQLLibraryProvider })
    func aMigrationKilledMidwayIsUndoneWholeAndDoneWholeByTheNextOpen(_ provider: any LibraryProvider) async throws {
        let outcome = try await blockingOffThePool { try Self.campaign(provider) }
        #expect(outcome.inconsistencies.isEmpty, "\(outcome.inconsistencies)")
        #expect(outcome.midway >= 3, "\(outcome.midway) of \(outcome.kills) kills came while the migration ran")
        #expect(outcome.searchAfter == outcome.expectedSearch)
        #expect(outcome.problems.isEmpty, "\(outcome.problems)")
    }

    /// Statements that take a library back to v7 (what `SearchIndexMigrationTests` does through the engine).
    static let backToV7 = [
        "DROP TRIGGER IF EXISTS asset_search_date ON asset", "DROP FUNCTION IF EXISTS asset_search_date_changed()",
        "DROP TABLE IF EXISTS asset_search", "DELETE FROM schema_migrations WHERE identifier IN ('v8-search', 'v14-search-date')",
    ]

    static func campaign(_ provider: any LibraryProvider) throws -> Outcome {
        let library = try TestLibrary(name: "MigrationKill", provider: provider)
        defer { library.remove() }
        let ids = try library.addImages(2) { index, request in
            if index == 1 { request.addKeyword("Lighthouse") }
        }
        // Enough assets that writing their documents takes a while: the kills land inside it.
        try SyntheticLibrary.insertAssets(into: library.url, count: 40_000)
        let raw = try RawPostgreSQLBaseline(libraryURL: library.url)
        let assets = try raw.integer("SELECT count(*) FROM asset") ?? -1
        let schema = raw.schema.replacingOccurrences(of: "'", with: "''")
        // Only the migrating transaction takes this lock (CREATE TRIGGER's, v14's, before the documents are written).
        let migrating = """
            SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = '\(schema)' AND c.relname = 'asset' AND l.mode = 'ShareRowExclusiveLock' AND l.granted
            """
        var outcome = Outcome()
        var random = SystemRandomNumberGenerator()
        let photos = ChildProcess.builtProduct("photos")
        for _ in 0..<12 where outcome.midway < 4 {
            for statement in backToV7 { try raw.execute(statement) }
            let child = try ChildProcess(photos, ["ls", "--library", library.url.absoluteString, "--search", "lighthouse", "--json"])
            var seen = false
            while !seen, !child.hasEnded {
                seen = try raw.integer(migrating) ?? 0 > 0
                if !seen { usleep(1000) }
            }
            // A random instant of the migration's work (its documents take seconds here).
            if seen { usleep(UInt32.random(in: 0...400_000, using: &random)) }
            let wasRunning = !child.hasEnded
            child.kill()
            let ended = child.wait(samplingMemory: false)
            outcome.kills += 1
            // Until the killed process's transaction has ended on the server (rolled back, or committed if its COMMIT
            // was already sent), so that what is read next is what stays.
            while try raw.integer(migrating) ?? 0 > 0 { usleep(1000) }
            // Whole either way: before the migration (nothing of it) or after it (all of it).
            let recorded =
                try raw.integer(
                    "SELECT count(*) FROM schema_migrations WHERE identifier IN ('v8-search', 'v14-search-date')") ?? -1
            let table = try raw.integer("SELECT count(*) FROM pg_tables WHERE schemaname = '\(schema)' AND tablename = 'asset_search'") ?? -1
            let trigger = try raw.integer("SELECT count(*) FROM pg_trigger WHERE tgname = 'asset_search_date' AND tgrelid = 'asset'::regclass") ?? -1
            if recorded == 0, table == 0, trigger == 0 {
                if seen, wasRunning, ended.wasSignalled { outcome.midway += 1 }
            } else if recorded == 2, table == 1, trigger == 1 {
                let documents = try raw.integer("SELECT count(*) FROM asset_search") ?? -1
                let dated =
                    try raw.integer(
                        "SELECT count(*) FROM asset a JOIN asset_search s ON s.asset_id = a.id WHERE s.creation_date IS NOT DISTINCT FROM a.creation_date"
                    ) ?? -1
                if documents != assets || dated != assets {
                    outcome.inconsistencies.append("migrated with \(documents) documents (\(dated) dated as their assets) of \(assets) assets")
                }
                outcome.finished += 1
            } else {
                outcome.inconsistencies.append("after a kill: \(recorded) of v8/v14 recorded, asset_search \(table), its trigger \(trigger)")
            }
        }
        // The next open migrates it whole, and search answers.
        let reopened = try PHPhotoLibrary(url: library.url, clientIdentifier: nil)
        let options = PHFetchOptions()
        options.photoLibrary = reopened
        options.searchText = "lighthouse"
        outcome.searchAfter = PHAsset.fetchAssets(with: options).map(\.localIdentifier)
        outcome.expectedSearch = [ids[1]]
        let documents = try raw.integer("SELECT count(*) FROM asset_search") ?? -1
        if documents != assets { outcome.problems.append("\(documents) documents of \(assets) assets after the last open") }
        return outcome
    }
}
