import Foundation
import Photos
import PhotosTesting
import Testing

/// iOS 27's asset metadata on every kind of library: ratings (a fetch key), captions and keywords (extended metadata,
/// lazy or prefetched), observed and journaled as property changes; and the Live Photo video toggle of iOS 27.3.
@Suite("Ratings, captions, keywords")
struct AssetMetadataTests {
    private static func asset(_ id: String, _ library: TestLibrary, prefetch: Bool = false) throws -> PHAsset {
        try #require(
            PHAsset.fetchAssets(withLocalIdentifiers: [id], options: library.options { $0.prefetchAssetExtendedMetadata = prefetch })
                .firstObject)
    }

    @Test(arguments: LibraryProviders.conformance)
    func ratingCaptionAndKeywordsAreStoredAsSet(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(name: "Metadata", provider: provider)
        defer { library.remove() }
        let ids = try library.addImages(2) { index, request in
            if index == 0 {
                request.rating = .four
                request.caption = "  Low tide at Étretat 🌊\n"
                request.addKeyword("beach")
                request.addKeyword("Normandy")
                request.addKeyword("beach")
            }
        }
        let first = try Self.asset(ids[0], library)
        #expect(first.rating == .four)
        #expect(first.extendedMetadata.caption == "  Low tide at Étretat 🌊\n")
        #expect(first.extendedMetadata.keywords == ["beach", "Normandy"])
        #expect(first.extendedMetadata.originalFilename?.hasSuffix(".jpg") == true)
        let second = try Self.asset(ids[1], library)
        #expect(second.rating == .unset)
        #expect(second.extendedMetadata.caption == nil && second.extendedMetadata.keywords.isEmpty)

        // Edits: keywords added after those there, one removed, "Beach" kept apart from "beach", the caption cleared.
        try library.library.performChangesAndWait {
            let request = PHAssetChangeRequest(for: first)
            #expect(request.rating == .four)
            #expect(request.caption == "  Low tide at Étretat 🌊\n")
            request.rating = .two
            request.removeKeyword("beach")
            request.addKeyword(" Beach ")
            request.addKeyword("sunset")
            request.removeKeyword("not there")
            request.caption = ""
        }
        let edited = try Self.asset(ids[0], library, prefetch: true)
        #expect(edited.rating == .two)
        #expect(edited.extendedMetadata.caption == nil)
        #expect(edited.extendedMetadata.keywords == ["Normandy", "Beach", "sunset"])
        // An object keeps the metadata it loaded: a snapshot, as PHAsset is.
        #expect(first.extendedMetadata.keywords == ["beach", "Normandy"])
        #expect(edited.extendedMetadata == (try Self.asset(ids[0], library)).extendedMetadata)

        // Refused, and nothing of the block applied.
        for bad in ["", "   ", String(repeating: "k", count: 257)] {
            #expect(throws: PHPhotosError.self) {
                try library.library.performChangesAndWait {
                    PHAssetChangeRequest(for: edited).rating = .five
                    PHAssetChangeRequest(for: edited).addKeyword(bad)
                }
            }
        }
        #expect(throws: PHPhotosError.self) {
            try library.library.performChangesAndWait { PHAssetChangeRequest(for: edited).caption = String(repeating: "c", count: 8193) }
        }
        let unchanged = try Self.asset(ids[0], library)
        #expect(unchanged.rating == .two && unchanged.extendedMetadata.keywords == ["Normandy", "Beach", "sunset"])
    }

    @Test(arguments: LibraryProviders.conformance)
    func ratingIsAFetchKey(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(name: "Ratings", provider: provider)
        defer { library.remove() }
        let stars: [PHAsset.Rating] = [.three, .unset, .five, .one, .three]
        let ids = try library.addImages(stars.count) { index, request in request.rating = stars[index] }
        let rated = PHAsset.fetchAssets(
            with: library.options {
                $0.predicate = NSPredicate(format: "rating >= %d", PHAsset.Rating.three.rawValue)
                $0.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: false), NSSortDescriptor(key: "creationDate", ascending: true)]
            })
        #expect(identifiers(rated) == [ids[2], ids[0], ids[4]])
        let unrated = PHAsset.fetchAssets(with: library.options { $0.predicate = NSPredicate(format: "rating == 0") })
        #expect(identifiers(unrated) == [ids[1]])
        #expect(rated[0].value(forKey: "rating") as? Int == 5)
    }

    @Test(arguments: LibraryProviders.conformance)
    func metadataChangesAreObservedAndJournaledAsPropertyChanges(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(name: "MetadataChanges", provider: provider)
        defer { library.remove() }
        let ids = try library.addImages(3)
        let fourStars = PHAsset.fetchAssets(with: library.options { $0.predicate = NSPredicate(format: "rating == 4") })
        #expect(fourStars.count == 0)
        let asset = try Self.asset(ids[1], library)
        let token = library.library.currentChangeToken
        let recorder = ChangeRecorder()
        library.library.register(recorder)
        defer { library.library.unregisterChangeObserver(recorder) }

        try library.library.performChangesAndWait {
            let request = PHAssetChangeRequest(for: asset)
            request.rating = .four
            request.addKeyword("kept")
        }
        let change = try recorder.next()
        let details = try #require(change.changeDetails(for: fourStars))
        #expect(details.insertedObjects.map(\.localIdentifier) == [ids[1]])
        let objectDetails = try #require(change.changeDetails(for: asset))
        #expect(!objectDetails.assetContentChanged && !objectDetails.objectWasDeleted)
        #expect(objectDetails.objectAfterChanges?.rating == .four)
        #expect(objectDetails.objectAfterChanges?.extendedMetadata.keywords == ["kept"])

        try library.library.performChangesAndWait { PHAssetChangeRequest(for: asset).caption = "Only a caption" }
        _ = try recorder.next()
        let history = Array(try library.library.fetchPersistentChanges(since: token))
        #expect(history.count == 2)
        for entry in history {
            let assets = try entry.changeDetails(for: .asset)
            #expect(assets.updatedLocalIdentifiers == [ids[1]] && assets.insertedLocalIdentifiers.isEmpty)
        }
    }

    /// Two handles on one library (as two processes) add keywords to the same asset from what each fetched: both
    /// keep theirs, since keywords are edited against the asset's state at commit.
    @Test(arguments: LibraryProviders.conformance)
    func keywordsAddedByTwoWritersAreBothKept(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(name: "Keywords", provider: provider)
        defer { library.remove() }
        let id = try library.addImages(1)[0]
        let other = try library.open()
        let mine = try Self.asset(id, library)
        let theirs = try #require(
            PHAsset.fetchAssets(
                withLocalIdentifiers: [id],
                options: {
                    let o = PHFetchOptions(); o.photoLibrary = other; return o
                }()
            ).firstObject)
        try library.library.performChangesAndWait { PHAssetChangeRequest(for: mine).addKeyword("mine") }
        try other.performChangesAndWait { PHAssetChangeRequest(for: theirs).addKeyword("theirs") }
        #expect(try Self.asset(id, library).extendedMetadata.keywords == ["mine", "theirs"])
    }

    @Test(arguments: LibraryProviders.conformance)
    func aLivePhotosVideoTurnsOffAndOnAgain(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(name: "LiveToggle", provider: provider)
        defer { library.remove() }
        let still = try library.makeImage()
        let movie = library.scratch.appendingPathComponent("live.mov")
        try TestMedia.writeMovie(to: movie, width: 64, height: 48, seconds: 1, audio: false)
        var liveID = ""
        try library.library.performChangesAndWait {
            let request = PHAssetCreationRequest.forAsset()
            request.addResource(with: .photo, fileURL: still, options: nil)
            request.addResource(with: .pairedVideo, fileURL: movie, options: nil)
            liveID = request.placeholderForCreatedAsset!.localIdentifier
        }
        let photoID = try library.addImages(1)[0]
        let live = try Self.asset(liveID, library)
        let photo = try Self.asset(photoID, library)
        #expect(live.playbackStyle == .livePhoto && live.canPerform(.setLivePhotoVideoPlaybackEnabled))
        #expect(!photo.canPerform(.setLivePhotoVideoPlaybackEnabled))

        try library.library.performChangesAndWait { PHAssetChangeRequest(for: live).setLivePhotoVideoPlaybackEnabled(false) }
        let off = try Self.asset(liveID, library)
        #expect(off.playbackStyle == .image)
        #expect(off.mediaSubtypes.contains(.photoLive))
        #expect(PHAssetResource.assetResources(for: off).map(\.type) == [.photo, .pairedVideo])
        #expect(off.canPerform(.setLivePhotoVideoPlaybackEnabled))
        try library.library.performChangesAndWait { PHAssetChangeRequest(for: off).setLivePhotoVideoPlaybackEnabled(true) }
        #expect(try Self.asset(liveID, library).playbackStyle == .livePhoto)

        let error = #expect(throws: PHPhotosError.self) {
            try library.library.performChangesAndWait { PHAssetChangeRequest(for: photo).setLivePhotoVideoPlaybackEnabled(false) }
        }
        #expect(error?.code == .changeNotSupported)
    }

    /// A JPEG with an XMP packet (APP1) and IPTC (APP13) inserted after its SOI, as Lightroom exports them.
    static func describedJPEG(_ library: TestLibrary, name: String) throws -> URL {
        let plain = try Data(contentsOf: try library.makeImage())
        func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
            let length = payload.count + 2
            return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        }
        let xmp = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/" \
            xmp:Rating="5"><dc:subject><rdf:Bag><rdf:li>dunes</rdf:li><rdf:li>Sylt</rdf:li></rdf:Bag></dc:subject>\
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """
        let iim: [UInt8] = [0x1C, 2, 120, 0, 11] + Array("List, Sylt.".utf8) + [0x1C, 2, 25, 0, 4] + Array("Sylt".utf8)
        let resources =
            Array("Photoshop 3.0\u{0}8BIM".utf8) + [0x04, 0x04, 0, 0, 0, 0, 0, UInt8(iim.count)] + iim + (iim.count % 2 == 1 ? [0] : [])
        var bytes = [UInt8](plain.prefix(2))
        bytes += segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\u{0}".utf8) + Array(xmp.utf8))
        bytes += segment(0xED, resources)
        bytes += plain.dropFirst(2)
        let file = library.scratch.appendingPathComponent(name)
        try Data(bytes).write(to: file)
        return file
    }

    @Test(arguments: LibraryProviders.conformance)
    func importReadsRatingCaptionAndKeywordsFromTheFile(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(name: "DescribedImport", provider: provider)
        defer { library.remove() }
        let folder = library.scratch.appendingPathComponent("import")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        _ = try Self.describedJPEG(library, name: "import/DSC_0001.JPG")
        let report = try library.library.importItems(at: [folder], recursive: true)
        #expect(report.failures.isEmpty)
        let imported = try #require(PHAsset.fetchAssets(with: library.options()).firstObject)
        #expect(imported.rating == .five)
        #expect(imported.extendedMetadata.caption == "List, Sylt.")
        #expect(imported.extendedMetadata.keywords == ["dunes", "Sylt"])
        #expect(imported.extendedMetadata.originalFilename == "DSC_0001.JPG")

        // What a creation request sets wins over the file; keywords it adds follow the file's.
        let file = try Self.describedJPEG(library, name: "second.jpg")
        var id = ""
        try library.library.performChangesAndWait {
            let request = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)!
            request.rating = .one
            request.caption = nil
            request.addKeyword("mine")
            request.removeKeyword("dunes")
            id = request.placeholderForCreatedAsset!.localIdentifier
        }
        let created = try Self.asset(id, library)
        #expect(created.rating == .one)
        #expect(created.extendedMetadata.caption == nil)
        #expect(created.extendedMetadata.keywords == ["Sylt", "mine"])
    }
}
