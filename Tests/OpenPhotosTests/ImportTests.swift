import OpenPhotos
import Foundation
import PhotosTestHarness
import PhotosTesting
import Testing

/// Importing real files: metadata, Live Photo pairing, bursts, duplicates and broken input (generated fixtures;
/// the shared corpus has its own suite).
@Suite("Import")
struct ImportTests {
    func asset(_ library: TestLibrary, _ id: String) throws -> PHAsset {
        try #require(
            PHAsset.fetchAssets(
                withLocalIdentifiers: [id],
                options: library.options {
                    $0.includeAllBurstAssets = true; $0.includeHiddenAssets = true
                }
            ).firstObject)
    }

    @Test func datesPlacesCameraAndSubtypesComeFromTheFile() throws {
        let library = try TestLibrary(name: "ImportEXIF")
        defer { library.remove() }
        let file = library.scratch.appendingPathComponent("IMG_0001.JPG")
        try TestMedia.writeJPEG(
            to: file, width: 120, height: 80,
            exif: TestEXIF(
                make: "Apple", model: "iPhone 15", lensModel: "iPhone 15 front camera 2.69mm f/1.9", dateTimeOriginal: "2023:07:14 18:30:05",
                offsetTimeOriginal: "+02:00", subSecTimeOriginal: "250", latitude: -33.8568, longitude: 151.2153, altitude: -12.5,
                customRendered: 3))
        let report = try library.library.importItems(at: [file])
        #expect(report.failures.isEmpty, "\(report.failures)")
        let imported = try asset(library, try #require(report.importedLocalIdentifiers.first))

        // 18:30:05.250 at +02:00 is 16:30:05.250 UTC, and the zone is kept.
        #expect(imported.creationDate == Date(timeIntervalSince1970: 1_689_352_205.25))
        #expect(imported.creationTimeZone?.secondsFromGMT() == 7200)
        let location = try #require(imported.location)
        #expect(abs(location.coordinate.latitude - -33.8568) < 1e-6 && abs(location.coordinate.longitude - 151.2153) < 1e-6)
        #expect(location.altitude == -12.5)
        #expect(imported.mediaSubtypes == .photoHDR)
        #expect(imported.pixelWidth == 120 && imported.pixelHeight == 80)
        #expect(PHAssetResource.assetResources(for: imported).map(\.originalFilename) == ["IMG_0001.JPG"])
        // The front camera puts it in Self-Portraits.
        let selfies = try #require(
            PHAssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumSelfPortraits, options: library.options()).firstObject)
        #expect(identifiers(PHAsset.fetchAssets(in: selfies, options: nil)) == [imported.localIdentifier])
    }

    /// Photos' export of an edited photo: the original, its edited rendering `IMG_E…` and its `.AAE` become one asset
    /// whose edit can be reverted; a sidecar whose edit cannot be kept never costs the photo; an `IMG_E` file without
    /// an `.AAE` is a photo of its own; a damaged `.AAE` is reported.
    @Test func anAAEAndItsEditedRenderingBecomeTheAssetsEdit() async throws {
        let library = try TestLibrary(name: "AAEImport")
        defer { library.remove() }
        let card = library.scratch.appendingPathComponent("DCIM")
        try FileManager.default.createDirectory(at: card, withIntermediateDirectories: true)
        try TestMedia.writeImage(to: card.appendingPathComponent("IMG_0001.JPG"), width: 64, height: 48)
        try TestMedia.writeImage(to: card.appendingPathComponent("IMG_E0001.JPG"), width: 48, height: 48)
        let recipe = Data((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let sidecar = AdjustmentSidecar(
            formatIdentifier: "com.apple.photo", formatVersion: "1.5", data: recipe, baseVersion: 0,
            editorBundleID: "com.apple.mobileslideshow", timestamp: Date(timeIntervalSince1970: 1_700_000_000), renderTypes: 0)
        try sidecar.plist().write(to: card.appendingPathComponent("IMG_0001.AAE"))
        // A PNG cannot carry an edit's rendering here: imported without it, and said so.
        try TestMedia.ffmpegRun(["-f", "lavfi", "-i", "color=c=blue:s=32x24", "-frames:v", "1", card.appendingPathComponent("IMG_0002.PNG").path])
        try sidecar.plist().write(to: card.appendingPathComponent("IMG_O0002.AAE"))
        try TestMedia.writeImage(to: card.appendingPathComponent("IMG_0003.JPG"), width: 40, height: 30)
        try TestMedia.writeImage(to: card.appendingPathComponent("IMG_E0003.JPG"), width: 30, height: 30)
        try Data("not a property list".utf8).write(to: card.appendingPathComponent("IMG_0004.AAE"))

        let report = try library.library.importItems(at: [card])
        #expect(report.importedLocalIdentifiers.count == 4, "\(report.failures)")
        #expect(report.editsKept == 1)
        #expect(report.failures.map(\.file.lastPathComponent).sorted() == ["IMG_0004.AAE", "IMG_O0002.AAE"], "\(report.failures)")
        let all = PHAsset.fetchAssets(with: library.options())
        func named(_ name: String) -> PHAsset? {
            all.first { PHAssetResource.assetResources(for: $0).contains { $0.originalFilename == name } }
        }
        let edited = try #require(named("IMG_0001.JPG"))
        #expect(edited.hasAdjustments && edited.adjustmentFormatIdentifier == "com.apple.photo")
        let resources = PHAssetResource.assetResources(for: edited)
        #expect(resources.map(\.type) == [.photo, .fullSizePhoto, .adjustmentData])
        let rendering = try Data(contentsOf: card.appendingPathComponent("IMG_E0001.JPG"))
        let stored = try #require(resources.first { $0.type == .fullSizePhoto }?.fileURL)
        #expect(try Data(contentsOf: stored) == rendering, "the edited rendering, byte for byte")
        #expect((edited.pixelWidth, edited.pixelHeight) == (48, 48), "the edit is the current version")
        let options = PHContentEditingInputRequestOptions()
        options.canHandleAdjustmentData = { $0.formatIdentifier == "com.apple.photo" && $0.formatVersion == "1.5" }
        let input = try await edited.requestContentEditingInput(with: options)
        #expect(input.adjustmentData?.data == recipe)
        #expect(named("IMG_0002.PNG")?.hasAdjustments == false)
        #expect(named("IMG_0003.JPG")?.hasAdjustments == false && named("IMG_E0003.JPG") != nil)

        // Reverted: the original again.
        try library.library.performChangesAndWait { PHAssetChangeRequest(for: edited).revertAssetContentToOriginal() }
        let reverted = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [edited.localIdentifier], options: library.options()).firstObject)
        #expect(!reverted.hasAdjustments && (reverted.pixelWidth, reverted.pixelHeight) == (64, 48))
    }

    /// XMP sidecars as darktable (`NAME.EXT.xmp`) and Lightroom (`NAME.xmp`) write them: rating, caption, keywords.
    @Test func xmpSidecarsGiveRatingCaptionAndKeywords() throws {
        let library = try TestLibrary(name: "XMPSidecars")
        defer { library.remove() }
        let folder = library.scratch.appendingPathComponent("roll")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        func packet(_ rating: Int, _ caption: String, _ keywords: [String]) -> Data {
            Data(
                """
                <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
                <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmp:Rating="\(rating)">
                <dc:description><rdf:Alt><rdf:li xml:lang="x-default">\(caption)</rdf:li></rdf:Alt></dc:description>
                <dc:subject><rdf:Bag>\(keywords.map { "<rdf:li>\($0)</rdf:li>" }.joined())</rdf:Bag></dc:subject>
                </rdf:Description></rdf:RDF></x:xmpmeta>
                """.utf8)
        }
        try TestMedia.writeImage(to: folder.appendingPathComponent("DSC_0001.JPG"), width: 40, height: 30)
        try packet(3, "Dunes &amp; grass", ["dunes", "grass"]).write(to: folder.appendingPathComponent("DSC_0001.JPG.xmp"))
        try TestMedia.writeImage(to: folder.appendingPathComponent("DSC_0002.jpg"), width: 42, height: 30)
        try packet(5, "Lighthouse", ["coast"]).write(to: folder.appendingPathComponent("DSC_0002.xmp"))
        try TestMedia.writeImage(to: folder.appendingPathComponent("DSC_0003.jpg"), width: 44, height: 30)
        let report = try library.library.importItems(at: [folder])
        #expect(report.importedLocalIdentifiers.count == 3 && report.failures.isEmpty, "\(report.failures)")
        let all = PHAsset.fetchAssets(with: library.options { $0.prefetchAssetExtendedMetadata = true })
        let described = Dictionary(
            uniqueKeysWithValues: all.map {
                ($0.extendedMetadata.originalFilename ?? "", ($0.rating, $0.extendedMetadata.caption, $0.extendedMetadata.keywords))
            })
        #expect(described["DSC_0001.JPG"]?.0 == .three && described["DSC_0001.JPG"]?.1 == "Dunes & grass")
        #expect(described["DSC_0001.JPG"]?.2 == ["dunes", "grass"])
        #expect(described["DSC_0002.jpg"]?.0 == .five && described["DSC_0002.jpg"]?.2 == ["coast"])
        #expect(described["DSC_0003.jpg"]?.0 == .unset && described["DSC_0003.jpg"]?.2 == [])
    }

    @Test func livePhotosPairByContentIdentifierNeverAcrossDifferentOnes() throws {
        let library = try TestLibrary(name: "ImportLive")
        defer { library.remove() }
        let folder = library.scratch.appendingPathComponent("card")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let id = "6E8C9C22-5F0B-4C43-9A0E-111111111111"
        // The pair's names differ; the other still and video share a name but not an identifier.
        try TestMedia.writeJPEG(
            to: folder.appendingPathComponent("IMG_0100.JPG"), width: 64, height: 48,
            exif: TestEXIF(dateTimeOriginal: "2024:05:01 10:00:00", offsetTimeOriginal: "-05:00", appleContentIdentifier: id))
        try TestMedia.writeMovie(
            to: folder.appendingPathComponent("video-from-elsewhere.mov"),
            keys: ["com.apple.quicktime.content.identifier": id, "com.apple.quicktime.creationdate": "2024-05-01T09:59:59-0500"])
        try TestMedia.writeJPEG(
            to: folder.appendingPathComponent("IMG_0200.JPG"), width: 64, height: 48,
            exif: TestEXIF(dateTimeOriginal: "2024:05:01 11:00:00", appleContentIdentifier: "AAAAAAAA-0000-0000-0000-000000000001"))
        try TestMedia.writeMovie(
            to: folder.appendingPathComponent("IMG_0200.MOV"),
            keys: ["com.apple.quicktime.content.identifier": "BBBBBBBB-0000-0000-0000-000000000002"])
        // No identifiers at all: the same base name within a few seconds pairs.
        try TestMedia.writeJPEG(
            to: folder.appendingPathComponent("clip.jpg"), width: 64, height: 48, exif: TestEXIF(dateTimeOriginal: "2024:05:02 08:00:00"))
        try TestMedia.writeMovie(to: folder.appendingPathComponent("clip.mov"), keys: ["creation_time": "2024-05-02T08:00:01Z"])

        let report = try library.library.importItems(at: [folder])
        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(report.importedLocalIdentifiers.count == 4)
        #expect(report.livePhotosPaired == 2)
        let assets = report.importedLocalIdentifiers.map { try? asset(library, $0) }.compactMap { $0 }
        func resources(_ asset: PHAsset) -> [String] {
            PHAssetResource.assetResources(for: asset).map { "\($0.type):\($0.originalFilename)" }.sorted()
        }
        let byResources = assets.map(resources).sorted { $0.joined() < $1.joined() }
        #expect(
            byResources == [
                ["pairedVideo:clip.mov", "photo:clip.jpg"], ["pairedVideo:video-from-elsewhere.mov", "photo:IMG_0100.JPG"],
                ["photo:IMG_0200.JPG"], ["video:IMG_0200.MOV"],
            ])
        let live = assets.filter { $0.mediaSubtypes.contains(.photoLive) }
        #expect(live.count == 2)
        #expect(live.allSatisfy { $0.playbackStyle == .livePhoto && $0.mediaType == .image })
        // The still's date and zone describe the Live Photo.
        let paired = try #require(live.first { resources($0).contains("photo:IMG_0100.JPG") })
        #expect(paired.creationDate == Date(timeIntervalSince1970: 1_714_575_600))
        #expect(paired.creationTimeZone?.secondsFromGMT() == -18_000)
    }

    @Test func burstsShowOnePhotoUnlessAllAreAsked() throws {
        let library = try TestLibrary(name: "ImportBurst")
        defer { library.remove() }
        let burst = "D4E4B3D1-0E45-4987-BE12-76D604E25D2C"
        var files: [URL] = []
        for i in 0..<3 {
            let file = library.scratch.appendingPathComponent("IMG_08\(i).JPG")
            try TestMedia.writeJPEG(
                to: file, width: 64 + i, height: 48, exif: TestEXIF(dateTimeOriginal: "2016:10:09 14:44:1\(i)", appleBurstUUID: burst))
            files.append(file)
        }
        let report = try library.library.importItems(at: files)
        #expect(report.importedLocalIdentifiers.count == 3)
        let shown = PHAsset.fetchAssets(with: library.options())
        #expect(shown.count == 1)
        let representative = try #require(shown.firstObject)
        #expect(representative.representsBurst && representative.burstIdentifier == burst)
        #expect(representative.burstSelectionTypes == .autoPick)
        #expect(PHAsset.fetchAssets(with: library.options { $0.includeAllBurstAssets = true }).count == 3)
        let bursts = try #require(
            PHAssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumBursts, options: library.options()).firstObject)
        #expect(identifiers(PHAsset.fetchAssets(in: bursts, options: nil)) == [representative.localIdentifier])
        // By burst identifier: the representative (and user picks), or every member when asked.
        #expect(identifiers(PHAsset.fetchAssets(withBurstIdentifier: burst, options: library.options())) == [representative.localIdentifier])
        #expect(PHAsset.fetchAssets(withBurstIdentifier: burst, options: library.options { $0.includeAllBurstAssets = true }).count == 3)
    }

    @Test func duplicatesAndBrokenFilesAreReportedAndTheImportGoesOn() throws {
        let library = try TestLibrary(name: "ImportBroken")
        defer { library.remove() }
        let folder = library.scratch.appendingPathComponent("mixed")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("deeper"), withIntermediateDirectories: true)
        let good = folder.appendingPathComponent("a.jpg")
        try TestMedia.writeImage(to: good, width: 40, height: 30)
        try FileManager.default.copyItem(at: good, to: folder.appendingPathComponent("b-same-bytes.jpg"))
        try Data().write(to: folder.appendingPathComponent("empty.heic"))
        try Data("<html><body>404 Not Found</body></html>".utf8).write(to: folder.appendingPathComponent("download.jpg"))
        try Self.pngBomb(width: 100_000, height: 100_000).write(to: folder.appendingPathComponent("bomb.png"))
        let jpeg = library.scratch.appendingPathComponent("really.jpg")
        try TestMedia.writeImage(to: jpeg, width: 30, height: 20)
        try FileManager.default.moveItem(at: jpeg, to: folder.appendingPathComponent("really-a-jpeg.png"))
        try TestMedia.writeImage(to: folder.appendingPathComponent("deeper/c.jpg"), width: 20, height: 10)
        // A Live Photo whose video is damaged: the still is kept, as a photo.
        try TestMedia.writeJPEG(
            to: folder.appendingPathComponent("IMG_0300.JPG"), width: 32, height: 24,
            exif: TestEXIF(dateTimeOriginal: "2024:01:01 12:00:00", appleContentIdentifier: "CCCCCCCC-0000-0000-0000-000000000003"))
        var broken = Data("\u{0}\u{0}\u{0}\u{14}ftypqt  ".utf8)
        broken.append(Data(repeating: 0x42, count: 200))
        try broken.write(to: folder.appendingPathComponent("IMG_0300.MOV"))

        let report = try library.library.importItems(at: [folder])
        #expect(report.filesExamined == 8)  // not recursive: deeper/ is left alone
        #expect(report.importedLocalIdentifiers.count == 3)
        #expect(report.livePhotosPaired == 0)
        #expect(
            report.duplicates == [
                PHPhotoLibrary.ImportDuplicate(file: folder.appendingPathComponent("b-same-bytes.jpg"), existingLocalIdentifier: nil, sameAs: good)
            ])
        let reasons = Dictionary(uniqueKeysWithValues: report.failures.map { ($0.file.lastPathComponent, $0.reason) })
        #expect(reasons.keys.sorted() == ["IMG_0300.MOV", "bomb.png", "download.jpg", "empty.heic"])
        let still = try #require(
            report.importedLocalIdentifiers.compactMap { try? asset(library, $0) }.first {
                PHAssetResource.assetResources(for: $0).first?.originalFilename == "IMG_0300.JPG"
            })
        #expect(still.mediaType == .image && !still.mediaSubtypes.contains(.photoLive))
        #expect(reasons["empty.heic"]?.contains("empty") == true)
        #expect(reasons["download.jpg"]?.contains("not an image or video") == true)
        #expect(reasons["bomb.png"]?.contains("100000×100000") == true)
        // Content decides the type: the JPEG named .png is stored as JPEG.
        let renamed = try #require(
            report.importedLocalIdentifiers.compactMap { try? asset(library, $0) }.first {
                PHAssetResource.assetResources(for: $0).first?.originalFilename == "really-a-jpeg.png"
            })
        #expect(PHAssetResource.assetResources(for: renamed).first?.uniformTypeIdentifier == "public.jpeg")
        // Nothing was left in the staging folder.
        #expect(try library.writerLeftovers() == [])

        // Again, recursively: everything already there is a duplicate of its asset; only deeper/c.jpg is new.
        let again = try library.library.importItems(at: [folder], recursive: true)
        #expect(again.importedLocalIdentifiers.count == 1)
        #expect(again.duplicates.count == 4)
        #expect(again.duplicates.allSatisfy { $0.existingLocalIdentifier != nil })
        #expect(again.failures.count == 4)
    }

    /// A PNG whose header claims `width` × `height` RGBA pixels (with a valid CRC) and whose data holds almost nothing.
    static func pngBomb(width: Int, height: Int) -> Data {
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func crc32(_ bytes: [UInt8]) -> Int {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            }
            return Int(crc ^ 0xFFFF_FFFF)
        }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            be32(data.count) + Array(type.utf8) + data + be32(crc32(Array(type.utf8) + data))
        }
        let header = be32(width) + be32(height) + [8, 6, 0, 0, 0]
        let idat: [UInt8] = [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", idat) + chunk("IEND", []))
    }
}
