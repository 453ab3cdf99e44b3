import Photos
import Foundation
import PhotosTesting
import Testing

@Suite("Fetching assets")
struct FetchTests {
    /// Five images one minute apart; #1 favorite, #3 hidden.
    func makeLibrary(_ provider: any LibraryProvider) throws -> (TestLibrary, [String]) {
        let library = try TestLibrary(provider: provider)
        let ids = try library.addImages(5) { i, request in
            request.isFavorite = i == 1
            request.isHidden = i == 3
        }
        return (library, ids)
    }

    func identifiers(_ result: PHFetchResult<PHAsset>) -> [String] {
        result.map(\.localIdentifier)
    }

    @Test(arguments: LibraryProviders.conformance) func defaultFetchExcludesHiddenAndSortsByCreationDate(_ provider: any LibraryProvider) throws {
        let (library, ids) = try makeLibrary(provider)
        defer { library.remove() }
        #expect(identifiers(PHAsset.fetchAssets(with: library.options())) == [ids[0], ids[1], ids[2], ids[4]])
        #expect(identifiers(PHAsset.fetchAssets(with: library.options { $0.includeHiddenAssets = true })) == ids)
        // By identifier, hidden assets are included by default.
        #expect(PHAsset.fetchAssets(withLocalIdentifiers: [ids[3]], options: library.options()).count == 1)
        #expect(PHAsset.fetchAssets(with: .video, options: library.options()).count == 0)
    }

    /// Assets without a creation date sort before every date when ascending and after when descending (as a Core
    /// Data sort puts nil first), the same on every store — PostgreSQL's own default is the reverse — and pages
    /// through `fetchLimit`-sized keys walk them in that order.
    @Test(arguments: LibraryProviders.conformance) func undatedAssetsSortFirstAscendingLastDescending(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(provider: provider)
        defer { library.remove() }
        let ids = try library.addImages(5) { i, request in
            if i == 1 || i == 3 { request.creationDate = nil }
        }
        func sorted(ascending: Bool) -> [String] {
            PHAsset.fetchAssets(with: library.options { $0.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: ascending)] })
                .map(\.localIdentifier)
        }
        let undated = Set([ids[1], ids[3]])
        let ascending = sorted(ascending: true)
        #expect(Set(ascending.prefix(2)) == undated)
        #expect(Array(ascending.dropFirst(2)) == [ids[0], ids[2], ids[4]])
        let descending = sorted(ascending: false)
        #expect(Array(descending.prefix(3)) == [ids[4], ids[2], ids[0]])
        #expect(Set(descending.suffix(2)) == undated)
        // The default order (creation date, oldest first) too.
        #expect(Set(PHAsset.fetchAssets(with: library.options()).map(\.localIdentifier).prefix(2)) == undated)
    }

    @Test(arguments: LibraryProviders.conformance) func predicatesSortDescriptorsAndLimits(_ provider: any LibraryProvider) throws {
        let (library, ids) = try makeLibrary(provider)
        defer { library.remove() }
        let newestNonFavorite = library.options {
            $0.predicate = NSPredicate(format: "mediaType == %d AND favorite == NO", PHAssetMediaType.image.rawValue)
            $0.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: false)]
        }
        #expect(identifiers(PHAsset.fetchAssets(with: newestNonFavorite)) == [ids[4], ids[2], ids[0]])
        newestNonFavorite.fetchLimit = 1
        #expect(identifiers(PHAsset.fetchAssets(with: newestNonFavorite)) == [ids[4]])

        let cutoff = Date(timeIntervalSince1970: 1_700_000_000 + 90)
        let after = library.options { $0.predicate = NSPredicate(format: "creationDate > %@", cutoff as NSDate) }
        #expect(identifiers(PHAsset.fetchAssets(with: after)) == [ids[2], ids[4]])

        let byID = library.options { $0.predicate = NSPredicate(format: "localIdentifier IN %@", [ids[0], ids[4]]) }
        #expect(identifiers(PHAsset.fetchAssets(with: byID)) == [ids[0], ids[4]])

        let compound = library.options {
            $0.predicate = NSCompoundPredicate(orPredicateWithSubpredicates: [
                NSPredicate(format: "%K == YES", "isFavorite"),
                NSPredicate(format: "creationDate == %@", argumentArray: [Date(timeIntervalSince1970: 1_700_000_000)]),
            ])
        }
        #expect(identifiers(PHAsset.fetchAssets(with: compound)) == [ids[0], ids[1]])

        let picked = PHAsset.fetchAssets(withLocalIdentifiers: [ids[1], ids[2]], options: library.options())
        let bySelf = library.options { $0.predicate = NSPredicate(format: "SELF IN %@", picked.map { $0 }) }
        #expect(identifiers(PHAsset.fetchAssets(with: bySelf)) == [ids[1], ids[2]])
        let notSelf = library.options { $0.predicate = NSPredicate(format: "SELF != %@", picked[0]) }
        #expect(identifiers(PHAsset.fetchAssets(with: notSelf)) == [ids[0], ids[2], ids[4]])
        let range = library.options {
            $0.predicate = NSPredicate(
                format: "creationDate BETWEEN %@", [Date(timeIntervalSince1970: 1_700_000_060), Date(timeIntervalSince1970: 1_700_000_240)])
        }
        #expect(identifiers(PHAsset.fetchAssets(with: range)) == [ids[1], ids[2], ids[4]])

        let everything = library.options { $0.predicate = NSPredicate(value: true) }
        #expect(PHAsset.fetchAssets(with: everything).count == 4)
        let nothing = library.options { $0.predicate = NSPredicate(value: false) }
        #expect(PHAsset.fetchAssets(with: nothing).count == 0)

        let live = library.options { $0.predicate = NSPredicate(format: "(mediaSubtypes & %d) != 0", PHAssetMediaSubtype.photoLive.rawValue) }
        #expect(PHAsset.fetchAssets(with: live).count == 0)

        let keyPathSort = library.options { $0.sortDescriptors = [NSSortDescriptor(keyPath: \PHAsset.pixelWidth, ascending: false)] }
        #expect(identifiers(PHAsset.fetchAssets(with: keyPathSort)) == [ids[4], ids[2], ids[1], ids[0]])
    }

    @Test(arguments: LibraryProviders.conformance) func unsupportedKeysAreReportedToCallersWhoValidate(_ provider: any LibraryProvider) throws {
        let options = PHFetchOptions()
        options.predicate = NSPredicate(format: "filename == %@", "IMG_0001.JPG")
        #expect(throws: FetchOptionsError.self) { try options.validate(for: PHAsset.self) }
        do {
            try options.validate(for: PHAsset.self)
        } catch let error as FetchOptionsError {
            #expect(error.key == "filename")
            #expect(error.message.contains("Supported keys: SELF, localIdentifier, creationDate"))
        }
        options.predicate = NSPredicate(format: "title == %@", "Trip")
        try options.validate(for: PHAssetCollection.self)
        #expect(throws: FetchOptionsError.self) { try options.validate(for: PHAsset.self) }
        options.predicate = nil
        options.sortDescriptors = [NSSortDescriptor(key: "addedDate", ascending: true)]
        #expect(throws: FetchOptionsError.self) { try options.validate(for: PHAsset.self) }
        #expect(throws: FetchOptionsError.self) { try NSPredicate(validatingFormat: "mediaType ==") }
    }

    @Test func unsupportedKeyTrapsAsApplesFrameworkRaises() async {
        await #expect(processExitsWith: .failure) {
            let options = PHFetchOptions()
            options.predicate = NSPredicate(format: "location != nil")
            options.photoLibrary = try? TestLibrary().library
            _ = PHAsset.fetchAssets(with: options)
        }
        await #expect(processExitsWith: .failure) {
            _ = NSPredicate(format: "mediaType == == 1")
        }
    }

    @Test(arguments: LibraryProviders.conformance) func fetchResultAccessors(_ provider: any LibraryProvider) throws {
        let (library, ids) = try makeLibrary(provider)
        defer { library.remove() }
        let result = PHAsset.fetchAssets(with: library.options())
        #expect(result.count == 4)
        #expect(result.firstObject?.localIdentifier == ids[0])
        #expect(result.lastObject?.localIdentifier == ids[4])
        #expect(result[1].localIdentifier == ids[1])
        #expect(result.object(at: 2).localIdentifier == ids[2])
        #expect(result.objects(at: [0, 3]).map(\.localIdentifier) == [ids[0], ids[4]])
        let third = result[2]
        #expect(result.contains(third))
        #expect(result.index(of: third) == 2)
        #expect(result.index(of: third, in: NSRange(location: 0, length: 2)) == NSNotFound)
        let hidden = PHAsset.fetchAssets(withLocalIdentifiers: [ids[3]], options: library.options())[0]
        #expect(!result.contains(hidden))
        #expect(result.index(of: hidden) == NSNotFound)
        #expect(result.countOfAssets(with: .image) == 4)
        #expect(result.countOfAssets(with: .video) == 0)

        var visited: [Int] = []
        result.enumerateObjects { _, index, stop in
            visited.append(index)
            if index == 1 { stop.pointee = true }
        }
        #expect(visited == [0, 1])
        visited = []
        result.enumerateObjects(options: .reverse) { _, index, _ in visited.append(index) }
        #expect(visited == [3, 2, 1, 0])
        #expect(Array(result.map(\.localIdentifier).suffix(2)) == [ids[2], ids[4]])
        #expect(PHFetchResult<PHAsset>().count == 0)
        #expect(PHFetchResult<PHAsset>().firstObject == nil)
    }

    @Test(arguments: LibraryProviders.conformance) func membershipIsFixedAtFetchTimeWhilePropertiesRefresh(_ provider: any LibraryProvider) throws {
        let (library, ids) = try makeLibrary(provider)
        defer { library.remove() }
        let result = PHAsset.fetchAssets(with: library.options())
        try library.addImages(2)
        let first = result[0]
        try library.library.performChangesAndWait { PHAssetChangeRequest(for: first).isFavorite = true }
        #expect(result.count == 4)
        #expect(result.map(\.localIdentifier) == [ids[0], ids[1], ids[2], ids[4]])
        #expect(PHAsset.fetchAssets(with: library.options()).count == 6)
        #expect(!first.isFavorite, "model objects are immutable snapshots")
        #expect(PHAsset.fetchAssets(withLocalIdentifiers: [ids[0]], options: library.options())[0].isFavorite)
    }
}
