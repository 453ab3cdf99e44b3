import Foundation
import OpenPhotos
import PhotosTestHarness
import PhotosTesting
import Testing

/// A fetch of a large SQLite library (rows inserted directly): ids stream, objects load in batches.
@Suite("Fetching a large library")
struct LargeFetchTests {
    @Test func largeResultsLoadLazilyInBatches() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try SyntheticLibrary.insertAssets(into: library.url, count: 1_000)
        let result = PHAsset.fetchAssets(with: library.options { $0.includeHiddenAssets = true })
        #expect(result.count == 1_000)
        #expect(result.membershipByteCount <= 1_000 * 16)
        var previous = Date.distantPast
        for asset in result {
            #expect(asset.creationDate! >= previous)
            previous = asset.creationDate!
        }
        #expect(result[999].localIdentifier.hasSuffix("/L0/001"))
    }
}
