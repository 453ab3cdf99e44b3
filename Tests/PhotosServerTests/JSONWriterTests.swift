import Foundation
import OpenPhotos
import PhotosTesting
import Testing

@testable import PhotosServer

/// The hand-written JSON of asset pages is the response encoder's, byte for byte: a client cannot tell which wrote
/// a page, whatever the asset holds.
@Suite("JSON writer")
struct JSONWriterTests {
    @Test func assetPagesAreWhatTheResponseEncoderWrites() throws {
        let library = try TestLibrary(name: "JSONWriter")
        defer { library.remove() }
        let ids = try library.addImages(3) { index, request in
            if index == 0 {
                request.location = CLLocation(
                    coordinate: CLLocationCoordinate2D(latitude: 48.858_37, longitude: 2.294_481), altitude: 35.5, horizontalAccuracy: 5,
                    verticalAccuracy: 3, timestamp: Date(timeIntervalSince1970: 1_700_000_000))
                request.isFavorite = true
            }
            if index == 1 { request.location = CLLocation(latitude: -33.5, longitude: 151) }
            if index == 2 { request.creationDate = Date(timeIntervalSince1970: 1_700_000_000.25) }
        }
        let assets = PHAsset.fetchAssets(withLocalIdentifiers: ids, options: library.options())
        var items: [AssetJSON] = []
        assets.enumerateObjects { asset, index, _ in
            items.append(AssetJSON(asset, resources: index == 0 ? PHAssetResource.assetResources(for: asset) : nil))
        }
        // Strings that need escaping, numbers of every form, and absent and present optionals.
        items[1].burstIdentifier = "quote \" backslash \\ slash / newline \n tab \t bell \u{7} nul \u{0} del \u{7F} é 🌍 \u{2028}"
        items[1].adjustmentFormatIdentifier = "org.example.\u{1F}editor"
        items[1].duration = 12.345_678_901_234
        items[2].duration = 1e-5
        items[2].pixelWidth = -1
        items[2].creationTimeZoneOffset = -34_200
        items[2].mediaSubtypes = ["photoLive", "photoHDR"]
        items[2].trashedDate = Date(timeIntervalSince1970: -86_400.5)
        let encoder = PhotosRequestContext.makeResponseEncoder()
        for cursor in [nil, "eyJmIjoiYSJ9"] {
            let page = AssetPage(assets: items, nextCursor: cursor)
            let expected = try encoder.encode(page)
            #expect(String(decoding: page.json(), as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        }
        #expect(items[0].resources?.isEmpty == false && items[0].location?.altitude == 35.5)
        #expect(String(decoding: AssetPage(assets: [], nextCursor: nil).json(), as: UTF8.self) == #"{"assets":[],"nextCursor":null}"#)
    }
}
