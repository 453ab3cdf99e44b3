import Foundation
import PhotoLibraryEngine
import PhotosTestHarness
import PhotosTesting
import Testing

/// A fetch answers with its first page and reads the rest of its membership from the same read transaction in the
/// background: what commits meanwhile is not in it (PhotoKit's fetch results are frozen at fetch time).
@Suite("Streamed fetches")
struct StreamedFetchTests {
    let owner = AccessContext(clientID: nil, grant: nil, libraryIsReadOnly: false)

    @Test func theMembershipIsTheStateTheFetchSawWhateverCommitsMeanwhile() async throws {
        let library = try TestLibrary(name: "StreamedFetch")
        defer { library.remove() }
        try SyntheticLibrary.insertAssets(into: library.url, count: 1_000)
        let engine = try LibraryEngine.open(at: library.url)
        let before = try engine.fetchAssetIDs(scope: .library, options: FetchOptionsSpec(), access: owner)
        let n = before.count  // the library's scope leaves the hidden ones out
        #expect(n > 900 && n < 1_000)

        // The background read is held after its first page until the commit below is done: deterministic.
        let gate = DispatchSemaphore(value: 0)
        let (stream, version) = try engine.streamAssetIDs(
            scope: .library, options: FetchOptionsSpec(), access: owner, firstPage: 10, afterFirstPage: { gate.wait() })
        #expect(!stream.isComplete, "the rest is still to come")
        #expect(stream.expectedCount == n, "counted by the tallies in the fetch's read")
        #expect(stream.ids(in: 0..<10) == before[0..<10] && stream.id(at: 0) == before[0])
        #expect(version == (try engine.changeHistoryBounds().current))

        // Another connection deletes 30 assets and commits while the fetch's read is open.
        try await blockingOffThePool {
            _ = try engine.metadata.write { db in try db.execute(sql: "DELETE FROM asset WHERE id IN (SELECT id FROM asset ORDER BY id LIMIT 30)") }
        }
        let now = try engine.fetchAssetIDs(scope: .library, options: FetchOptionsSpec(), access: owner)
        #expect(now.count < n && Set(now).isSubset(of: Set(before)), "the commit is visible to a new fetch")
        gate.signal()
        // On a thread of its own: `all` waits for the background read.
        let all = try await blockingOffThePool { stream.all }
        #expect(all == before && stream.count == n, "the membership and its count are the state the fetch read")
        #expect(stream.isComplete && stream.id(at: n) == nil && stream.ids(in: n - 5..<n + 10).count == 5)
    }

    @Test func aFetchSmallerThanItsFirstPageIsCompleteAtOnce() throws {
        let library = try TestLibrary(name: "StreamedSmall")
        defer { library.remove() }
        try SyntheticLibrary.insertAssets(into: library.url, count: 7)
        let engine = try LibraryEngine.open(at: library.url)
        let (stream, _) = try engine.streamAssetIDs(scope: .library, options: FetchOptionsSpec(), access: owner)
        #expect(stream.isComplete && stream.all.count == 7 && stream.id(at: 7) == nil)
    }
}
