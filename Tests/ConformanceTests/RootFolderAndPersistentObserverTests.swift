import Foundation
import Photos
import PhotosTesting
import Synchronization
import Testing

/// Small pieces of iOS 27 on every kind of library: the root folder of user collections, the persistent-changes
/// observer, and `PHAssetResource.filename`.
@Suite("Root folder, persistent-changes observer")
struct RootFolderAndPersistentObserverTests {
    @Test(arguments: LibraryProviders.conformance)
    func theRootFolderHoldsTheTopLevelAndIsNeverRenamedOrDeleted(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(name: "Root", provider: provider)
        defer { library.remove() }
        var folderID = ""
        var albumIDs: [String] = []
        try library.library.performChangesAndWait {
            folderID =
                PHCollectionListChangeRequest.creationRequestForCollectionList(withTitle: "Trips").placeholderForCreatedCollectionList.localIdentifier
            for title in ["Zoo", "Beach"] {
                albumIDs.append(
                    PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: title).placeholderForCreatedAssetCollection
                        .localIdentifier)
            }
        }
        let roots = PHCollectionList.fetchCollectionLists(with: .folder, subtype: .rootFolder, options: library.options())
        #expect(roots.count == 1)
        let root = try #require(roots.firstObject)
        #expect(root.collectionListType == .folder && root.collectionListSubtype == .rootFolder)
        #expect(!root.canPerform(.rename) && !root.canPerform(.delete) && root.canPerform(.addContent) && root.canPerform(.rearrangeContent))
        // Not among the folders a `.any` fetch lists (those are the user's), but found by its identifier.
        #expect(identifiers(PHCollectionList.fetchCollectionLists(with: .folder, subtype: .any, options: library.options())) == [folderID])
        #expect(
            identifiers(PHCollectionList.fetchCollectionLists(withLocalIdentifiers: [root.localIdentifier], options: library.options())) == [
                root.localIdentifier
            ])

        let top = PHCollection.fetchTopLevelUserCollections(with: library.options())
        #expect(identifiers(PHCollection.fetchCollections(in: root, options: library.options())) == identifiers(top))
        #expect(Set(identifiers(top)) == Set([folderID] + albumIDs))
        let beach = try #require(PHAssetCollection.fetchAssetCollections(withLocalIdentifiers: [albumIDs[1]], options: library.options()).firstObject)
        #expect(identifiers(PHCollectionList.fetchCollectionListsContaining(beach, options: library.options())) == [root.localIdentifier])

        // Rearranged through the root folder, as through the top-level request.
        let before = PHCollection.fetchCollections(in: root, options: library.options())
        try library.library.performChangesAndWait {
            PHCollectionListChangeRequest(for: root, childCollections: before)!.moveChildCollections(at: [before.count - 1], to: 0)
        }
        let after = identifiers(PHCollection.fetchCollections(in: root, options: library.options()))
        #expect(after == [identifiers(before).last!] + identifiers(before).dropLast())

        // Moving an album into a folder takes it out of the root folder.
        let folder = try #require(PHCollectionList.fetchCollectionLists(withLocalIdentifiers: [folderID], options: library.options()).firstObject)
        try library.library.performChangesAndWait { PHCollectionListChangeRequest(for: folder)!.addChildCollections([beach] as NSArray) }
        #expect(!identifiers(PHCollection.fetchCollections(in: root, options: library.options())).contains(albumIDs[1]))
        #expect(identifiers(PHCollectionList.fetchCollectionListsContaining(beach, options: library.options())) == [folderID])

        let renamed = #expect(throws: PHPhotosError.self) {
            try library.library.performChangesAndWait { PHCollectionListChangeRequest(for: root)!.title = "Renamed" }
        }
        #expect(renamed?.code == .changeNotSupported)
        #expect(throws: PHPhotosError.self) {
            try library.library.performChangesAndWait { PHCollectionListChangeRequest.deleteCollectionLists([root] as NSArray) }
        }
        #expect(PHCollectionList.fetchCollectionLists(with: .folder, subtype: .rootFolder, options: library.options()).count == 1)
    }

    final class PersistentObserver: NSObject, PHPhotoLibraryPersistentChangesObserver, Sendable {
        let calls = Mutex(0)
        let arrived = DispatchSemaphore(value: 0)

        func photoLibraryPersistentChangesDidUpdate(_ library: PHPhotoLibrary) {
            calls.withLock { $0 += 1 }
            arrived.signal()
        }
    }

    @Test(arguments: LibraryProviders.conformance)
    func thePersistentObserverIsToldOfEveryCommitAndThenFetchesIt(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(name: "PersistentObserver", provider: provider)
        defer { library.remove() }
        try library.owner.setAuthorization(.authorized, for: "phone")
        try library.owner.setAuthorization(.limited, for: "limited")
        let phone = try library.open(clientIdentifier: "phone")
        let limited = try library.open(clientIdentifier: "limited")
        let observer = PersistentObserver()
        let unauthorized = PersistentObserver()
        phone.register(observer)
        limited.register(unauthorized)
        var token = phone.currentChangeToken

        // Another handle (as another process) commits twice.
        let ids = try library.addImages(1)
        let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: ids, options: library.options()).firstObject)
        try library.library.performChangesAndWait { PHAssetChangeRequest(for: asset).rating = .three }
        var seen: [Set<String>] = []
        while seen.count < 2 {
            #expect(observer.arrived.wait(timeout: .now() + 30) == .success)
            for change in try phone.fetchPersistentChanges(since: token) {
                let details = try change.changeDetails(for: .asset)
                seen.append(details.insertedLocalIdentifiers.union(details.updatedLocalIdentifiers))
                token = change.changeToken
            }
        }
        #expect(seen == [Set(ids), Set(ids)])
        #expect(unauthorized.calls.withLock { $0 } == 0)

        // Unregistered: told nothing more.
        phone.unregisterPersistentChangesObserver(observer)
        let count = observer.calls.withLock { $0 }
        try library.library.performChangesAndWait { PHAssetChangeRequest(for: asset).rating = .one }
        let witness = PersistentObserver()
        phone.register(witness)
        try library.library.performChangesAndWait { PHAssetChangeRequest(for: asset).rating = .two }
        #expect(witness.arrived.wait(timeout: .now() + 30) == .success)
        #expect(observer.calls.withLock { $0 } == count)
    }

    @Test(arguments: LibraryProviders.conformance)
    func resourcesHaveTheirFilename(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(name: "Filename", provider: provider)
        defer { library.remove() }
        let file = try library.makeImage("IMG_0042.JPG")
        let photo = try Data(contentsOf: file)
        var ids: [String] = []
        try library.library.performChangesAndWait {
            ids.append(PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)!.placeholderForCreatedAsset!.localIdentifier)
            let request = PHAssetCreationRequest.forAsset()
            let options = PHAssetResourceCreationOptions()
            options.originalFilename = "Scan 1.jpeg"
            request.addResource(with: .photo, data: photo, options: options)
            ids.append(request.placeholderForCreatedAsset!.localIdentifier)
        }
        let assets = PHAsset.fetchAssets(withLocalIdentifiers: ids, options: library.options())
        let names = assets.map { PHAssetResource.assetResources(for: $0).first?.filename }
        #expect(Set(names) == ["IMG_0042.JPG", "Scan 1.jpeg"])
    }
}
