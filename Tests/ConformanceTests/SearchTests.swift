import Foundation
import Photos
import PhotosTesting
import Testing

/// OpenPhotoKit's full-text search (`PHFetchOptions.searchText`) on every kind of library: captions, keywords, file
/// names and dates, kept current by every change, combined with predicates, pages and change details.
@Suite("Search")
struct SearchTests {
    /// Five photos: names, captions, keywords and days that the queries below tell apart.
    static func library(_ provider: any LibraryProvider) throws -> (TestLibrary, [String]) {
        let library = try TestLibrary(name: "Search", provider: provider)
        let day: TimeInterval = 86_400
        let july14 = Date(timeIntervalSince1970: 1_563_105_600)  // 2019-07-14 12:00 UTC
        let files = try ["IMG_4547.JPG", "DSC_0001.jpg", "Étretat cliffs.jpg", "scan.jpg", "IMG_9999.JPG"].map { try library.makeImage($0) }
        var ids: [String] = []
        try library.library.performChangesAndWait {
            for (index, file) in files.enumerated() {
                let request = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)!
                request.creationDate = july14.addingTimeInterval(Double(index) * 100 * day)
                switch index {
                case 0: request.caption = "Sunset over the beach"
                case 1: request.addKeyword("Beach"); request.addKeyword("family")
                case 2: request.caption = "Low tide"
                case 3: request.caption = "Grandma's recipe — crème brûlée"
                default: request.addKeyword("sunflowers")
                }
                ids.append(request.placeholderForCreatedAsset!.localIdentifier)
            }
        }
        return (library, ids)
    }

    static func search(_ library: TestLibrary, _ text: String?, _ configure: (PHFetchOptions) -> Void = { _ in }) -> [String] {
        identifiers(
            PHAsset.fetchAssets(
                with: library.options {
                    $0.searchText = text; configure($0)
                }))
    }

    @Test(arguments: LibraryProviders.conformance)
    func wordsMatchCaptionsKeywordsNamesAndDates(_ provider: any LibraryProvider) throws {
        let (library, ids) = try Self.library(provider)
        defer { library.remove() }
        #expect(Self.search(library, "beach") == [ids[0], ids[1]])
        #expect(Self.search(library, "SUN") == [ids[0], ids[4]])  // "Sunset", "sunflowers": prefixes, any case
        #expect(Self.search(library, "beach sun") == [ids[0]])  // every word; the last one a prefix
        #expect(Self.search(library, "sun beach") == [])  // earlier words whole: "sun" is no word here
        #expect(Self.search(library, "etretat") == [ids[2]])  // the file name, without its accent
        #expect(Self.search(library, "creme brulee") == [ids[3]])
        #expect(Self.search(library, "crème brû") == [ids[3]])
        #expect(Self.search(library, "IMG_45") == [ids[0]])  // tokens in order, the last a prefix
        #expect(Self.search(library, "img") == [ids[0], ids[4]])
        #expect(Self.search(library, "jpg 2019-07") == [ids[0]])
        // Days: 2019-07-14, 2019-10-22, 2020-01-30, 2020-05-09, 2020-08-17.
        #expect(Self.search(library, "2019") == [ids[0], ids[1]])
        #expect(Self.search(library, "2019-10-22") == [ids[1]])
        #expect(Self.search(library, "October") == [ids[1]])
        #expect(Self.search(library, "2020 img") == [ids[4]])
        #expect(Self.search(library, "family 2020") == [])
        #expect(Self.search(library, "!!! ---") == [])
        #expect(Self.search(library, "   ") == ids)
        #expect(Self.search(library, nil) == ids)
        // With a predicate and a sort.
        #expect(
            Self.search(library, "beach") {
                $0.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: false)]
            } == [ids[1], ids[0]])
        #expect(
            Self.search(library, "img") {
                $0.predicate = NSPredicate(format: "creationDate > %@", Date(timeIntervalSince1970: 1_570_000_000) as NSDate)
            } == [ids[4]])
    }

    @Test(arguments: LibraryProviders.conformance)
    func theIndexFollowsEveryChange(_ provider: any LibraryProvider) throws {
        let (library, ids) = try Self.library(provider)
        defer { library.remove() }
        let beach = PHAsset.fetchAssets(with: library.options { $0.searchText = "beach" })
        let recorder = ChangeRecorder()
        library.library.register(recorder)
        defer { library.library.unregisterChangeObserver(recorder) }
        let all = PHAsset.fetchAssets(withLocalIdentifiers: ids, options: library.options())
        try library.library.performChangesAndWait {
            PHAssetChangeRequest(for: all[0]).caption = "Sunset"
            PHAssetChangeRequest(for: all[3]).addKeyword("beach house")
        }
        let change = try recorder.next()
        let details = try #require(change.changeDetails(for: beach))
        #expect(identifiers(details.fetchResultAfterChanges) == [ids[1], ids[3]])
        #expect(details.removedObjects.map(\.localIdentifier) == [ids[0]] && details.insertedObjects.map(\.localIdentifier) == [ids[3]])
        #expect(Self.search(library, "house") == [ids[3]])

        try library.library.performChangesAndWait { PHAssetChangeRequest.deleteAssets([all[1]] as NSArray) }
        #expect(Self.search(library, "beach") == [ids[3]])
        // Recently Deleted keeps its assets findable there; purged, they are gone from the index too.
        let trash = try #require(
            PHAssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .any, options: library.options()).first {
                $0.localizedTitle == "Recently Deleted"
            })
        let trashed = PHAsset.fetchAssets(in: trash, options: library.options { $0.searchText = "family" })
        #expect(identifiers(trashed) == [ids[1]])
        try library.library.performChangesAndWait { PHAssetChangeRequest.deleteAssets(trashed) }
        #expect(PHAsset.fetchAssets(in: trash, options: library.options { $0.searchText = "family" }).count == 0)
    }

    @Test(arguments: LibraryProviders.conformance)
    func pagesAndLimitedClientsSearchTheirs(_ provider: any LibraryProvider) throws {
        let (library, ids) = try Self.library(provider)
        defer { library.remove() }
        var cursor: String?
        var paged: [String] = []
        repeat {
            let options = library.options { $0.searchText = "img beach" }
            let page = try library.library.fetchAssetPage(options: options, cursor: cursor, limit: 1)
            paged += identifiers(page.assets)
            cursor = page.nextCursor
        } while cursor != nil
        #expect(paged == [ids[0]])
        // A cursor of one search is not one of another.
        let first = try library.library.fetchAssetPage(options: library.options { $0.searchText = "sun" }, cursor: nil, limit: 1)
        #expect(throws: (any Error).self) {
            _ = try library.library.fetchAssetPage(options: library.options { $0.searchText = "beach" }, cursor: first.nextCursor, limit: 1)
        }

        try library.owner.setAuthorization(.limited, for: "picker", selection: [ids[1]])
        let limited = try library.open(clientIdentifier: "picker")
        let found = PHAsset.fetchAssets(
            with: {
                let o = PHFetchOptions(); o.photoLibrary = limited; o.searchText = "beach"; return o
            }())
        #expect(identifiers(found) == [ids[1]])
    }
}
