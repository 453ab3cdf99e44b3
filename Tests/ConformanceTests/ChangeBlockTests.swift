import Photos
import Foundation
import PhotosTesting
import Testing

@Suite("Change blocks")
struct ChangeBlockTests {
    @Test(arguments: LibraryProviders.conformance) func performChangesRunsOffTheCallersThreadAndReportsSuccess(_ provider: any LibraryProvider)
        async throws
    {
        let library = try TestLibrary(provider: provider)
        defer { library.remove() }
        let file = try library.makeImage()
        let outcome: (Bool, String?) = await withCheckedContinuation { continuation in
            library.library.performChanges(
                {
                    _ = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)
                },
                completionHandler: { success, error in
                    continuation.resume(returning: (success, error.map { "\($0)" }))
                })
        }
        #expect(outcome.0)
        #expect(outcome.1 == nil)
        #expect(PHAsset.fetchAssets(with: library.options()).count == 1)
    }

    @Test(arguments: LibraryProviders.conformance) func asyncPerformChangesThrowsPhotosErrors(_ provider: any LibraryProvider) async throws {
        let library = try TestLibrary(provider: provider)
        defer { library.remove() }
        let missing = library.scratch.appendingPathComponent("missing.jpg")
        await #expect(throws: PHPhotosError(.missingResource)) {
            try await library.library.performChanges {
                _ = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: missing)
            }
        }
        let file = try library.makeImage()
        try await library.library.performChanges { _ = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file) }
        #expect(PHAsset.fetchAssets(with: library.options()).count == 1)
    }

    @Test(arguments: LibraryProviders.conformance) func propertyChangesApply(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(provider: provider)
        defer { library.remove() }
        let ids = try library.addImages(1)
        let asset = PHAsset.fetchAssets(withLocalIdentifiers: ids, options: library.options())[0]
        let newDate = Date(timeIntervalSince1970: 1_234_567_890)
        try library.library.performChangesAndWait {
            let request = PHAssetChangeRequest(for: asset)
            request.creationDate = newDate
            request.isHidden = true
            request.location = CLLocation(latitude: -33.86, longitude: 151.21)
        }
        let changed = PHAsset.fetchAssets(withLocalIdentifiers: ids, options: library.options())[0]
        #expect(changed.creationDate == newDate)
        #expect(changed.isHidden)
        #expect(changed.location?.coordinate.latitude == -33.86)
        #expect(changed.modificationDate! > asset.modificationDate!)
        #expect(PHAsset.fetchAssets(with: library.options()).count == 0)
        let hidden = try #require(
            PHAssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumAllHidden, options: library.options()).firstObject)
        #expect(PHAsset.fetchAssets(in: hidden, options: nil).count == 1)
    }

    @Test func changeRequestOutsideAChangeBlockTraps() async {
        await #expect(processExitsWith: .failure) {
            let library = try! TestLibrary()
            let asset = PHAsset.fetchAssets(with: library.options()).firstObject
            _ = asset
            _ = PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "outside")
        }
    }

    @Test func nestedChangeBlocksTrap() async {
        await #expect(processExitsWith: .failure) {
            let library = try! TestLibrary()
            try? library.library.performChangesAndWait {
                try? library.library.performChangesAndWait {}
            }
        }
    }
}
