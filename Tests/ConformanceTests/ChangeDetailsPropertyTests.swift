import Photos
import Foundation
import PhotosTesting
import Testing

@Suite("Change details, property-based")
struct ChangeDetailsPropertyTests {
    /// Random change blocks against several fetches: after every step, applying the details to the previous
    /// identifiers (RICE order, moves included) gives exactly the new fetch, and a result the step did not affect
    /// gets nil. One more result is asked about only every third step, so its details span several transactions.
    @Test(arguments: LibraryProviders.conformance, [1, 2, 3, 4, 5, 6] as [UInt64])
    func detailsTurnTheOldResultIntoTheNewOne(_ provider: any LibraryProvider, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)  // a failing sequence replays from its seed
        let library = try TestLibrary(provider: provider)
        defer { library.remove() }
        let photo = try Data(contentsOf: try library.makeImage())
        var ids = try library.addImages(8, step: 600)
        var albumID = ""
        try library.library.performChangesAndWait {
            albumID =
                PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Album")
                .placeholderForCreatedAssetCollection.localIdentifier
        }
        let album = try #require(PHAssetCollection.fetchAssetCollections(withLocalIdentifiers: [albumID], options: library.options()).firstObject)
        let recorder = ChangeRecorder()
        library.library.register(recorder)
        defer { library.library.unregisterChangeObserver(recorder) }

        let fetches: [() -> PHFetchResult<PHAsset>] = [
            { PHAsset.fetchAssets(with: library.options()) },
            { PHAsset.fetchAssets(with: library.options { $0.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: false)] }) },
            {
                PHAsset.fetchAssets(
                    with: library.options {
                        $0.predicate = NSPredicate(format: "favorite == YES OR pixelWidth > %d", 1000)
                        $0.sortDescriptors = [NSSortDescriptor(key: "modificationDate", ascending: true)]
                    })
            },
            { PHAsset.fetchAssets(with: library.options { $0.includeHiddenAssets = true }) },
            { PHAsset.fetchAssets(in: album, options: nil) },
        ]
        var results = fetches.map { $0() }
        let laggingFetch = fetches[1]
        var lagging = laggingFetch()

        for step in 0..<40 {
            let all = PHAsset.fetchAssets(withLocalIdentifiers: ids, options: library.options { $0.includeHiddenAssets = true })
            let members = PHAsset.fetchAssets(in: album, options: nil)
            let operation = Int.random(in: 0..<8, using: &random)
            let pick = all.count > 0 ? all[Int.random(in: 0..<all.count, using: &random)] : nil
            let date = Date(timeIntervalSince1970: 1_700_000_000 + Double(Int.random(in: 0..<10_000, using: &random)))
            var created: String?
            try library.library.performChangesAndWait {
                switch (operation, pick) {
                case (0, _), (_, nil):
                    let request = PHAssetCreationRequest.forAsset()
                    request.addResource(with: .photo, data: photo, options: nil)
                    request.creationDate = date
                    created = request.placeholderForCreatedAsset?.localIdentifier
                case (1, let asset?): PHAssetChangeRequest.deleteAssets([asset] as NSArray)
                case (2, let asset?): PHAssetChangeRequest(for: asset).isFavorite = !asset.isFavorite
                case (3, let asset?): PHAssetChangeRequest(for: asset).isHidden = !asset.isHidden
                case (4, let asset?): PHAssetChangeRequest(for: asset).creationDate = date
                case (5, let asset?) where !members.contains(asset):
                    PHAssetCollectionChangeRequest(for: album, assets: members)!.insertAssets(
                        [asset] as NSArray, at: [Int.random(in: 0...members.count, using: &random)])
                case (6, _) where members.count > 1:
                    PHAssetCollectionChangeRequest(for: album, assets: members)!.moveAssets(
                        at: [Int.random(in: 0..<members.count, using: &random)], to: Int.random(in: 0..<members.count, using: &random))
                case (7, let asset?):
                    // Two changes in one transaction: a property and an album removal.
                    PHAssetChangeRequest(for: asset).creationDate = date
                    if members.count > 0 { PHAssetCollectionChangeRequest(for: album, assets: members)!.removeAssets(at: [0]) }
                default:
                    PHAssetChangeRequest(for: all[0]).isFavorite = !all[0].isFavorite
                }
            }
            if let created { ids.append(created) }
            let change = try recorder.next()
            for (index, old) in results.enumerated() {
                let fresh = fetches[index]()
                guard let details = change.changeDetails(for: old) else {
                    #expect(identifiers(fresh) == identifiers(old), "step \(step) fetch \(index): nil details but the fetch changed")
                    continue
                }
                let after = identifiers(details.fetchResultAfterChanges)
                #expect(after == identifiers(fresh), "step \(step) fetch \(index): fetchResultAfterChanges differs from a new fetch")
                #expect(applying(details, to: identifiers(old)) == after, "step \(step) fetch \(index): \(details)")
                #expect((details.changedIndexes ?? []).allSatisfy { $0 < after.count })
                results[index] = details.fetchResultAfterChanges
            }
            if step % 3 == 2, let details = change.changeDetails(for: lagging) {
                let after = identifiers(details.fetchResultAfterChanges)
                #expect(after == identifiers(laggingFetch()), "step \(step) lagging fetch: fetchResultAfterChanges differs from a new fetch")
                #expect(applying(details, to: identifiers(lagging)) == after, "step \(step) lagging fetch: \(details)")
                lagging = details.fetchResultAfterChanges
            }
        }
    }
}
