import Photos
import Foundation
import PhotosTesting
import Testing

@Suite("Albums, folders, smart albums and moments")
struct CollectionTests {
    func titles(_ result: PHFetchResult<PHCollection>) -> [String?] { result.map(\.localizedTitle) }

    @Test(arguments: LibraryProviders.conformance) func albumsKeepTheUsersOrder(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(provider: provider)
        defer { library.remove() }
        let ids = try library.addImages(4)
        let assets = PHAsset.fetchAssets(withLocalIdentifiers: ids, options: library.options())
        var albumID = ""
        try library.library.performChangesAndWait {
            let request = PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Trip")
            request.addAssets([assets[2], assets[0]] as NSArray)
            albumID = request.placeholderForCreatedAssetCollection.localIdentifier
        }
        #expect(albumID.hasSuffix("/L0/040"))
        let album = try #require(PHAssetCollection.fetchAssetCollections(withLocalIdentifiers: [albumID], options: library.options()).firstObject)
        #expect(album.localizedTitle == "Trip")
        #expect(album.assetCollectionType == .album)
        #expect(album.assetCollectionSubtype == .albumRegular)
        #expect(album.estimatedAssetCount == 2)
        #expect(album.startDate == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(album.endDate == Date(timeIntervalSince1970: 1_700_000_120))
        #expect(album.canPerform(.addContent) && album.canPerform(.rename) && album.canPerform(.delete))
        #expect(PHAsset.fetchAssets(in: album, options: nil).map(\.localIdentifier) == [ids[2], ids[0]])

        let members = PHAsset.fetchAssets(in: album, options: nil)
        try library.library.performChangesAndWait {
            let request = PHAssetCollectionChangeRequest(for: album, assets: members)!
            request.insertAssets([assets[3]] as NSArray, at: [1])
            request.moveAssets(at: [0], to: 2)
            request.title = "Trip 2024"
        }
        let updated = PHAssetCollection.fetchAssetCollections(withLocalIdentifiers: [albumID], options: library.options())[0]
        #expect(updated.localizedTitle == "Trip 2024")
        #expect(PHAsset.fetchAssets(in: updated, options: nil).map(\.localIdentifier) == [ids[3], ids[0], ids[2]])

        try library.library.performChangesAndWait {
            let request = PHAssetCollectionChangeRequest(for: updated)!
            request.removeAssets([assets[0]] as NSArray)
            request.replaceAssets(at: [0], withAssets: [assets[1]] as NSArray)
        }
        #expect(PHAsset.fetchAssets(in: updated, options: nil).map(\.localIdentifier) == [ids[1], ids[2]])
        #expect(PHAssetCollection.fetchAssetCollectionsContaining(assets[1], with: .album, options: nil).map(\.localIdentifier) == [albumID])
        #expect(PHAssetCollection.fetchAssetCollectionsContaining(assets[0], with: .album, options: nil).count == 0)
        #expect(PHAsset.fetchKeyAssets(in: updated, options: nil)?.map(\.localIdentifier) == [ids[1]])

        let byTitle = library.options { $0.predicate = NSPredicate(format: "title BEGINSWITH[c] %@", "trip") }
        #expect(PHAssetCollection.fetchAssetCollections(with: .album, subtype: .any, options: byTitle).count == 1)

        try library.library.performChangesAndWait { PHAssetCollectionChangeRequest.deleteAssetCollections([updated] as NSArray) }
        #expect(PHAssetCollection.fetchAssetCollections(with: .album, subtype: .albumRegular, options: library.options()).count == 0)
        #expect(PHAsset.fetchAssets(with: library.options()).count == 4, "deleting an album keeps its assets")
    }

    @Test(arguments: LibraryProviders.conformance) func foldersNestCollectionsAndDeleteRecursively(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(provider: provider)
        defer { library.remove() }
        try library.library.performChangesAndWait {
            _ = PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Loose")
            let folder = PHCollectionListChangeRequest.creationRequestForCollectionList(withTitle: "2024")
            let inner = PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Summer")
            folder.addChildCollections([inner.placeholderForCreatedAssetCollection] as NSArray)
        }
        let top = PHCollection.fetchTopLevelUserCollections(with: library.options())
        #expect(titles(top) == ["Loose", "2024"])
        let folder = try #require(top[1] as? PHCollectionList)
        #expect(folder.collectionListType == .folder)
        #expect(folder.collectionListSubtype == .regularFolder)
        let children = PHCollection.fetchCollections(in: folder, options: nil)
        #expect(titles(children) == ["Summer"])
        let summer = try #require(children[0] as? PHAssetCollection)
        #expect(PHCollectionList.fetchCollectionListsContaining(summer, options: nil).map(\.localIdentifier) == [folder.localIdentifier])

        // Rearrange the top level, then move "Loose" into the folder.
        try library.library.performChangesAndWait {
            PHCollectionListChangeRequest(forTopLevelCollectionListUserCollections: top)!.moveChildCollections(at: [1], to: 0)
        }
        #expect(titles(PHCollection.fetchTopLevelUserCollections(with: library.options())) == ["2024", "Loose"])
        try library.library.performChangesAndWait {
            PHCollectionListChangeRequest(for: folder)!.addChildCollections([top[0]] as NSArray)
        }
        #expect(titles(PHCollection.fetchCollections(in: folder, options: nil)) == ["Summer", "Loose"])
        #expect(titles(PHCollection.fetchTopLevelUserCollections(with: library.options())) == ["2024"])

        try library.library.performChangesAndWait { PHCollectionListChangeRequest.deleteCollectionLists([folder] as NSArray) }
        #expect(PHCollection.fetchTopLevelUserCollections(with: library.options()).count == 0)
        #expect(PHAssetCollection.fetchAssetCollections(with: .album, subtype: .any, options: library.options()).count == 0)
    }

    @Test(arguments: LibraryProviders.conformance) func smartAlbumsAreLiveQueries(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(provider: provider)
        defer { library.remove() }
        let ids = try library.addImages(3) { i, request in request.isFavorite = i == 0 }
        let favorites = try #require(
            PHAssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumFavorites, options: library.options()).firstObject)
        #expect(favorites.assetCollectionType == .smartAlbum)
        #expect(favorites.localizedTitle == "Favorites")
        #expect(favorites.estimatedAssetCount == NSNotFound)
        #expect(!favorites.canPerform(.addContent))
        #expect(PHAssetCollectionChangeRequest(for: favorites) == nil)
        #expect(PHAsset.fetchAssets(in: favorites, options: nil).map(\.localIdentifier) == [ids[0]])

        let second = PHAsset.fetchAssets(withLocalIdentifiers: [ids[1]], options: library.options())[0]
        try library.library.performChangesAndWait { PHAssetChangeRequest(for: second).isFavorite = true }
        #expect(PHAsset.fetchAssets(in: favorites, options: nil).map(\.localIdentifier) == [ids[0], ids[1]])

        let recents = try #require(
            PHAssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumUserLibrary, options: library.options()).firstObject)
        #expect(PHAsset.fetchAssets(in: recents, options: nil).count == 3)
        let all = PHAssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .any, options: library.options())
        #expect(all.count == 22)
        #expect(all.contains { $0.assetCollectionSubtype == .smartAlbumRecentlyDeleted })
        // Ported code asks for smart albums with an album subtype and still expects smart albums.
        #expect(PHAssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .albumRegular, options: library.options()).count == 22)
        #expect(PHAsset.fetchAssets(in: all.first { $0.assetCollectionSubtype == .smartAlbumVideos }!, options: nil).count == 0)
    }

    @Test(arguments: LibraryProviders.conformance) func deleteGoesToRecentlyDeletedAndCanBeRecovered(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(provider: provider)
        defer { library.remove() }
        // Bytes of its own: a store that keeps the same bytes once keeps them while another asset has them.
        let distinct = try library.makeImage(width: 48, height: 64)
        var first: String?
        try library.library.performChangesAndWait {
            first = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: distinct)?.placeholderForCreatedAsset?.localIdentifier
        }
        let ids = [try #require(first)] + (try library.addImages(1, startingAt: Date(timeIntervalSince1970: 1_800_000_000)))
        let asset = PHAsset.fetchAssets(withLocalIdentifiers: [ids[0]], options: library.options())[0]
        // The asset as the library's owner has it, for its file (a served library's clients have no files; its
        // server does).
        let owned = PHAsset.fetchAssets(withLocalIdentifiers: [ids[0]], options: library.ownerOptions())[0]
        try library.library.performChangesAndWait { PHAssetChangeRequest.deleteAssets([asset] as NSArray) }
        #expect(PHAsset.fetchAssets(with: library.options()).map(\.localIdentifier) == [ids[1]])
        #expect(PHAsset.fetchAssets(withLocalIdentifiers: [ids[0]], options: library.options()).count == 0)
        let trash = try #require(
            PHAssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumRecentlyDeleted, options: library.options())
                .firstObject)
        let deleted = PHAsset.fetchAssets(in: trash, options: nil)
        #expect(deleted.map(\.localIdentifier) == [ids[0]])
        #expect(deleted[0].trashedDate != nil)

        try library.library.performChangesAndWait { PHAssetChangeRequest.recoverAssets([asset] as NSArray) }
        #expect(PHAsset.fetchAssets(with: library.options()).count == 2)
        #expect(PHAsset.fetchAssets(in: trash, options: nil).count == 0)

        // Deleting from Recently Deleted removes the asset and its files for good.
        try library.library.performChangesAndWait { PHAssetChangeRequest.deleteAssets([asset] as NSArray) }
        let file = PHAssetResource.assetResources(for: owned).first?.fileURL
        #expect(file.map { FileManager.default.fileExists(atPath: $0.path) } == true)
        try library.library.performChangesAndWait { PHAssetChangeRequest.deleteAssets([asset] as NSArray) }
        #expect(PHAsset.fetchAssets(in: trash, options: nil).count == 0)
        #expect(file.map { FileManager.default.fileExists(atPath: $0.path) } == false)
    }

    @available(*, deprecated, message: "exercises deprecated moment API")
    @Test(arguments: LibraryProviders.conformance) func momentsGroupAssetsByLocalDayAndPlace(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(provider: provider)
        defer { library.remove() }
        let day = 86_400.0
        let base = Date(timeIntervalSince1970: 1_700_000_000)  // 2023-11-14 22:13 UTC
        try library.addImages(5, startingAt: base, step: 0) { i, request in
            request.creationDate = base.addingTimeInterval([0, 60, day, day + 60, 400 * day][i])
            if i == 3 { request.location = CLLocation(latitude: 35.68, longitude: 139.69) }
        }
        let moments = PHAssetCollection.fetchMoments(with: library.options())
        #expect(moments.map(\.estimatedAssetCount) == [2, 1, 1, 1])
        #expect(moments[0].startDate == base)
        #expect(moments[0].endDate == base.addingTimeInterval(60))
        #expect(moments.allSatisfy { $0.localIdentifier.hasSuffix("/L0/060") })
        #expect(PHAsset.fetchAssets(in: moments[0], options: nil).count == 2)
        #expect(PHAssetCollection.fetchMoments(with: library.options()).map(\.localIdentifier) == moments.map(\.localIdentifier))

        let years = PHCollectionList.fetchMomentLists(with: .momentListYear, options: library.options())
        #expect(years.map(\.localizedTitle) == ["2023", "2024"])
        #expect(PHAssetCollection.fetchMoments(inMomentList: years[0], options: nil).count == 3)
        let containing = PHCollectionList.fetchCollectionListsContaining(moments[0], options: nil)
        #expect(containing.compactMap(\.localizedTitle).sorted() == ["2023", "2023-11"])
        let asset = PHAsset.fetchAssets(in: moments[3], options: nil)[0]
        let momentsOfAsset = PHAssetCollection.fetchAssetCollectionsContaining(asset, with: .moment, options: nil)
        #expect(momentsOfAsset.map(\.localIdentifier) == [moments[3].localIdentifier])
    }

    @Test(arguments: LibraryProviders.conformance) func transientCollections(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(provider: provider)
        defer { library.remove() }
        let ids = try library.addImages(3)
        let assets = PHAsset.fetchAssets(withLocalIdentifiers: ids, options: library.options())
        let transient = PHAssetCollection.transientAssetCollection(with: [assets[2], assets[0]], title: "Picked")
        #expect(transient.localizedTitle == "Picked")
        #expect(PHAsset.fetchAssets(in: transient, options: nil).map(\.localIdentifier) == [ids[2], ids[0]])
        #expect(PHAsset.fetchKeyAssets(in: transient, options: nil) == nil)
        #expect(!transient.canPerform(.addContent))
        let list = PHCollectionList.transientCollectionList(with: [transient], title: "List")
        #expect(PHCollection.fetchCollections(in: list, options: nil).map(\.localIdentifier) == [transient.localIdentifier])
    }
}
