import Foundation
import OpenPhotos
import PhotosTestHarness
import PhotosTesting
import Testing

/// `photos library copy SRC DST` between stores: SQLite → PostgreSQL and back (SQLite → SQLite where no server is
/// configured). The copy is the same library to every command and to PhotoKit's API.
extension PhotosCommandTests {
    struct StorePair: CustomTestStringConvertible, Sendable {
        let from: any LibraryProvider
        let to: any LibraryProvider
        var testDescription: String { "\(from) → \(to)" }

        static var all: [StorePair] {
            let providers = LibraryProviders.all
            guard providers.count > 1 else { return [StorePair(from: providers[0], to: providers[0])] }
            return [StorePair(from: providers[0], to: providers[1]), StorePair(from: providers[1], to: providers[0])]
        }
    }

    static func argument(_ url: URL) -> String { url.isFileURL ? url.path : url.absoluteString }

    @Test(arguments: StorePair.all) func aCopyIsTheSameLibraryOnAnotherStore(_ pair: StorePair) throws {
        let source = try TestLibrary(name: "CopySource", provider: pair.from)
        defer { source.remove() }
        let destination = try pair.to.makeLibrary(name: "CopyDestination", scratch: source.scratch)
        defer { pair.to.removeLibrary(at: destination) }
        let library = source.library
        let start = library.currentChangeToken
        let ids = try source.addImages(4)
        let assets = PHAsset.fetchAssets(withLocalIdentifiers: ids, options: source.options())
        // An album, then a folder made after it that the album is moved into (the folder's row comes later).
        try library.performChangesAndWait {
            let album = PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Trip")
            album.addAssets([assets[0], assets[1]] as NSArray)
        }
        let album = try #require(PHAssetCollection.fetchAssetCollections(with: .album, subtype: .any, options: source.options()).firstObject)
        try library.performChangesAndWait {
            PHCollectionListChangeRequest.creationRequestForCollectionList(withTitle: "2026").addChildCollections([album] as NSArray)
            PHAssetChangeRequest(for: assets[1]).isFavorite = true
            let described = PHAssetChangeRequest(for: assets[2])
            described.rating = .five
            described.caption = "Harbour at dusk"
            described.addKeyword("boats")
            described.addKeyword("Kiel")
        }
        try library.performChangesAndWait { PHAssetChangeRequest.deleteAssets([assets[3]] as NSArray) }
        let edit = try photos(["edit", ids[0], "--exposure", "0.5"], library: source.url)
        #expect(edit.status == 0, "\(edit.stderr)")
        try library.setAuthorization(.limited, for: "frame", accessLevel: .readWrite, selection: [ids[2]])
        let (_, secret) = try library.createAccessToken(for: "frame")

        let copied = try photos(["library", "copy", Self.argument(source.url), Self.argument(destination), "--json"], library: nil)
        #expect(copied.status == 0, "\(copied.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(copied.stdout.utf8)) as? [String: Any]
        #expect(report?["assets"] as? Int == 4)
        #expect(report?["files"] as? Int == 6, "four originals, the edit's rendering and its adjustments")
        #expect((report?["problems"] as? [Any])?.isEmpty == true)

        // Every command says the same of both.
        for command in [["ls", "--json"], ["albums", "--json"], ["show", ids[0], "--json"], ["changes", "--json"], ["verify", "--json"]] {
            let original = try photos(command, library: source.url)
            let copy = try photos(command, library: destination)
            #expect(original.status == 0 && copy.status == 0, "\(command): \(original.stderr) \(copy.stderr)")
            #expect(copy.stdout == original.stdout, "\(command)")
        }

        // Keywords carry over, and the copy's search index is made from them (ls --json above compared the rest).
        for query in ["kiel boat", "harbour"] {
            let original = try photos(["ls", "--search", query], library: source.url)
            let copy = try photos(["ls", "--search", query], library: destination)
            #expect(copy.stdout == original.stdout && original.stdout.contains(ids[2]), "\(query)")
        }

        // Grants, tokens and history carry over; the copy goes on numbering after the original.
        let copy = try PHPhotoLibrary(url: destination, clientIdentifier: nil)
        #expect(copy.clientIdentifier(forAccessToken: secret) == "frame")
        let frame = try PHPhotoLibrary(url: destination, clientIdentifier: "frame")
        let options = PHFetchOptions()
        options.photoLibrary = frame
        #expect(PHAsset.fetchAssets(with: options).objects(at: IndexSet(integersIn: 0..<1)).map(\.localIdentifier) == [ids[2]])
        #expect(copy.currentChangeToken == library.currentChangeToken)
        let history = try Array(copy.fetchPersistentChanges(since: start)).map { try $0.changeDetails(for: .asset).insertedLocalIdentifiers }
        let originalHistory = try Array(library.fetchPersistentChanges(since: start)).map {
            try $0.changeDetails(for: .asset).insertedLocalIdentifiers
        }
        #expect(history == originalHistory && history.first == Set(ids))
        let end = copy.currentChangeToken
        let image = try source.makeImage()
        var added: String?
        try copy.performChangesAndWait {
            added = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: image)?.placeholderForCreatedAsset?.localIdentifier
        }
        let after = Array(try copy.fetchPersistentChanges(since: end))
        let inserted = try after.first?.changeDetails(for: .asset).insertedLocalIdentifiers
        #expect(after.count == 1 && inserted == Set([added].compactMap { $0 }))

        // A library that was used is never copied into; the original is as it was.
        let again = try photos(["library", "copy", Self.argument(source.url), Self.argument(destination)], library: nil)
        #expect(again.status == 1 && again.stderr.contains("already holds a library"), "\(again.stderr)")
        #expect(PHAsset.fetchAssets(with: source.options()).count == 3)
    }
}
