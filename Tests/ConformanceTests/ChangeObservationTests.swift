import Photos
import Foundation
import PhotosTesting
import Testing

@Suite("Change observation")
struct ChangeObservationTests {
    @Test(arguments: LibraryProviders.conformance) func favoritingAnAssetMovesItIntoFavoritesAndChangesItInPlace(_ provider: any LibraryProvider)
        throws
    {
        let library = try TestLibrary(provider: provider)
        defer { library.remove() }
        let ids = try library.addImages(4)
        let recorder = ChangeRecorder()
        library.library.register(recorder)
        defer { library.library.unregisterChangeObserver(recorder) }

        let all = PHAsset.fetchAssets(with: library.options())
        let favorites = PHAsset.fetchAssets(with: library.options { $0.predicate = NSPredicate(format: "favorite == YES") })
        let asset = all[2]
        try library.library.performChangesAndWait { PHAssetChangeRequest(for: asset).isFavorite = true }
        let change = try recorder.next()

        let inAll = try #require(change.changeDetails(for: all))
        #expect(inAll.hasIncrementalChanges)
        #expect(inAll.removedIndexes == [])
        #expect(inAll.insertedIndexes == [])
        #expect(inAll.changedIndexes == [2])
        #expect(inAll.changedObjects.map(\.localIdentifier) == [ids[2]])
        #expect(!inAll.hasMoves)
        #expect(inAll.fetchResultAfterChanges[2].isFavorite)

        let inFavorites = try #require(change.changeDetails(for: favorites))
        #expect(inFavorites.insertedIndexes == [0])
        #expect(inFavorites.insertedObjects.map(\.localIdentifier) == [ids[2]])
        #expect(inFavorites.fetchResultAfterChanges.count == 1)

        let objectDetails = try #require(change.changeDetails(for: asset))
        #expect(objectDetails.objectBeforeChanges === asset)
        #expect(objectDetails.objectAfterChanges?.isFavorite == true)
        #expect(!objectDetails.objectWasDeleted && !objectDetails.assetContentChanged)
        #expect(change.changeDetails(for: all[0]) == nil)

        // The change arrived off the main thread, once.
        #expect(!recorder.onMainThread)
        #expect(recorder.nothingArrives(within: 0.2))
    }

    @Test(arguments: LibraryProviders.conformance) func aNewCreationDateIsAMoveAndHiddenAssetsLeaveTheDefaultFetch(_ provider: any LibraryProvider)
        throws
    {
        let library = try TestLibrary(provider: provider)
        defer { library.remove() }
        let ids = try library.addImages(5)  // 1_700_000_000 + 0, 60, … 240
        let recorder = ChangeRecorder()
        library.library.register(recorder)

        let newestFirst = PHAsset.fetchAssets(
            with: library.options { $0.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: false)] })
        #expect(identifiers(newestFirst) == ids.reversed())
        try library.library.performChangesAndWait {
            PHAssetChangeRequest(for: newestFirst[4]).creationDate = Date(timeIntervalSince1970: 1_700_000_150)
        }
        var change = try recorder.next()
        let moved = try #require(change.changeDetails(for: newestFirst))
        #expect(moved.removedIndexes == [] && moved.insertedIndexes == [])
        #expect(moved.changedIndexes == [2])
        var moves: [(Int, Int)] = []
        moved.enumerateMoves { moves.append(($0, $1)) }
        #expect(moves.count == 1 && moves[0] == (4, 2))
        #expect(identifiers(moved.fetchResultAfterChanges) == [ids[4], ids[3], ids[0], ids[2], ids[1]])
        #expect(applying(moved, to: identifiers(newestFirst)) == identifiers(moved.fetchResultAfterChanges))

        let current = moved.fetchResultAfterChanges
        try library.library.performChangesAndWait { PHAssetChangeRequest(for: current[1]).isHidden = true }
        change = try recorder.next()
        let hidden = try #require(change.changeDetails(for: current))
        #expect(hidden.removedIndexes == [1])
        #expect(hidden.removedObjects.map(\.localIdentifier) == [ids[3]])
        #expect(hidden.insertedIndexes == [] && hidden.changedIndexes == [])
        #expect(identifiers(hidden.fetchResultAfterChanges) == [ids[4], ids[0], ids[2], ids[1]])
    }

    @Test(arguments: LibraryProviders.conformance) func deletionsRecoveriesAndAlbumOrder(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(provider: provider)
        defer { library.remove() }
        let ids = try library.addImages(4)
        let assets = PHAsset.fetchAssets(withLocalIdentifiers: ids, options: library.options())
        var albumID = ""
        try library.library.performChangesAndWait {
            let request = PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Trip")
            request.addAssets([assets[0], assets[1], assets[2]] as NSArray)
            albumID = request.placeholderForCreatedAssetCollection.localIdentifier
        }
        let album = try #require(PHAssetCollection.fetchAssetCollections(withLocalIdentifiers: [albumID], options: library.options()).firstObject)
        let recorder = ChangeRecorder()
        library.library.register(recorder)

        let members = PHAsset.fetchAssets(in: album, options: nil)
        try library.library.performChangesAndWait {
            PHAssetCollectionChangeRequest(for: album, assets: members)!.moveAssets(at: [0], to: 2)
            PHAssetCollectionChangeRequest(for: album)!.title = "Road trip"
        }
        var change = try recorder.next()
        let reordered = try #require(change.changeDetails(for: members))
        #expect(identifiers(reordered.fetchResultAfterChanges) == [ids[1], ids[2], ids[0]])
        #expect(reordered.removedIndexes == [] && reordered.insertedIndexes == [])
        #expect(reordered.hasMoves)
        #expect(applying(reordered, to: identifiers(members)) == [ids[1], ids[2], ids[0]])
        let albumDetails = try #require(change.changeDetails(for: album))
        #expect(albumDetails.objectAfterChanges?.localizedTitle == "Road trip")

        let library0 = PHAsset.fetchAssets(with: library.options())
        let smartAlbums = PHAssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .any, options: library.options())
        let trash = try #require(smartAlbums.first { $0.localizedTitle == "Recently Deleted" })
        let trashed = PHAsset.fetchAssets(in: trash, options: nil)
        #expect(trashed.count == 0)
        try library.library.performChangesAndWait { PHAssetChangeRequest.deleteAssets([library0[1]] as NSArray) }
        change = try recorder.next()
        let afterDelete = try #require(change.changeDetails(for: library0))
        #expect(afterDelete.removedIndexes == [1])
        let deletedDetails = try #require(change.changeDetails(for: library0[1]))
        #expect(deletedDetails.objectWasDeleted && deletedDetails.objectAfterChanges == nil)
        // Smart albums are live queries: the asset enters Recently Deleted; the list of smart albums is unchanged.
        let intoTrash = try #require(change.changeDetails(for: trashed))
        #expect(intoTrash.insertedIndexes == [0])
        #expect(intoTrash.insertedObjects.map(\.localIdentifier) == [ids[1]])
        #expect(change.changeDetails(for: smartAlbums) == nil)
    }

    @Test(arguments: LibraryProviders.conformance) func withoutIncrementalDetailsObserversAreOnlyToldThatTheResultChanged(
        _ provider: any LibraryProvider
    )
        throws
    {
        let library = try TestLibrary(provider: provider)
        defer { library.remove() }
        try library.addImages(3)
        let recorder = ChangeRecorder()
        library.library.register(recorder)
        let result = PHAsset.fetchAssets(with: library.options { $0.wantsIncrementalChangeDetails = false })
        try library.library.performChangesAndWait { PHAssetChangeRequest(for: result[0]).isFavorite = true }
        let details = try #require(try recorder.next().changeDetails(for: result))
        #expect(!details.hasIncrementalChanges)
        #expect(details.removedIndexes == nil && details.insertedIndexes == nil && details.changedIndexes == nil)
        #expect(details.changedObjects.isEmpty && !details.hasMoves)
        #expect(details.fetchResultAfterChanges.count == 3)
    }

    @Test(arguments: LibraryProviders.conformance) func transientCollectionsGetNoDetailsButTwoResultsCanBeCompared(_ provider: any LibraryProvider)
        throws
    {
        let library = try TestLibrary(provider: provider)
        defer { library.remove() }
        let ids = try library.addImages(3)
        let all = PHAsset.fetchAssets(with: library.options())
        let transient = PHAssetCollection.transientAssetCollection(with: [all[0], all[1]], title: "Picked")
        let picked = PHAsset.fetchAssets(in: transient, options: nil)
        let recorder = ChangeRecorder()
        library.library.register(recorder)
        try library.library.performChangesAndWait { PHAssetChangeRequest(for: all[0]).isFavorite = true }
        #expect(try recorder.next().changeDetails(for: picked) == nil)

        let later = PHAsset.fetchAssets(in: PHAssetCollection.transientAssetCollection(with: [all[2], all[0]], title: nil), options: nil)
        let details = PHFetchResultChangeDetails(from: picked, to: later, changedObjects: [all[0]])
        #expect(details.removedIndexes == [1])
        #expect(details.insertedIndexes == [0])
        #expect(details.changedIndexes == [1])
        #expect(applying(details, to: identifiers(picked)) == [ids[2], ids[0]])
    }

    @Test(arguments: LibraryProviders.conformance) func changesFromAnotherHandleArriveOnceEachInCommitOrder(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(provider: provider)
        defer { library.remove() }
        let ids = try library.addImages(3)
        let recorder = ChangeRecorder()
        library.library.register(recorder)
        // A second handle on the same folder has its own database connections: to the first, it is another process.
        let other = try library.open()
        let otherOptions = PHFetchOptions()
        otherOptions.photoLibrary = other
        let theirs = PHAsset.fetchAssets(withLocalIdentifiers: ids, options: otherOptions)
        for i in 0..<3 {
            try other.performChangesAndWait { PHAssetChangeRequest(for: theirs[i]).isFavorite = true }
        }
        var seen: [String] = []
        for _ in 0..<3 {
            let change = try recorder.next()
            for (i, id) in ids.enumerated() where change.changeDetails(for: theirs[i]) != nil { seen.append(id) }
        }
        #expect(seen == ids)
        #expect(recorder.nothingArrives(within: 0.3))
    }

    @Test(arguments: LibraryProviders.conformance) func changesAsAnAsyncSequence(_ provider: any LibraryProvider) async throws {
        let library = try TestLibrary(provider: provider)
        defer { library.remove() }
        try library.addImages(2)
        let all = PHAsset.fetchAssets(with: library.options())
        let stream = library.library.changes
        let handle = library.library
        Task.detached {
            try? handle.performChangesAndWait { PHAssetChangeRequest(for: all[1]).isHidden = true }
        }
        var iterator = stream.makeAsyncIterator()
        let change = try #require(await iterator.next())
        #expect(change.changeDetails(for: all)?.removedIndexes == [1])
    }

    @Test(arguments: LibraryProviders.conformance) func persistentHistorySurvivesReopeningTheLibrary(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(provider: provider)
        defer { library.remove() }
        let start = library.library.currentChangeToken
        let ids = try library.addImages(2)
        let all = PHAsset.fetchAssets(withLocalIdentifiers: ids, options: library.options())
        try library.library.performChangesAndWait {
            PHAssetChangeRequest(for: all[0]).isFavorite = true
            _ = PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Kept")
        }
        try library.library.performChangesAndWait { PHAssetChangeRequest.deleteAssets([all[1]] as NSArray) }

        // Tokens survive a restart as bytes.
        let saved = try JSONEncoder().encode(start)
        let reopened = try library.open()
        let token = try JSONDecoder().decode(PHPersistentChangeToken.self, from: saved)
        #expect(token == start)
        let changes = Array(try reopened.fetchPersistentChanges(since: token))
        #expect(changes.count == 3)
        let inserted = try changes[0].changeDetails(for: .asset)
        #expect(inserted.insertedLocalIdentifiers == Set(ids))
        let second = try changes[1].changeDetails(for: .asset)
        #expect(second.updatedLocalIdentifiers == [ids[0]] && second.insertedLocalIdentifiers.isEmpty)
        #expect(try changes[1].changeDetails(for: .assetCollection).insertedLocalIdentifiers.count == 1)
        #expect(try changes[1].changeDetails(for: .collectionList).insertedLocalIdentifiers.isEmpty)
        #expect(try changes[2].changeDetails(for: .asset).deletedLocalIdentifiers == [ids[1]])
        #expect(changes[2].changeToken == reopened.currentChangeToken)
        #expect(Array(try reopened.fetchPersistentChanges(since: reopened.currentChangeToken)).isEmpty)

        // A token of another library is refused.
        let elsewhere = try TestLibrary(name: "Other", provider: provider)
        defer { elsewhere.remove() }
        #expect(throws: PHPhotosError.self) { try elsewhere.library.fetchPersistentChanges(since: token) }
    }
}
