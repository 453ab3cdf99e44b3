import OpenPhotos
import Foundation
import PhotosTesting
import Testing

/// Access levels: the library's own policy decides on Linux.
@Suite("Authorization and access levels")
struct AccessTests {
    func client(_ library: TestLibrary, _ id: String) throws -> PHPhotoLibrary {
        try PHPhotoLibrary(url: library.url, clientIdentifier: id)
    }

    func fetchAll(_ handle: PHPhotoLibrary) -> Int {
        let options = PHFetchOptions()
        options.photoLibrary = handle
        return PHAsset.fetchAssets(with: options).count
    }

    func add(_ handle: PHPhotoLibrary, _ file: URL) throws -> String {
        var id = ""
        try handle.performChangesAndWait {
            id = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)!.placeholderForCreatedAsset!.localIdentifier
        }
        return id
    }

    func code(_ body: () throws -> Void) -> Int? {
        do {
            try body()
            return nil
        } catch {
            return (error as NSError).code
        }
    }

    @Test func theOwnerIsAuthorizedAndUnknownClientsAreNotDetermined() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        #expect(library.library.authorizationStatus(for: .readWrite) == .authorized)
        let stranger = try client(library, "com.example.stranger")
        #expect(stranger.authorizationStatus(for: .readWrite) == .notDetermined)
        try library.addImages(1)
        #expect(fetchAll(stranger) == 0)
        // Without a decision by the owner, a request resolves to the library's default: denied.
        #expect(stranger.requestAuthorization(for: .readWrite) == .denied)
        #expect(code { _ = try add(stranger, try library.makeImage()) } == 3311)
    }

    @Test func addOnlyClientsAddButSeeNothing() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.addImages(2)
        try library.library.setAuthorization(.authorized, for: "uploader", accessLevel: .addOnly)
        let uploader = try client(library, "uploader")
        #expect(uploader.authorizationStatus(for: .addOnly) == .authorized)
        #expect(uploader.authorizationStatus(for: .readWrite) == .denied)
        #expect(fetchAll(uploader) == 0)
        let added = try add(uploader, try library.makeImage())
        #expect(fetchAll(uploader) == 0)
        #expect(fetchAll(library.library) == 3)
        let asset = PHAsset.fetchAssets(withLocalIdentifiers: [added], options: library.options())[0]
        #expect(code { try uploader.performChangesAndWait { PHAssetChangeRequest(for: asset).isFavorite = true } } == 3311)
        #expect(
            code { try uploader.performChangesAndWait { _ = PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "x") } }
                == 3311)
    }

    @Test func limitedClientsSeeTheirSelectionAndWhatTheyAdded() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let ids = try library.addImages(3)
        try library.library.performChangesAndWait { _ = PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Private") }
        try library.library.setAuthorization(.limited, for: "picker", selection: [ids[1]])
        let picker = try client(library, "picker")
        #expect(picker.authorizationStatus(for: .readWrite) == .limited)
        #expect(picker.authorizationStatus(for: .addOnly) == .authorized)
        let options = PHFetchOptions()
        options.photoLibrary = picker
        #expect(PHAsset.fetchAssets(with: options).map(\.localIdentifier) == [ids[1]])
        #expect(PHAsset.fetchAssets(withLocalIdentifiers: ids, options: options).map(\.localIdentifier) == [ids[1]])
        let added = try add(picker, try library.makeImage())
        #expect(Set(PHAsset.fetchAssets(with: options).map(\.localIdentifier)) == [ids[1], added])
        #expect(PHAssetCollection.fetchAssetCollections(with: .album, subtype: .any, options: options).count == 0)
        #expect(PHCollection.fetchTopLevelUserCollections(with: options).count == 0)
        let outside = PHAsset.fetchAssets(withLocalIdentifiers: [ids[0]], options: library.options())[0]
        #expect(code { try picker.performChangesAndWait { PHAssetChangeRequest(for: outside).isFavorite = true } } == 3311)
        let inside = PHAsset.fetchAssets(withLocalIdentifiers: [ids[1]], options: options)[0]
        try picker.performChangesAndWait { PHAssetChangeRequest(for: inside).isFavorite = true }
    }

    @Test func aReadOnlyLibraryAcceptsNoWrites() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.addImages(1)
        let reader = try PHPhotoLibrary(url: library.url, clientIdentifier: nil, readOnly: true)
        #expect(fetchAll(reader) == 1)
        #expect(code { _ = try add(reader, try library.makeImage()) } == 3310)

        let database = library.url.appendingPathComponent("database/Photos.sqlite")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: database.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: database.path) }
        let byPermissions = try PHPhotoLibrary(url: library.url, clientIdentifier: nil)
        #expect(fetchAll(byPermissions) == 1)
        #expect(code { _ = try add(byPermissions, try library.makeImage()) } == 3310)
    }
}
