import ArgumentParser
import CommandLineSupport
import Foundation
import OpenPhotos
import CHeapStats
import PhotosTestHarness
import PhotosTesting

#if canImport(Glibc)
    import Glibc
#endif

/// The benchmarks: a program of their own, beside `photos` in the build folder (users' binaries carry no benchmark and
/// no test helper). Each measures against its named baseline in the same run; see the README for the commands.
@main
struct PhotosBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "photos-bench",
        abstract: "OpenPhotoKit's benchmarks (build with -c release; the import and serve parts run the photos program beside this one).",
        subcommands: [
            BenchCore.self, BenchChanges.self, BenchImport.self, BenchImages.self, BenchReliability.self, BenchCoreImage.self, BenchEditing.self,
            BenchVideoEditing.self, BenchServe.self, BenchObjects.self, BenchCluster.self, BenchWebVideo.self, BenchSearch.self, BenchBackup.self,
            BenchObserveChild.self, BenchRemote.self,
        ],
        defaultSubcommand: BenchCore.self
    )

    /// The `photos` program built beside this one (the import and serve benchmarks run it as users do).
    static func photosExecutable() throws -> URL {
        let own = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let photos = own.deletingLastPathComponent().appendingPathComponent("photos")
        guard FileManager.default.isExecutableFile(atPath: photos.path) else {
            throw CLIError("no photos program beside \(own.path): build it too (swift build -c release --product photos)")
        }
        return photos
    }
}

struct BenchCore: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "core",
        abstract: "Measure the core library: insert rate, open time, a 1M-asset fetch against raw SQLite, bytes per asset.",
        discussion: "Build with -c release: swift run -c release photos-bench core --assets 1000000")
    @Option(help: "Synthetic assets in the benchmark library.") var assets = 1_000_000
    @Option(help: "Where to build the benchmark library (reused when it already has the assets).") var library =
        "/tmp/openphotokit-bench.photoslibrary"
    @Option(help: "Timed repetitions of each query.") var repetitions = 9
    @Option(help: "Real image files created through performChanges for the change-block rate.") var files = 500
    @Option(
        help:
            "A PostgreSQL server (postgres://user@host:port/database): the library is made there (library bench_core, files in /tmp), against PostgreSQL itself."
    )
    var store: String?
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let url =
            try store.map { base -> URL in
                guard let url = URL(string: "\(base)?library=bench_core&files=/tmp/openphotokit-bench-pg.files") else {
                    throw ValidationError("--store must be a postgres:// URL")
                }
                return url
            } ?? URL(fileURLWithPath: library)
        var results: [String: Any] = ["assets": assets, "store": store == nil ? "sqlite" : "postgresql"]

        // 1. Insert rate (synthetic rows in 20k-row transactions: the store's own write path).
        let existing =
            (try? PHPhotoLibrary(url: url, clientIdentifier: nil)).map { lib -> Int in
                let o = PHFetchOptions()
                o.photoLibrary = lib
                o.includeHiddenAssets = true
                return PHAsset.fetchAssets(with: o).count
            } ?? 0
        if existing != assets {
            try? LibraryStorage.removeLibrary(at: url)
            let seconds = try SyntheticLibrary.insertAssets(into: url, count: assets)
            let rawSeconds: Double
            if store != nil {
                // COPY of the same rows into a table like the library's asset table (its indexes too).
                let scratch = try TestMedia.temporaryDirectory("OpenPhotoKit-bench-copy")
                defer { try? FileManager.default.removeItem(at: scratch) }
                rawSeconds = try RawPostgreSQLBaseline(libraryURL: url).copyAssets(libraryURL: url, count: assets, scratch: scratch)
            } else {
                let rawPath = url.deletingLastPathComponent().appendingPathComponent("openphotokit-bench-raw.sqlite").path
                rawSeconds = RawSQLiteBaseline.insertAssets(
                    databasePath: rawPath, schemaFrom: url.appendingPathComponent("database/Photos.sqlite").path, count: assets)
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: rawPath + suffix) }
            }
            let baseline = store == nil ? "raw SQLite" : "COPY"
            results["insert"] = [
                "rowsPerSecond": Double(assets) / seconds, "baselineRowsPerSecond": Double(assets) / rawSeconds, "baseline": baseline,
                "ratio": seconds / rawSeconds, "rateOfBaseline": rawSeconds / seconds,
            ]
            log(
                String(
                    format:
                        "insert: %d synthetic assets in %.1f s = %.0f rows/s; %@ %.1f s = %.0f rows/s; time ratio %.2f× (rate %.2f of the baseline's)",
                    assets, seconds, Double(assets) / seconds, baseline, rawSeconds, Double(assets) / rawSeconds, seconds / rawSeconds,
                    rawSeconds / seconds))
        } else {
            log("reusing \(url.path) (\(existing) assets); delete it to measure the insert rate again")
        }

        // 2. Time to open the library (a new handle each time: database, migrations check, sweep, trash purge).
        var opens: [Double] = []
        for _ in 0..<21 {
            let start = DispatchTime.now()
            let lib = try PHPhotoLibrary(url: url, clientIdentifier: nil)
            opens.append(ms(since: start))
            _ = lib
        }
        results["openMilliseconds"] = ["median": median(opens), "max": opens.max() ?? 0]
        log(String(format: "open: median %.2f ms, max %.2f ms", median(opens), opens.max() ?? 0))

        // 3. count + first object of `mediaType == image AND favorite == NO` sorted by creationDate descending,
        //    against the same SQL (asserted in FetchSQLTests.benchmarkQuery) through the SQLite C API.
        let handle = try PHPhotoLibrary(url: url, clientIdentifier: nil)
        let options = PHFetchOptions()
        options.photoLibrary = handle
        options.predicate = NSPredicate(format: "mediaType == %d AND favorite == NO", PHAssetMediaType.image.rawValue)
        options.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: false)]
        let sql = """
            SELECT a.id FROM asset a WHERE a.trashed_date IS NULL AND a.is_hidden = 0 AND a.burst_hidden = 0 AND \
            (a.source_type & ?) != 0 AND (a.media_type = ? AND a.is_favorite = ?) ORDER BY a.creation_date DESC, a.id DESC
            """
        let rowSQL = "SELECT * FROM asset WHERE id = ?"
        let databasePath = url.appendingPathComponent("database/Photos.sqlite").path
        // On PostgreSQL: the statement the engine writes (FetchSQLTests asserts the SQLite one), NULL ordered as SQLite
        // orders it, placeholders numbered.
        let postgres = try store.map { _ in try RawPostgreSQLBaseline(libraryURL: url) }
        let postgresSQL = """
            SELECT a.id FROM asset a WHERE a.trashed_date IS NULL AND a.is_hidden = 0 AND a.burst_hidden = 0 AND \
            (a.source_type & $1) != 0 AND (a.media_type = $2 AND a.is_favorite = $3) \
            ORDER BY a.creation_date DESC NULLS LAST, a.id DESC NULLS LAST
            """
        var ours: [Double] = []
        var raw: [Double] = []
        var count = 0
        var rawCount = 0
        for _ in 0..<repetitions {
            var start = DispatchTime.now()
            let result = PHAsset.fetchAssets(with: options)
            count = result.count
            let first = result.firstObject
            ours.append(ms(since: start))
            precondition(first != nil)
            start = DispatchTime.now()
            if let postgres {
                rawCount = try postgres.countAndFirst(sql: postgresSQL, arguments: [1, 1, 0], rowSQL: "SELECT * FROM asset WHERE id = $1")
            } else {
                rawCount = RawSQLiteBaseline.countAndFirst(databasePath: databasePath, sql: sql, arguments: [1, 1, 0], rowSQL: rowSQL).count
            }
            raw.append(ms(since: start))
        }
        precondition(count == rawCount, "the fetch and the baseline disagree: \(count) vs \(rawCount)")
        let ratio = median(ours) / median(raw)
        // The first object alone: a fetch answers with its first page; the count and the rest of the membership
        // come from the same read in the background (waited for after the timing, so runs do not overlap).
        var firsts: [Double] = []
        for _ in 0..<repetitions {
            let start = DispatchTime.now()
            let result = PHAsset.fetchAssets(with: options)
            let first = result.firstObject
            firsts.append(ms(since: start))
            precondition(first != nil)
            precondition(result.count == count)
        }
        results["query"] = [
            "matching": count, "fetchCountFirstMilliseconds": median(ours), "rawSQLiteMilliseconds": median(raw), "ratio": ratio,
            "firstObjectMilliseconds": median(firsts),
        ]
        log(
            String(
                format: "query (%d matching): fetch+count+first %.1f ms, raw %@ %.1f ms, ratio %.2f×", count, median(ours),
                store == nil ? "SQLite" : "PostgreSQL", median(raw), ratio)
        )
        log(
            String(
                format:
                    "first object: %.2f ms (max %.2f; the count and the rest follow from the same read: fetch+count+first %.1f ms, %.2f× raw %@)",
                median(firsts), firsts.max() ?? 0, median(ours), ratio, store == nil ? "SQLite" : "PostgreSQL"))

        // 4. Bytes held per asset by a fetch result (heap growth while it is alive: the id snapshot and the loaded batch).
        let before = heapInUse()
        let held = PHAsset.fetchAssets(with: options)
        _ = held.firstObject
        _ = held.count  // the whole membership read
        let after = heapInUse()
        let perAsset = Double(after - before) / Double(max(held.count, 1))
        // (On PostgreSQL the ids are collected on the store's event loop threads, whose malloc arenas the heap count
        // does not see: the membership's own size is the figure there.)
        let membershipPerAsset = Double(held.membershipByteCount) / Double(max(held.count, 1))
        results["fetchResultBytesPerAsset"] = perAsset
        results["membershipBytesPerAsset"] = membershipPerAsset
        log(
            String(
                format: "fetch result: %.2f bytes per asset of heap growth (%d assets, membership %d bytes = %.2f per asset)", perAsset, held.count,
                held.membershipByteCount, membershipPerAsset))

        // 5. Change blocks with real files: creations per second in one performChanges block.
        if files > 0 {
            let scratch = try TestMedia.temporaryDirectory("OpenPhotoKit-bench")
            defer { try? FileManager.default.removeItem(at: scratch) }
            let targetURL =
                store.flatMap { URL(string: "\($0)?library=bench_files_\(UUID().uuidString.prefix(8).lowercased())&files=\(scratch.path)/files") }
                ?? scratch.appendingPathComponent("Files.photoslibrary")
            defer { try? LibraryStorage.removeLibrary(at: targetURL) }
            let target = try PHPhotoLibrary(url: targetURL, clientIdentifier: nil)
            var urls: [URL] = []
            for i in 0..<files {
                let file = scratch.appendingPathComponent("img-\(i).jpg")
                try TestMedia.writeImage(to: file, width: 640, height: 480)
                urls.append(file)
            }
            let start = DispatchTime.now()
            try target.performChangesAndWait {
                for file in urls { _ = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file) }
            }
            let seconds = ms(since: start) / 1000
            results["performChangesAssetsPerSecond"] = Double(files) / seconds
            log(
                String(
                    format: "performChanges: %d image files (probe, hash, copy, commit) in %.2f s = %.0f assets/s", files, seconds,
                    Double(files) / seconds))
        }
        if json { printBenchJSON(results) }
    }

    private func log(_ line: String) {
        if !json { print(line) }
    }
}

/// How many assets the library at `url` holds, hidden ones included (0 when it cannot be opened): whether a benchmark
/// can reuse the synthetic library it kept from an earlier run.
func assetCount(ofLibraryAt url: URL) -> Int {
    (try? PHPhotoLibrary(url: url, clientIdentifier: nil)).map { library -> Int in
        let options = PHFetchOptions()
        options.photoLibrary = library
        options.includeHiddenAssets = true
        return PHAsset.fetchAssets(with: options).count
    } ?? 0
}

func printBenchJSON(_ value: Any) {
    let data = (try? JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys])) ?? Data()
    print(String(decoding: data, as: UTF8.self))
}

func ms(since start: DispatchTime) -> Double {
    Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000
}

/// Times `ours` and `theirs` `repetitions` times each, after one warm-up each, alternating which goes first; their
/// medians in milliseconds.
func alternatingMedians(repetitions: Int, _ ours: () throws -> Void, _ theirs: () throws -> Void) throws -> (Double, Double) {
    var a: [Double] = [], b: [Double] = []
    try ours()
    try theirs()
    for repetition in 0..<repetitions {
        let order = repetition % 2 == 0
        for first in [order, !order] {
            let start = DispatchTime.now()
            if first { try ours() } else { try theirs() }
            (first ? { a.append(ms(since: start)) } : { b.append(ms(since: start)) })()
        }
    }
    return (median(a), median(b))
}

/// An asset of `library` by local identifier (hidden ones included).
func fetchAsset(_ identifier: String, in library: PHPhotoLibrary) throws -> PHAsset {
    let options = PHFetchOptions()
    options.photoLibrary = library
    options.includeHiddenAssets = true
    guard let asset = PHAsset.fetchAssets(withLocalIdentifiers: [identifier], options: options).firstObject else {
        throw CLIError("no asset \(identifier)")
    }
    return asset
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

/// Bytes allocated on the heap now.
func heapInUse() -> Int {
    Int(heapstats_allocated_bytes())
}
