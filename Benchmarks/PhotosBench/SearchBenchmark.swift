import ArgumentParser
import CommandLineSupport
import Foundation
import OpenPhotos
import PhotoLibraryEngine
import PhotosTestHarness
import PhotosTesting

/// Search at scale: a library of synthetic assets with generated captions and keywords (words drawn from a
/// Zipf-like distribution over a made-up vocabulary, as real captions repeat a few words often and many rarely),
/// searched with two-word queries: the first page as the gallery and `GET /v1/assets?q=` ask for it, and the whole
/// `PHFetchResult` (count and first object) as the PhotoKit API gives it.
struct BenchSearch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Two-word searches of a 1M-asset library with generated captions and keywords: p50 and p99 latency.",
        discussion: "swift build -c release --product photos-bench && .build/release/photos-bench search [--store postgres://…]")
    @Option(help: "Synthetic assets in the benchmark library.") var assets = 1_000_000
    @Option(help: "Where to build the SQLite benchmark library (reused when it already has the assets).") var library =
        "/tmp/openphotokit-search.photoslibrary"
    @Option(help: "A PostgreSQL server (postgres://user@host:port/database): the library is made there (library bench_search).")
    var store: String?
    @Option(help: "Timed two-word queries.") var queries = 300
    @Flag(help: "Print JSON.") var json = false
    @Option(help: "Print each query slower than this many milliseconds (first page or whole result).") var showSlowerThan: Double?

    /// Made-up words: consonant-vowel syllables, deterministic.
    static func vocabulary(_ count: Int) -> [String] {
        let onsets = ["b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "sh", "tr"]
        let vowels = ["a", "e", "i", "o", "u", "ai"]
        var random = SplitMix64(seed: 7)
        var words: [String] = []
        var seen = Set<String>()
        while words.count < count {
            let syllables = 2 + random.next(below: 2)
            let word = (0..<syllables).map { _ in onsets[random.next(below: onsets.count)] + vowels[random.next(below: vowels.count)] }.joined()
            if seen.insert(word).inserted { words.append(word) }
        }
        return words
    }

    /// An index into `count` words, rank r drawn with weight 1/(r+1) (Zipf, s = 1).
    struct Zipf {
        let cumulative: [Double]
        init(_ count: Int) {
            var total = 0.0
            cumulative = (0..<count).map { rank in
                total += 1 / Double(rank + 1)
                return total
            }
        }
        func draw(_ random: inout SplitMix64) -> Int {
            let u = Double(random.next() % 1_000_000_007) / 1_000_000_007 * cumulative.last!
            var (low, high) = (0, cumulative.count - 1)
            while low < high {
                let mid = (low + high) / 2
                if cumulative[mid] < u { low = mid + 1 } else { high = mid }
            }
            return low
        }
    }

    func run() throws {
        let url =
            try store.map { base -> URL in
                guard let url = URL(string: "\(base)?library=bench_search&files=/tmp/openphotokit-search-pg.files") else {
                    throw ValidationError("--store must be a postgres:// URL")
                }
                return url
            } ?? URL(fileURLWithPath: library)
        let words = Self.vocabulary(5_000)
        let zipf = Zipf(words.count)
        let keywordZipf = Zipf(300)

        if assetCount(ofLibraryAt: url) != assets {
            try? LibraryStorage.removeLibrary(at: url)
            let start = Date()
            try SyntheticLibrary.insertAssets(into: url, count: assets)
            // Captions of 4–10 words and 0–4 keywords per asset, then the engine's own index refresh, in batches.
            let engine = try LibraryEngine.open(at: url)
            var random = SplitMix64(seed: 11)
            var after: Int64 = 0
            while true {
                let ids = try engine.metadata.read { db in
                    try Int64.fetchAll(db, sql: "SELECT id FROM asset WHERE id > ? ORDER BY id LIMIT 20000", arguments: [after])
                }
                guard let last = ids.last else { break }
                var captions: [[SQLValue]] = []
                var keywords: [[SQLValue]] = []
                for id in ids {
                    let length = 4 + random.next(below: 7)
                    captions.append([.integer(id), .text((0..<length).map { _ in words[zipf.draw(&random)] }.joined(separator: " "))])
                    var chosen = Set<Int>()
                    for _ in 0..<random.next(below: 5) { chosen.insert(keywordZipf.draw(&random)) }
                    for (position, word) in chosen.sorted().enumerated() {
                        keywords.append([.integer(id), .text(words[word].capitalized), .integer(Int64(position))])
                    }
                }
                try engine.metadata.write { db in
                    try db.execute(sql: "CREATE TEMPORARY TABLE IF NOT EXISTS bench_caption (id BIGINT PRIMARY KEY, caption TEXT)")
                    try db.execute(sql: "DELETE FROM bench_caption")
                    try db.insertRows(into: "bench_caption", columns: ["id", "caption"], rows: captions)
                    try db.execute(
                        sql:
                            "UPDATE asset SET caption = (SELECT caption FROM bench_caption b WHERE b.id = asset.id) WHERE id IN (SELECT id FROM bench_caption)"
                    )
                    try db.insertRows(into: "asset_keyword", columns: ["asset_id", "keyword", "position"], rows: keywords)
                    try SearchIndex.refresh(ids, db: db)
                }
                after = last
            }
            if store == nil {
                try engine.metadata.write { db in try db.execute(sql: "INSERT INTO asset_search (asset_search) VALUES ('optimize')") }
            } else {
                try engine.metadata.write { db in try db.execute(sql: "ANALYZE") }
            }
            log(String(format: "made %d assets with captions and keywords in %.0f s", assets, Date().timeIntervalSince(start)))
        } else {
            log("reusing \(url) (\(assets) assets)")
        }

        let handle = try PHPhotoLibrary(url: url, clientIdentifier: nil)
        var random = SplitMix64(seed: 99)
        // Two words each: the first from the caption vocabulary or a keyword, the second from captions; Zipf-drawn, so
        // queries range from common pairs (thousands of results) to rare ones (none).
        let texts = (0..<(queries + 30)).map { index -> String in
            let first = index % 3 == 0 ? words[keywordZipf.draw(&random)].capitalized : words[zipf.draw(&random)]
            return "\(first) \(words[zipf.draw(&random)].prefix(4))"
        }
        var page: [Double] = []
        var whole: [Double] = []
        var matches: [Int] = []
        for (index, text) in texts.enumerated() {
            let options = PHFetchOptions()
            options.photoLibrary = handle
            options.searchText = text
            var start = DispatchTime.now()
            let first = try handle.fetchAssetPage(options: options, cursor: nil, limit: 100)
            _ = first.assets.firstObject?.localIdentifier
            let pageTime = ms(since: start)
            start = DispatchTime.now()
            let result = PHAsset.fetchAssets(with: options)
            let count = result.count
            _ = result.firstObject?.localIdentifier
            let wholeTime = ms(since: start)
            if let error = result.fetchError { throw CLIError("the search '\(text)' failed: \(error)") }
            if let limit = showSlowerThan, pageTime > limit || wholeTime > limit {
                log(String(format: "slow: '%@' %d matches: first page %.1f ms, whole %.1f ms", text, count, pageTime, wholeTime))
            }
            if index >= 30 {  // the first queries warm the caches
                page.append(pageTime)
                whole.append(wholeTime)
                matches.append(count)
            }
        }
        func percentile(_ values: [Double], _ p: Double) -> Double {
            let sorted = values.sorted()
            return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
        }
        let sortedMatches = matches.sorted()
        let results: [String: Any] = [
            "assets": assets, "store": store == nil ? "sqlite" : "postgresql", "queries": page.count,
            "firstPageMilliseconds": ["p50": percentile(page, 0.5), "p99": percentile(page, 0.99), "max": page.max() ?? 0],
            "wholeResultMilliseconds": ["p50": percentile(whole, 0.5), "p99": percentile(whole, 0.99), "max": whole.max() ?? 0],
            "matches": ["median": sortedMatches[sortedMatches.count / 2], "max": sortedMatches.last ?? 0, "none": matches.filter { $0 == 0 }.count],
        ]
        log(
            String(
                format:
                    "search (%@, %d assets, %d two-word queries; matches: median %d, max %d, %d none): first page p50 %.1f ms, p99 %.1f ms; whole result (count + first) p50 %.1f ms, p99 %.1f ms",
                store == nil ? "SQLite" : "PostgreSQL", assets, page.count, sortedMatches[sortedMatches.count / 2], sortedMatches.last ?? 0,
                matches.filter { $0 == 0 }.count, percentile(page, 0.5), percentile(page, 0.99), percentile(whole, 0.5), percentile(whole, 0.99)))
        if json { print(String(decoding: try JSONSerialization.data(withJSONObject: results, options: [.sortedKeys]), as: UTF8.self)) }
    }

    private func log(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
