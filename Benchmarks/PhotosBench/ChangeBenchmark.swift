import ArgumentParser
import CommandLineSupport
import Foundation
import OpenPhotos
import PhotosTestHarness
import PhotosTesting

struct BenchChanges: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes",
        abstract: "Measure change details: a large observed fetch result and transactions of many mixed changes.",
        discussion: """
            For each size, a synthetic library is built, an observer holds `favorite == NO` sorted by creationDate
            descending, and transactions of mixed changes (favorite toggles, new creation dates, hides, deletions,
            new locations, new photos from files) are committed. Reported: the time to compute the fetch result's
            details for the transaction (the observer's call), the same for a result one transaction old (details
            then span two transactions), the time to just run the fetch again (what reloading would cost), and the
            heap the observed result holds; then the delay from a commit to its observer in another process (a
            child process of this program prints when its observer is called). Build with -c release:
            swift run -c release photos-bench changes --sizes 100000,1000000,2000000
            """)
    @Option(help: "Library sizes (synthetic assets), comma-separated.") var sizes = "100000,1000000,2000000"
    @Option(help: "Transactions measured per size.") var repetitions = 5
    @Option(help: "Changes per transaction.") var changes = 1000
    @Option(help: "One-asset commits whose delay to an observer in another process is measured, per size.")
    var observerCommits = 200
    @Option(help: "Folder for the benchmark libraries (rebuilt each run).") var directory = "/tmp"
    @Option(help: "A PostgreSQL server (postgres://user@host:port/database) to build the libraries on, their files in --directory.")
    var store: String?
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let sizeList = sizes.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !sizeList.isEmpty, changes >= 10 else { throw CLIError("give --sizes as numbers and --changes ≥ 10") }
        var rows: [[String: Any]] = []
        for size in sizeList { rows.append(try measure(size: size)) }
        if let first = rows.first, let base = first["incrementalMilliseconds"] as? Double, let n0 = first["assets"] as? Int {
            for i in rows.indices {
                let n = rows[i]["assets"] as? Int ?? 1
                let t = rows[i]["incrementalMilliseconds"] as? Double ?? 0
                rows[i]["timeGrowth"] = t / base
                rows[i]["sizeGrowth"] = Double(n) / Double(n0)
            }
        }
        if json {
            printBenchJSON(["changesPerTransaction": changes, "sizes": rows])
        } else {
            for row in rows {
                print(
                    String(
                        format: "%8d assets: growth ×%.1f in size, ×%.2f in time", row["assets"] as? Int ?? 0, row["sizeGrowth"] as? Double ?? 0,
                        row["timeGrowth"] as? Double ?? 0))
            }
        }
    }

    private func measure(size: Int) throws -> [String: Any] {
        let folder = URL(fileURLWithPath: directory).appendingPathComponent("openphotokit-bench-changes-\(size).photoslibrary")
        let url =
            try store.map { base -> URL in
                guard let url = URL(string: "\(base)?library=bench_changes_\(size)&files=\(folder.path)") else {
                    throw ValidationError("--store must be a postgres:// URL")
                }
                return url
            } ?? folder
        try? LibraryStorage.removeLibrary(at: url)
        defer { try? LibraryStorage.removeLibrary(at: url) }
        let scratch = try TestMedia.temporaryDirectory("OpenPhotoKit-bench-changes")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let insertSeconds = try SyntheticLibrary.insertAssets(into: url, count: size)
        log(String(format: "%d assets: library built in %.1f s", size, insertSeconds))

        let library = try PHPhotoLibrary(url: url, clientIdentifier: nil)
        let options = PHFetchOptions()
        options.photoLibrary = library
        options.predicate = NSPredicate(format: "favorite == NO")
        options.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: false)]
        let everything = PHFetchOptions()
        everything.photoLibrary = library
        everything.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: true)]

        // The observed result, and the heap it holds while observed.
        let heapBefore = heapInUse()
        let observed = PHAsset.fetchAssets(with: options)
        _ = observed.firstObject
        let probe = DetailsProbe(observed)
        library.register(probe)
        defer { library.unregisterChangeObserver(probe) }
        let heapObserved = heapInUse() - heapBefore
        let observedCount = observed.count

        var rng = SplitMix64(seed: UInt64(size))
        var incremental: [Double] = []
        var stale: [Double] = []
        var refetch: [Double] = []
        var shapes: [String] = []
        var detailsHeap = 0
        for repetition in 0..<repetitions {
            // A result one transaction old takes the other path: the fetch runs again and the lists are compared.
            let old = PHAsset.fetchAssets(with: options)
            _ = old.count
            try library.performChangesAndWait {
                _ = PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Bench \(repetition)")
            }
            _ = try probe.next()

            let block = try mixedChanges(library: library, everything: everything, scratch: scratch, repetition: repetition, rng: &rng)
            probe.stale = old
            try library.performChangesAndWait(block)
            let sample = try probe.next()
            incremental.append(sample.incrementalMilliseconds)
            stale.append(sample.staleMilliseconds ?? 0)
            detailsHeap = max(detailsHeap, sample.heapGrowth)
            shapes.append(sample.shape)

            let start = DispatchTime.now()
            let again = PHAsset.fetchAssets(with: options)
            precondition(again.count == sample.count, "details and a new fetch disagree: \(sample.count) vs \(again.count)")
            refetch.append(ms(since: start))
        }
        // Commit to observer in another process.
        let delays = try crossProcessObserverDelays(library: library, url: url, commits: observerCommits).sorted()
        func percentile(_ p: Double) -> Double { delays.isEmpty ? .nan : delays[min(delays.count - 1, Int(Double(delays.count) * p))] }

        // What the observed result holds after the changes: the heap it gives back when it goes.
        let heapWithResult = heapInUse()
        probe.release()
        let heapAfter = heapWithResult - heapInUse()
        log(
            String(
                format:
                    "%d assets (%d observed): details of %d mixed changes %.2f ms median (max %.2f); result one transaction old %.1f ms; fetch again %.1f ms",
                size, observedCount, changes, median(incremental), incremental.max() ?? 0, median(stale), median(refetch)))
        log("  per transaction: " + shapes.joined(separator: "; "))
        log(
            String(
                format: "  commit to observer in another process (%d commits): p50 %.2f ms, p99 %.2f ms, max %.2f ms", delays.count,
                percentile(0.5), percentile(0.99), delays.last ?? Double.nan))
        log(
            String(
                format:
                    "  heap: %.2f bytes/asset to fetch and observe the result; %.2f bytes/asset held by it after %d transactions; computing details adds at most %.2f bytes/asset while the old result is alive",
                Double(heapObserved) / Double(observedCount), Double(heapAfter) / Double(observedCount), repetitions,
                Double(detailsHeap) / Double(observedCount)))
        return [
            "assets": size, "observedCount": observedCount, "incrementalMilliseconds": median(incremental),
            "incrementalMaxMilliseconds": incremental.max() ?? 0, "staleResultMilliseconds": median(stale),
            "fetchAgainMilliseconds": median(refetch), "observedBytesPerAsset": Double(heapObserved) / Double(observedCount),
            "observedBytesPerAssetAfterChanges": Double(heapAfter) / Double(observedCount),
            "detailsBytesPerAsset": Double(detailsHeap) / Double(observedCount), "transactions": shapes,
            "observerDelayP50Milliseconds": percentile(0.5), "observerDelayP99Milliseconds": percentile(0.99),
            "observerDelayMaxMilliseconds": delays.last ?? 0,
        ]
    }

    /// One transaction of `changes` mixed changes on distinct assets: 25% favorite toggles, 25% new creation
    /// dates, 15% hides, 15% deletions, 10% new locations, 10% new photos from files.
    private func mixedChanges(
        library: PHPhotoLibrary, everything: PHFetchOptions, scratch: URL, repetition: Int, rng: inout SplitMix64
    ) throws -> () -> Void {
        let all = PHAsset.fetchAssets(with: everything)
        let newFiles = changes / 10
        var picked = Set<Int>()
        while picked.count < changes - newFiles { picked.insert(Int.random(in: 0..<all.count, using: &rng)) }
        let assets = picked.shuffled(using: &rng).map { all[$0] }
        var files: [URL] = []
        for i in 0..<newFiles {
            let file = scratch.appendingPathComponent("new-\(repetition)-\(i).jpg")
            try TestMedia.writeImage(to: file, width: 32 + i, height: 24 + repetition)
            files.append(file)
        }
        let quarter = changes / 4
        let tenth = changes / 10
        let fifteenth = changes * 15 / 100
        let dates = (0..<quarter).map { _ in Date(timeIntervalSince1970: Double.random(in: 1_300_000_000...1_750_000_000, using: &rng)) }
        return {
            var index = 0
            func take(_ count: Int) -> ArraySlice<PHAsset> {
                defer { index += count }
                return assets[index..<min(index + count, assets.count)]
            }
            for asset in take(quarter) { PHAssetChangeRequest(for: asset).isFavorite = !asset.isFavorite }
            for (asset, date) in zip(take(quarter), dates) { PHAssetChangeRequest(for: asset).creationDate = date }
            for asset in take(fifteenth) { PHAssetChangeRequest(for: asset).isHidden = true }
            PHAssetChangeRequest.deleteAssets(Array(take(fifteenth)) as NSArray)
            for asset in take(tenth) { PHAssetChangeRequest(for: asset).location = CLLocation(latitude: 48.85, longitude: 2.35) }
            for asset in take(assets.count - index) { PHAssetChangeRequest(for: asset).isFavorite = !asset.isFavorite }
            for file in files { _ = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file) }
        }
    }

    private func log(_ line: String) {
        if !json { print(line) }
    }
}

/// The benchmark's observer: computes the details of each change for the result it holds, timed.
private final class DetailsProbe: NSObject, PHPhotoLibraryChangeObserver, @unchecked Sendable {
    struct Sample {
        var incrementalMilliseconds: Double
        var staleMilliseconds: Double?
        /// Heap growth from computing the details (the new result and the index sets) while the old result lives.
        var heapGrowth: Int
        var count: Int
        var shape: String
    }

    private let lock = NSLock()
    private let arrived = DispatchSemaphore(value: 0)
    private var result: PHFetchResult<PHAsset>
    private var samples: [Sample] = []
    /// A result to compute details for as well, once.
    var stale: PHFetchResult<PHAsset>? {
        get { lock.withLock { staleResult } }
        set { lock.withLock { staleResult = newValue } }
    }
    private var staleResult: PHFetchResult<PHAsset>?

    init(_ result: PHFetchResult<PHAsset>) { self.result = result }

    func photoLibraryDidChange(_ changeInstance: PHChange) {
        let (current, old) = lock.withLock { () -> (PHFetchResult<PHAsset>, PHFetchResult<PHAsset>?) in
            defer { staleResult = nil }
            return (result, staleResult)
        }
        let heapBefore = heapInUse()
        var start = DispatchTime.now()
        let details = changeInstance.changeDetails(for: current)
        let incremental = ms(since: start)
        let heap = heapInUse() - heapBefore
        var staleTime: Double?
        if let old {
            start = DispatchTime.now()
            _ = changeInstance.changeDetails(for: old)
            staleTime = ms(since: start)
        }
        let after = details?.fetchResultAfterChanges ?? current
        var moves = 0
        details?.enumerateMoves { _, _ in moves += 1 }
        let shape =
            details.map {
                "-\($0.removedIndexes?.count ?? 0) +\($0.insertedIndexes?.count ?? 0) ~\($0.changedIndexes?.count ?? 0) ↕\(moves)"
            } ?? "none"
        lock.withLock {
            result = after
            samples.append(
                Sample(incrementalMilliseconds: incremental, staleMilliseconds: staleTime, heapGrowth: heap, count: after.count, shape: shape))
        }
        arrived.signal()
    }

    struct Timeout: Error {}

    /// Drops the result (to measure what it held).
    func release() {
        lock.withLock { result = PHFetchResult() }
    }

    func next() throws -> Sample {
        guard arrived.wait(timeout: .now() + 600) == .success else { throw Timeout() }
        return lock.withLock { samples.removeFirst() }
    }
}
