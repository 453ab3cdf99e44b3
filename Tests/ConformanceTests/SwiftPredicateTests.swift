import Photos
import Foundation
import PhotosTesting
import Testing

@Suite("#Predicate in fetch options")
struct SwiftPredicateTests {
    @Test(arguments: LibraryProviders.conformance) func swiftPredicatesCompileLikeFormatStrings(_ provider: any LibraryProvider) throws {
        let image = PHAssetMediaType.image
        let minimum = 100
        let compiled = try #require(NSPredicate(#Predicate<PHAsset> { $0.mediaType == image && $0.pixelWidth > minimum }))
        #expect(compiled.photosPredicateFormat == NSPredicate(format: "mediaType == 1 AND pixelWidth > 100").photosPredicateFormat)

        let favorites = try #require(NSPredicate(#Predicate<PHAsset> { $0.isFavorite || !$0.isHidden }))
        #expect(favorites.photosPredicateFormat == "(favorite == YES OR NOT hidden == YES)")

        let types = [1, 2]
        let inList = try #require(NSPredicate(#Predicate<PHAsset> { types.contains($0.pixelHeight) }))
        #expect(inList.photosPredicateFormat == "pixelHeight IN {1, 2}")
    }

    @Test(arguments: LibraryProviders.conformance) func unsupportedExpressionsAreNamed(_ provider: any LibraryProvider) {
        #expect(NSPredicate(#Predicate<PHAsset> { $0.pixelWidth * 2 > $0.pixelHeight }) == nil)
        let userLibrary = PHAssetSourceType.typeUserLibrary
        #expect(throws: FetchOptionsError.self) {
            try NSPredicate(validating: #Predicate<PHAsset> { $0.sourceType == userLibrary })
        }
    }

    @Test(arguments: LibraryProviders.conformance) func swiftPredicatesFetch(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(provider: provider)
        defer { library.remove() }
        let ids = try library.addImages(3) { i, request in request.isFavorite = i != 1 }
        let cutoff = Date(timeIntervalSince1970: 1_700_000_030)
        let options = library.options {
            $0.predicate = NSPredicate(#Predicate<PHAsset> { $0.isFavorite && $0.creationDate! > cutoff })
        }
        #expect(PHAsset.fetchAssets(with: options).map(\.localIdentifier) == [ids[2]])
    }
}
