import OpenPhotos
import BuiltInEditor
import Foundation
import PhotosTestHarness
import PhotosTesting
import Testing

/// PhotoKit's content editing as Apple documents it (spec §2 Versions, §10, §13): the input of the right version,
/// outputs committed in change blocks, versions through the image manager and the resources, revert, observation.
@Suite("Content editing")
struct ContentEditingTests {
    /// Whether `url` is one of the asset's stored files (the same file, not a copy of its bytes).
    static func isStoredFile(_ url: URL, of asset: PHAsset) -> Bool {
        var candidate = stat()
        guard stat(url.path, &candidate) == 0 else { return false }
        return PHAssetResource.assetResources(for: asset).contains { resource in
            var stored = stat()
            guard let file = resource.fileURL, stat(file.path, &stored) == 0 else { return false }
            return stored.st_dev == candidate.st_dev && stored.st_ino == candidate.st_ino
        }
    }

    static let format = "com.example.tests"

    /// Requests an editing input and waits for the handler (called once).
    static func input(
        _ asset: PHAsset, canHandle: ((PHAdjustmentData) -> Bool)? = nil
    ) async throws -> (PHContentEditingInput?, [AnyHashable: Any]) {
        let options = PHContentEditingInputRequestOptions()
        options.canHandleAdjustmentData = canHandle
        return await withCheckedContinuation { continuation in
            let resume = continuation
            asset.requestContentEditingInput(with: options) { input, info in
                nonisolated(unsafe) let result = (input, info)
                resume.resume(returning: result)
            }
        }
    }

    static func requireInput(_ asset: PHAsset, canHandle: ((PHAdjustmentData) -> Bool)? = nil) async throws -> PHContentEditingInput {
        let (input, info) = try await input(asset, canHandle: canHandle)
        return try #require(input, "\(info)")
    }

    /// Renders the input upright through `edit` into a new output with `recipe` as its adjustment data.
    static func output(
        _ input: PHContentEditingInput, recipe: String, _ edit: (CIImage) -> CIImage = { $0 }
    ) throws -> PHContentEditingOutput {
        let output = PHContentEditingOutput(contentEditingInput: input)
        let url = try #require(input.fullSizeImageURL)
        let image = try #require(CIImage(contentsOf: url)).oriented(forExifOrientation: input.fullSizeImageOrientation)
        try CIContext().writeJPEGRepresentation(
            of: edit(image), to: output.renderedContentURL, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!)
        output.adjustmentData = PHAdjustmentData(formatIdentifier: format, formatVersion: "1.0", data: Data(recipe.utf8))
        return output
    }

    static func commit(_ output: PHContentEditingOutput, to asset: PHAsset, in library: PHPhotoLibrary) throws {
        try library.performChangesAndWait { PHAssetChangeRequest(for: asset).contentEditingOutput = output }
    }

    static func refetch(_ asset: PHAsset, _ library: TestLibrary) throws -> PHAsset {
        try #require(PHAsset.fetchAssets(withLocalIdentifiers: [asset.localIdentifier], options: library.options()).firstObject)
    }

    static func types(_ asset: PHAsset) -> [PHAssetResourceType] {
        PHAssetResource.assetResources(for: asset).map(\.type).sorted { $0.rawValue < $1.rawValue }
    }

    static func data(_ asset: PHAsset, _ version: PHImageRequestOptionsVersion) -> (Data?, CGImagePropertyOrientation) {
        let options = PHImageRequestOptions()
        options.isSynchronous = true
        options.version = version
        var result: (Data?, CGImagePropertyOrientation) = (nil, .up)
        PHImageManager.default().requestImageDataAndOrientation(for: asset, options: options) { data, _, orientation, _ in
            result = (data, orientation)
        }
        return result
    }

    static func imageSize(_ asset: PHAsset, _ version: PHImageRequestOptionsVersion) -> CGSize? {
        let options = PHImageRequestOptions()
        options.isSynchronous = true
        options.version = version
        var size: CGSize?
        PHImageManager.default().requestImage(
            for: asset, targetSize: PHImageManagerMaximumSize, contentMode: .default, options: options
        ) { image, _ in size = image?.size }
        return size
    }

    /// An asset stored sideways (EXIF orientation 6: displayed 48 × 64 from 64 × 48 stored pixels).
    static func sidewaysAsset(_ library: TestLibrary) throws -> (PHAsset, Data) {
        let file = try library.makeImage(width: 64, height: 48, orientation: 6)
        var identifier = ""
        try library.library.performChangesAndWait {
            identifier = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)!.placeholderForCreatedAsset!.localIdentifier
        }
        let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [identifier], options: library.options()).firstObject)
        return (asset, try Data(contentsOf: file))
    }

    /// A 64 × 48 movie of `seconds` added as a video asset; the asset and the movie's file.
    static func videoAsset(_ library: TestLibrary, seconds: Double) throws -> (PHAsset, URL) {
        let movie = library.scratch.appendingPathComponent("clip.mov")
        try TestMedia.writeMovie(to: movie, width: 64, height: 48, seconds: seconds)
        var identifier = ""
        try library.library.performChangesAndWait {
            identifier = PHAssetChangeRequest.creationRequestForAssetFromVideo(atFileURL: movie)!.placeholderForCreatedAsset!.localIdentifier
        }
        return (try #require(PHAsset.fetchAssets(withLocalIdentifiers: [identifier], options: library.options()).firstObject), movie)
    }

    // MARK: - The first edit

    /// A rendering this process wrote for the edit is committed without a copy: the library takes the file itself
    /// (the editing session's folder is inside the library), and it is gone from the session's folder once
    /// committed. One that failed to commit stays for another try; an output made outside the library is copied.
    @Test func aRenderingWrittenHereIsTakenNotCopied() async throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let (asset, _) = try Self.sidewaysAsset(library)
        let input = try await Self.requireInput(asset)
        let output = try Self.output(input, recipe: "taken") { $0.cropped(to: CGRect(x: 0, y: 0, width: 32, height: 32)) }
        var written = stat()
        #expect(stat(output.renderedContentURL.path, &written) == 0)
        // A failed block leaves the rendering where it was.
        #expect(throws: PHPhotosError.self) {
            try library.library.performChangesAndWait {
                PHAssetChangeRequest(for: asset).contentEditingOutput = output
                PHAssetChangeRequest(for: asset).contentEditingOutput = output
            }
        }
        #expect(FileManager.default.fileExists(atPath: output.renderedContentURL.path))
        try Self.commit(output, to: asset, in: library.library)
        let edited = try Self.refetch(asset, library)
        let rendering = try #require(PHAssetResource.assetResources(for: edited).first { $0.type == .fullSizePhoto })
        var committed = stat()
        #expect(stat(try #require(rendering.fileURL).path, &committed) == 0)
        #expect((committed.st_dev, committed.st_ino) == (written.st_dev, written.st_ino), "the file written is the file committed")
        #expect(!FileManager.default.fileExists(atPath: output.renderedContentURL.path), "taken from the session's folder")
        #expect(try library.library.verify().problems.isEmpty)
    }

    @Test func firstEditKeepsTheOriginalAndShowsTheRendering() async throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let (asset, original) = try Self.sidewaysAsset(library)
        #expect(!asset.hasAdjustments && asset.adjustmentTimestamp == nil && asset.adjustmentsState == .none)
        #expect(asset.canPerform(.content))

        let input = try await Self.requireInput(asset)
        #expect(input.mediaType == .image && input.adjustmentData == nil && input.uniformTypeIdentifier == "public.jpeg")
        #expect(input.creationDate == asset.creationDate && input.playbackStyle == .image)
        let url = try #require(input.fullSizeImageURL)
        #expect(!Self.isStoredFile(url, of: asset), "the input is a copy, not the library's file")
        #expect(try Data(contentsOf: url) == original, "the first edit's input is the original")
        #expect(input.fullSizeImageOrientation == 6)
        let display = try #require(input.displaySizeImage)
        #expect(display.size == CGSize(width: 48, height: 64), "the display image is upright")

        // Crop the upright image to its top half: 48 × 32.
        let output = try Self.output(input, recipe: "crop top half") { $0.cropped(to: CGRect(x: 0, y: 32, width: 48, height: 32)) }
        #expect(output.renderedContentURL.lastPathComponent == "FullSizeRender.jpg")
        #expect(output.defaultRenderedContentType == .jpeg && output.supportedRenderedContentTypes == [.jpeg, .heic])
        let rendered = try Data(contentsOf: output.renderedContentURL)
        let before = Date()
        try Self.commit(output, to: asset, in: library.library)

        let edited = try Self.refetch(asset, library)
        #expect(edited.hasAdjustments && edited.adjustmentFormatIdentifier == Self.format && edited.adjustmentsState == .userAdjusted)
        #expect((edited.pixelWidth, edited.pixelHeight) == (48, 32), "the asset's size is the current version's")
        let stamp = try #require(edited.adjustmentTimestamp)
        #expect(stamp >= before.addingTimeInterval(-1) && stamp <= Date())
        #expect(Self.types(edited) == [.photo, .fullSizePhoto, .adjustmentData], "no previous version is stored: it is the original")
        let resources = PHAssetResource.assetResources(for: edited)
        #expect(resources.first { $0.type == .photo }?.originalFilename == asset.value(forKey: "filename") as? String)
        #expect(resources.first { $0.type == .fullSizePhoto }.map { ($0.pixelWidth, $0.pixelHeight) } ?? (0, 0) == (48, 32))

        // Versions through the image manager: the rendering is current, the original is unadjusted and original.
        #expect(Self.data(edited, .current).0 == rendered && Self.data(edited, .current).1 == .up)
        #expect(Self.data(edited, .unadjusted).0 == original && Self.data(edited, .unadjusted).1 == .right)
        #expect(Self.data(edited, .original).0 == original)
        #expect(Self.imageSize(edited, .current) == CGSize(width: 48, height: 32))
        #expect(Self.imageSize(edited, .unadjusted) == CGSize(width: 48, height: 64))

        // The resources read back as written.
        let manager = PHAssetResourceManager.default()
        for (type, expected) in [(PHAssetResourceType.photo, original), (.fullSizePhoto, rendered)] {
            let resource = try #require(resources.first { $0.type == type })
            var bytes = Data()
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resume = continuation
                manager.requestData(for: resource, options: nil) {
                    bytes.append($0)
                } completionHandler: { error in
                    if let error { resume.resume(throwing: error) } else { resume.resume() }
                }
            }
            #expect(bytes == expected, "\(type)")
        }
    }

    @Test func anEditorWithoutAnInterfaceSkipsTheDisplayImage() async throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let (asset, original) = try Self.sidewaysAsset(library)
        let options = PHContentEditingInputRequestOptions()
        options.skipsDisplaySizeImage = true
        #expect((options.copy() as? PHContentEditingInputRequestOptions)?.skipsDisplaySizeImage == true)
        let input = await withCheckedContinuation { continuation in
            asset.requestContentEditingInput(with: options) { input, _ in continuation.resume(returning: input) }
        }
        #expect(input?.displaySizeImage == nil)
        #expect(try Data(contentsOf: try #require(input?.fullSizeImageURL)) == original)
    }

    @Test func aHEICRenderingThroughTheIOS17ContentTypes() async throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let (asset, _) = try Self.sidewaysAsset(library)
        #expect(asset.contentType == .jpeg)
        let input = try await Self.requireInput(asset)
        let output = PHContentEditingOutput(contentEditingInput: input)
        let url = try output.renderedContentURL(for: .heic)
        #expect(url.lastPathComponent == "FullSizeRender.heic")
        let source = try #require(input.fullSizeImageURL)
        let image = try #require(CIImage(contentsOf: source)).oriented(forExifOrientation: input.fullSizeImageOrientation)
        try CIContext().writeHEIFRepresentation(of: image, to: url, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!)
        output.adjustmentData = PHAdjustmentData(formatIdentifier: Self.format, formatVersion: "1.0", data: Data("heic".utf8))
        try Self.commit(output, to: asset, in: library.library)
        let edited = try Self.refetch(asset, library)
        #expect(edited.contentType == .heic, "the presented data is the HEIC rendering")
        let rendering = try #require(PHAssetResource.assetResources(for: edited).first { $0.type == .fullSizePhoto })
        #expect(rendering.uniformTypeIdentifier == "public.heic" && rendering.originalFilename == "FullSizeRender.heic")
        #expect((edited.pixelWidth, edited.pixelHeight) == (48, 64))
    }

    // MARK: - Reopening and stacking

    @Test func reopeningGivesThePreviousVersionAndTheRecipeOnlyToEditorsThatHandleIt() async throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let (asset, original) = try Self.sidewaysAsset(library)
        let first = try Self.output(try await Self.requireInput(asset), recipe: "A") { $0.cropped(to: CGRect(x: 0, y: 0, width: 48, height: 40)) }
        let renderingA = try Data(contentsOf: first.renderedContentURL)
        try Self.commit(first, to: asset, in: library.library)
        let edited = try Self.refetch(asset, library)

        // An editor that reads the recipe gets the previous version (the original) and the recipe.
        let reopened = try await Self.requireInput(edited) { $0.formatIdentifier == Self.format }
        #expect(reopened.adjustmentData == PHAdjustmentData(formatIdentifier: Self.format, formatVersion: "1.0", data: Data("A".utf8)))
        #expect(try Data(contentsOf: try #require(reopened.fullSizeImageURL)) == original)
        #expect(reopened.displaySizeImage?.size == CGSize(width: 48, height: 64))

        // An editor that does not gets the current rendering and no recipe: its edit stacks.
        var asked: [String] = []
        let current = try await Self.requireInput(edited) {
            asked.append($0.formatIdentifier); return false
        }
        #expect(asked == [Self.format])
        #expect(current.adjustmentData == nil && current.fullSizeImageOrientation == 1)
        #expect(try Data(contentsOf: try #require(current.fullSizeImageURL)) == renderingA)
        #expect(current.displaySizeImage?.size == CGSize(width: 48, height: 40))

        // The stacked edit keeps rendering A as its previous version.
        let stacked = try Self.output(current, recipe: "B") { $0.cropped(to: CGRect(x: 0, y: 0, width: 40, height: 40)) }
        // The output's rendering never lands on the input's file (both are FullSizeRender.jpg of one session).
        #expect(try Data(contentsOf: try #require(current.fullSizeImageURL)) == renderingA)
        try Self.commit(stacked, to: edited, in: library.library)
        let twice = try Self.refetch(asset, library)
        #expect(Self.types(twice) == [.photo, .fullSizePhoto, .adjustmentData, .adjustmentBasePhoto])
        #expect((twice.pixelWidth, twice.pixelHeight) == (40, 40))
        let base = try #require(PHAssetResource.assetResources(for: twice).first { $0.type == .adjustmentBasePhoto })
        #expect((base.pixelWidth, base.pixelHeight) == (48, 40))

        // Reopened, B comes back with rendering A — and an edit of it replaces B instead of stacking a third time.
        let reopenB = try await Self.requireInput(twice) { _ in true }
        #expect(reopenB.adjustmentData?.data == Data("B".utf8))
        #expect(try Data(contentsOf: try #require(reopenB.fullSizeImageURL)) == renderingA)
        let replaced = try Self.output(reopenB, recipe: "B2") { $0.cropped(to: CGRect(x: 0, y: 0, width: 20, height: 20)) }
        try Self.commit(replaced, to: twice, in: library.library)
        let thrice = try Self.refetch(asset, library)
        #expect(Self.types(thrice) == [.photo, .fullSizePhoto, .adjustmentData, .adjustmentBasePhoto])
        #expect(PHAssetResource.assetResources(for: thrice).first { $0.type == .adjustmentBasePhoto }?.sha256 == base.sha256)
        #expect((thrice.pixelWidth, thrice.pixelHeight) == (20, 20))
        let check = try library.library.verify()
        #expect(check.problems.isEmpty, "\(check.problems)")
    }

    // MARK: - Revert

    @Test func revertRestoresTheOriginalBitForBit() async throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let (asset, original) = try Self.sidewaysAsset(library)
        try Self.commit(
            try Self.output(try await Self.requireInput(asset), recipe: "A") { $0.cropped(to: CGRect(x: 0, y: 0, width: 10, height: 10)) }, to: asset,
            in: library.library)
        let once = try Self.refetch(asset, library)
        try Self.commit(
            try Self.output(try await Self.requireInput(once), recipe: "B") { $0.cropped(to: CGRect(x: 0, y: 0, width: 5, height: 5)) }, to: once,
            in: library.library)
        let edited = try Self.refetch(asset, library)
        let editedStamp = try #require(edited.adjustmentTimestamp)
        let filesBefore = try FileManager.default.subpathsOfDirectory(atPath: library.url.appendingPathComponent("originals").path).filter {
            $0.contains(".")
        }
        #expect(filesBefore.count == 4, "original, rendering, recipe, previous version: \(filesBefore)")

        try library.library.performChangesAndWait { PHAssetChangeRequest(for: edited).revertAssetContentToOriginal() }
        let reverted = try Self.refetch(asset, library)
        #expect(!reverted.hasAdjustments && reverted.adjustmentFormatIdentifier == nil && reverted.adjustmentsState == .none)
        #expect((reverted.pixelWidth, reverted.pixelHeight) == (48, 64), "the original's size is back")
        let revertStamp = try #require(reverted.adjustmentTimestamp, "after a revert the timestamp is the revert's")
        #expect(revertStamp >= editedStamp)
        #expect(Self.types(reverted) == [.photo])
        #expect(Self.data(reverted, .current).0 == original)
        let filesAfter = try FileManager.default.subpathsOfDirectory(atPath: library.url.appendingPathComponent("originals").path).filter {
            $0.contains(".")
        }
        #expect(filesAfter.count == 1, "the edit's files are gone after the commit: \(filesAfter)")
        let check = try library.library.verify()
        #expect(check.problems.isEmpty, "\(check.problems)")
        #expect(try library.writerLeftovers().isEmpty)

        // A reverted asset edits again from its original.
        let again = try await Self.requireInput(reverted) { _ in true }
        #expect(again.adjustmentData == nil)
        #expect(try Data(contentsOf: try #require(again.fullSizeImageURL)) == original)
    }

    @Test func aMissingOriginalRefusesInputAndRevert() async throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let (asset, _) = try Self.sidewaysAsset(library)
        try Self.commit(try Self.output(try await Self.requireInput(asset), recipe: "A"), to: asset, in: library.library)
        let edited = try Self.refetch(asset, library)
        let file = try #require(PHAssetResource.assetResources(for: edited).first { $0.type == .photo }?.fileURL)
        try FileManager.default.removeItem(at: file)
        let (none, info) = try await Self.input(edited) { _ in true }
        #expect(none == nil)
        #expect((info[PHContentEditingInputErrorKey] as? PHPhotosError)?.code == .missingResource)
        #expect(throws: PHPhotosError(.missingResource)) {
            try library.library.performChangesAndWait { PHAssetChangeRequest(for: edited).revertAssetContentToOriginal() }
        }
        #expect(try Self.refetch(asset, library).hasAdjustments, "nothing changed")
        // The current rendering is still there for editors that stack.
        #expect(try await Self.input(edited).0 != nil)
    }

    // MARK: - Validation at commit

    /// Commits an output after `spoil` and expects the block to fail with `code`, leaving the asset as it was.
    static func expectRefused(
        _ code: PHPhotosError.Code, _ library: TestLibrary, asset: PHAsset, sourceLocation: SourceLocation = #_sourceLocation,
        spoil: (PHContentEditingInput, PHContentEditingOutput) throws -> PHAsset?
    ) async throws {
        let input = try await requireInput(asset)
        let output = try Self.output(input, recipe: "fine")
        let target = try spoil(input, output) ?? asset
        let before = PHAssetResource.assetResources(for: target).map(\.sha256)
        do {
            try commit(output, to: target, in: library.library)
            Issue.record("the output was accepted", sourceLocation: sourceLocation)
        } catch let error as PHPhotosError {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        }
        let after = try refetch(target, library)
        #expect(PHAssetResource.assetResources(for: after).map(\.sha256) == before, "nothing changed", sourceLocation: sourceLocation)
        #expect(try library.writerLeftovers().isEmpty, sourceLocation: sourceLocation)
    }

    @Test func invalidOutputsFailTheBlockAndChangeNothing() async throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let (asset, _) = try Self.sidewaysAsset(library)
        let fm = FileManager.default
        // No rendered file.
        try await Self.expectRefused(.invalidResource, library, asset: asset) { _, output in
            try fm.removeItem(at: output.renderedContentURL)
            return nil
        }
        // An empty one.
        try await Self.expectRefused(.invalidResource, library, asset: asset) { _, output in
            try Data().write(to: output.renderedContentURL)
            return nil
        }
        // Not an image at all.
        try await Self.expectRefused(.invalidResource, library, asset: asset) { _, output in
            try Data(repeating: 0x42, count: 5000).write(to: output.renderedContentURL)
            return nil
        }
        // A truncated JPEG.
        try await Self.expectRefused(.invalidResource, library, asset: asset) { _, output in
            let whole = try Data(contentsOf: output.renderedContentURL)
            try whole.prefix(whole.count / 2).write(to: output.renderedContentURL)
            return nil
        }
        // The wrong type: a PNG for a photo, a movie for a photo.
        try await Self.expectRefused(.invalidResource, library, asset: asset) { input, output in
            let url = try #require(input.fullSizeImageURL)
            let image = try #require(CIImage(contentsOf: url))
            let png = try #require(CIContext().pngRepresentation(of: image, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!))
            try png.write(to: output.renderedContentURL)
            return nil
        }
        try await Self.expectRefused(.invalidResource, library, asset: asset) { _, output in
            let movie = library.scratch.appendingPathComponent("clip.mov")
            if !fm.fileExists(atPath: movie.path) { try TestMedia.writeMovie(to: movie, width: 64, height: 48, seconds: 0.2) }
            try fm.removeItem(at: output.renderedContentURL)
            try fm.copyItem(at: movie, to: output.renderedContentURL)
            return nil
        }
        // Orientation not baked in: the stored pixels with their EXIF orientation 6.
        try await Self.expectRefused(.invalidResource, library, asset: asset) { input, output in
            try fm.removeItem(at: output.renderedContentURL)
            try fm.copyItem(at: try #require(input.fullSizeImageURL), to: output.renderedContentURL)
            return nil
        }
        // Missing, empty and oversized adjustment data.
        try await Self.expectRefused(.invalidResource, library, asset: asset) { _, output in
            output.adjustmentData = nil
            return nil
        }
        try await Self.expectRefused(.invalidResource, library, asset: asset) { _, output in
            output.adjustmentData = PHAdjustmentData(formatIdentifier: Self.format, formatVersion: "1.0", data: Data())
            return nil
        }
        try await Self.expectRefused(.invalidResource, library, asset: asset) { _, output in
            output.adjustmentData = PHAdjustmentData(
                formatIdentifier: Self.format, formatVersion: "1.0", data: Data(count: PHAdjustmentData.maximumDataSize + 1))
            return nil
        }
        // Two renderings written.
        try await Self.expectRefused(.invalidResource, library, asset: asset) { _, output in
            try fm.copyItem(at: output.renderedContentURL, to: try output.renderedContentURL(for: .heic))
            return nil
        }
        // An output made for another asset.
        let other = try #require(PHAsset.fetchAssets(withLocalIdentifiers: try library.addImages(1), options: library.options()).firstObject)
        try await Self.expectRefused(.invalidResource, library, asset: asset) { _, _ in other }
        #expect(throws: PHPhotosError(.invalidResource)) {
            try PHContentEditingOutput(placeholderForCreatedAsset: try Self.placeholder(library)).renderedContentURL(for: .png)
        }

        // The largest adjustment data is accepted; the same output committed twice is not.
        let input = try await Self.requireInput(asset)
        let output = try Self.output(input, recipe: "fine")
        output.adjustmentData = PHAdjustmentData(
            formatIdentifier: Self.format, formatVersion: "1.0", data: Data(repeating: 7, count: PHAdjustmentData.maximumDataSize))
        try Self.commit(output, to: asset, in: library.library)
        let edited = try Self.refetch(asset, library)
        let resources = PHAssetResource.assetResources(for: edited).map(\.sha256)
        #expect(throws: PHPhotosError(.changeNotSupported)) { try Self.commit(output, to: edited, in: library.library) }
        #expect(PHAssetResource.assetResources(for: try Self.refetch(asset, library)).map(\.sha256) == resources)
        // An input from before the edit is stale too.
        #expect(throws: PHPhotosError(.changeNotSupported)) {
            try Self.commit(try Self.output(input, recipe: "late"), to: edited, in: library.library)
        }
        // Two content changes of one asset in a block.
        let fresh = try Self.output(try await Self.requireInput(edited), recipe: "C")
        #expect(throws: PHPhotosError(.changeNotSupported)) {
            try library.library.performChangesAndWait {
                PHAssetChangeRequest(for: edited).contentEditingOutput = fresh
                PHAssetChangeRequest(for: edited).revertAssetContentToOriginal()
            }
        }
        #expect(try library.library.verify().problems.isEmpty)
    }

    static func placeholder(_ library: TestLibrary) throws -> PHObjectPlaceholder {
        var placeholder: PHObjectPlaceholder?
        try? library.library.performChangesAndWait {
            placeholder = PHAssetCreationRequest.forAsset().placeholderForCreatedAsset
        }
        return try #require(placeholder)
    }

    @Test func hostileAdjustmentDataIsStoredAsBytes() async throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let (asset, _) = try Self.sidewaysAsset(library)
        let output = try Self.output(try await Self.requireInput(asset), recipe: "x")
        var bytes = Data("bplist00".utf8)
        bytes += Data((0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) })
        output.adjustmentData = PHAdjustmentData(formatIdentifier: "../../etc/passwd", formatVersion: "\u{0}9.9", data: bytes)
        try Self.commit(output, to: asset, in: library.library)
        let reopened = try await Self.requireInput(try Self.refetch(asset, library)) { _ in true }
        #expect(reopened.adjustmentData?.data == bytes && reopened.adjustmentData?.formatIdentifier == "../../etc/passwd")
        #expect(reopened.adjustmentData?.formatVersion == "\u{0}9.9")
    }

    // MARK: - Creation with an edit

    @Test func anAssetCreatedWithAnEditInTheSameBlock() async throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let file = try library.makeImage(width: 64, height: 48)
        let rendering = library.scratch.appendingPathComponent("render.jpg")
        try TestMedia.writeImage(to: rendering, width: 32, height: 24)
        var identifier = ""
        try library.library.performChangesAndWait {
            let request = PHAssetCreationRequest.forAsset()
            request.addResource(with: .photo, fileURL: file, options: nil)
            let output = PHContentEditingOutput(placeholderForCreatedAsset: request.placeholderForCreatedAsset!)
            try? FileManager.default.copyItem(at: rendering, to: output.renderedContentURL)
            output.adjustmentData = PHAdjustmentData(formatIdentifier: Self.format, formatVersion: "1.0", data: Data("half".utf8))
            request.contentEditingOutput = output
            identifier = request.placeholderForCreatedAsset!.localIdentifier
        }
        let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [identifier], options: library.options()).firstObject)
        #expect(asset.hasAdjustments && (asset.pixelWidth, asset.pixelHeight) == (32, 24))
        #expect(Self.types(asset) == [.photo, .fullSizePhoto, .adjustmentData])
        let reopened = try await Self.requireInput(asset) { _ in true }
        #expect(reopened.adjustmentData?.data == Data("half".utf8))
        let reopenedURL = try #require(reopened.fullSizeImageURL)
        #expect(try Data(contentsOf: reopenedURL) == (try Data(contentsOf: file)))
    }

    // MARK: - Videos

    @Test func videosHaveNoPreviousVersion() async throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let (asset, movie) = try Self.videoAsset(library, seconds: 0.3)
        let input = try await Self.requireInput(asset)
        #expect(input.mediaType == .video && input.fullSizeImageURL == nil)
        let video = try #require(input.audiovisualAsset as? AVURLAsset)
        #expect(!Self.isStoredFile(video.url, of: asset), "the input is a copy, not the library's file")
        #expect(try Data(contentsOf: video.url) == (try Data(contentsOf: movie)))
        #expect(input.displaySizeImage?.size == CGSize(width: 64, height: 48))

        func edit(_ input: PHContentEditingInput, _ recipe: String, width: Int) throws {
            let output = PHContentEditingOutput(contentEditingInput: input)
            #expect(output.renderedContentURL.pathExtension == "mov" && output.supportedRenderedContentTypes == [.quickTimeMovie])
            try TestMedia.writeMovie(to: output.renderedContentURL, width: width, height: 32, seconds: 0.2)
            output.adjustmentData = PHAdjustmentData(formatIdentifier: Self.format, formatVersion: "1.0", data: Data(recipe.utf8))
            try Self.commit(output, to: try Self.refetch(asset, library), in: library.library)
        }
        try edit(input, "A", width: 32)
        let once = try Self.refetch(asset, library)
        #expect(Self.types(once) == [.video, .fullSizeVideo, .adjustmentData])
        #expect((once.pixelWidth, once.pixelHeight) == (32, 32))
        // Reopened from the original: A can be changed.
        let reopened = try await Self.requireInput(once) { _ in true }
        #expect(reopened.adjustmentData?.data == Data("A".utf8))
        let reopenedVideo = try #require(reopened.audiovisualAsset as? AVURLAsset)
        #expect(try Data(contentsOf: reopenedVideo.url) == (try Data(contentsOf: movie)))

        // Stacked on the rendering by an editor that cannot read A: B keeps no previous version…
        try edit(try await Self.requireInput(once), "B", width: 16)
        let twice = try Self.refetch(asset, library)
        #expect(Self.types(twice) == [.video, .fullSizeVideo, .adjustmentData])
        // …so even an editor that reads B gets the current version and no adjustment data (Apple's rule for videos).
        let current = try await Self.requireInput(twice) { _ in true }
        #expect(current.adjustmentData == nil)
        let currentVideo = try #require(current.audiovisualAsset as? AVURLAsset)
        let currentRendering = try #require(PHAssetResource.assetResources(for: twice).first { $0.type == .fullSizeVideo }?.fileURL)
        #expect(try Data(contentsOf: currentVideo.url) == (try Data(contentsOf: currentRendering)))

        // The video request serves each version.
        func videoURL(_ version: PHVideoRequestOptionsVersion) async -> URL? {
            let options = PHVideoRequestOptions()
            options.version = version
            return await withCheckedContinuation { continuation in
                PHImageManager.default().requestAVAsset(forVideo: twice, options: options) { avAsset, _, _ in
                    continuation.resume(returning: (avAsset as? AVURLAsset)?.url)
                }
            }
        }
        #expect(
            await videoURL(.original)?.lastPathComponent
                == PHAssetResource.assetResources(for: twice).first { $0.type == .video }?.fileURL?.lastPathComponent)
        #expect(
            await videoURL(.current)?.lastPathComponent
                == PHAssetResource.assetResources(for: twice).first { $0.type == .fullSizeVideo }?.fileURL?.lastPathComponent)
    }

    // MARK: - Observation

    @Test func editsAndRevertsAreContentChanges() async throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let (asset, _) = try Self.sidewaysAsset(library)
        let others = try library.addImages(1)
        let all = PHAsset.fetchAssets(with: library.options { $0.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: true)] })
        let index = all.index(of: asset)
        let start = library.library.currentChangeToken
        let recorder = ChangeRecorder()
        library.library.register(recorder)
        defer { library.library.unregisterChangeObserver(recorder) }

        let output = try Self.output(try await Self.requireInput(asset), recipe: "A") { $0.cropped(to: CGRect(x: 0, y: 0, width: 8, height: 8)) }
        try Self.commit(output, to: asset, in: library.library)
        let edit = try recorder.next()
        let details = try #require(edit.changeDetails(for: asset))
        #expect(details.assetContentChanged && !details.objectWasDeleted)
        #expect(details.objectAfterChanges?.pixelWidth == 8)
        let resultDetails = try #require(edit.changeDetails(for: all))
        #expect(resultDetails.changedIndexes == IndexSet(integer: index) && resultDetails.insertedIndexes?.isEmpty != false)
        #expect(resultDetails.changedObjects.first?.hasAdjustments == true)

        // A property change is not a content change.
        let edited = try Self.refetch(asset, library)
        try library.library.performChangesAndWait { PHAssetChangeRequest(for: edited).isFavorite = true }
        let favourite = try #require(try recorder.next().changeDetails(for: edited))
        #expect(!favourite.assetContentChanged)

        try library.library.performChangesAndWait { PHAssetChangeRequest(for: edited).revertAssetContentToOriginal() }
        let revert = try #require(try recorder.next().changeDetails(for: edited))
        #expect(revert.assetContentChanged && revert.objectAfterChanges?.hasAdjustments == false)

        // The persistent history has all three as updates of the asset.
        let history = Array(try library.library.fetchPersistentChanges(since: start))
        #expect(history.count == 3)
        for change in history {
            let assets = try change.changeDetails(for: .asset)
            #expect(assets.updatedLocalIdentifiers == [asset.localIdentifier] && assets.insertedLocalIdentifiers.isEmpty)
        }
        #expect(history.map(\.contentChangedAssetLocalIdentifiers) == [[asset.localIdentifier], [], [asset.localIdentifier]])
        #expect(history.allSatisfy { $0.clientIdentifier == nil })
        _ = others
    }

    @Test func cachedRenderingsNeverServeAnOldVersion() async throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let (asset, _) = try Self.sidewaysAsset(library)
        let manager = PHCachingImageManager()
        func meanBrightness(_ asset: PHAsset) throws -> Double {
            let options = PHImageRequestOptions()
            options.isSynchronous = true
            var image: UIImage?
            manager.requestImage(for: asset, targetSize: CGSize(width: 32, height: 32), contentMode: .aspectFit, options: options) { result, _ in
                image = result
            }
            let cgImage = try #require(image?.cgImage)
            let bytes = try #require(cgImage.dataProvider?.data as Data?)
            return Double(bytes.reduce(0) { $0 + Int($1) }) / Double(bytes.count)
        }
        let before = try meanBrightness(asset)
        #expect(before > 60, "the generated gradient is not dark")
        let output = try Self.output(try await Self.requireInput(asset), recipe: "dark") {
            $0.applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: -10])
        }
        try Self.commit(output, to: asset, in: library.library)
        let edited = try Self.refetch(asset, library)
        #expect(try meanBrightness(edited) < before / 2, "the dark rendering, not the cached original")
        // After a revert, even the snapshot taken while edited gets the version current now: the rendering it named
        // is gone, and the original's cached pixels serve it.
        try library.library.performChangesAndWait { PHAssetChangeRequest(for: edited).revertAssetContentToOriginal() }
        #expect(abs(try meanBrightness(edited) - before) < 1)
    }

    // MARK: - The built-in editor

    @Test func theBuiltInEditorReopensItsRecipeAndStacksOnNewerOnes() async throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let (asset, original) = try Self.sidewaysAsset(library)
        let first = try await PhotoEditRecipe.edit(asset) { $0.setting(.crop(x: 0, y: 0, width: 0.5, height: 0.5)).setting(.exposure(ev: 1)) }
        #expect(!first.reopened && (first.pixelWidth, first.pixelHeight) == (24, 32))
        let second = try await PhotoEditRecipe.edit(try Self.refetch(asset, library)) { $0.resetting("exposure") }
        #expect(second.reopened && second.recipe.steps == [.crop(x: 0, y: 0, width: 0.5, height: 0.5)])
        let edited = try Self.refetch(asset, library)
        #expect(Self.types(edited) == [.photo, .fullSizePhoto, .adjustmentData], "reopened, not stacked")
        #expect((edited.pixelWidth, edited.pixelHeight) == (24, 32))

        // A recipe of a newer major version is not handled: the editor gets the current rendering and stacks.
        let newer = try Self.output(try await Self.requireInput(edited), recipe: #"{"steps":[],"v2":true}"#)
        newer.adjustmentData = PHAdjustmentData(formatIdentifier: PhotoEditRecipe.formatIdentifier, formatVersion: "2.0", data: Data("{}".utf8))
        try Self.commit(newer, to: edited, in: library.library)
        let third = try await PhotoEditRecipe.edit(try Self.refetch(asset, library)) { $0.setting(.look("mono")) }
        #expect(!third.reopened && third.recipe.steps == [.look("mono")])
        #expect(Self.types(try Self.refetch(asset, library)) == [.photo, .fullSizePhoto, .adjustmentData, .adjustmentBasePhoto])

        // Resetting every step on the original is a revert.
        let reverted = try await PhotoEditRecipe.edit(try Self.refetch(asset, library)) { _ in PhotoEditRecipe() }
        #expect(reverted.recipe.steps.isEmpty)
        let after = try Self.refetch(asset, library)
        #expect(after.hasAdjustments, "the base was another editor's rendering: an empty recipe on it is still an edit")
        _ = original
    }

    // MARK: - Requests

    @Test func aCancelledRequestCallsItsHandlerOnce() async throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let (asset, _) = try Self.sidewaysAsset(library)
        for _ in 0..<10 {
            let calls = CallLog()
            let id = asset.requestContentEditingInput(with: nil) { input, info in
                calls.append(input == nil ? ((info[PHContentEditingInputCancelledKey] as? Bool) == true ? "cancelled" : "error") : "input")
            }
            asset.cancelContentEditingInputRequest(id)
            // However late the answer comes on a loaded machine, it comes once: wait for it, then a while longer.
            try await calls.waitForAnEntry()
            try await Task.sleep(for: .milliseconds(150))
            let log = calls.entries
            #expect(log == ["cancelled"] || log == ["input"], "\(log)")
        }
        // Cancelling twice or after the answer changes nothing.
        let calls = CallLog()
        let id = asset.requestContentEditingInput(with: nil) { input, _ in calls.append(input == nil ? "nil" : "input") }
        try await calls.waitForAnEntry()
        asset.cancelContentEditingInputRequest(id)
        asset.cancelContentEditingInputRequest(id)
        try await Task.sleep(for: .milliseconds(100))
        #expect(calls.entries == ["input"])
    }

    @Test func aLimitedClientEditsWhatItMaySee() async throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let identifiers = try library.addImages(2)
        try library.library.setAuthorization(.limited, for: "picker", selection: [identifiers[0]])
        let picker = try PHPhotoLibrary(url: library.url, clientIdentifier: "picker")
        let options = PHFetchOptions()
        options.photoLibrary = picker
        let visible = PHAsset.fetchAssets(withLocalIdentifiers: identifiers, options: options)
        #expect(visible.count == 1)
        let asset = try #require(visible.firstObject)
        try Self.commit(try Self.output(try await Self.requireInput(asset), recipe: "picked"), to: asset, in: picker)
        #expect(try Self.refetch(asset, library).hasAdjustments)
    }
}

/// Handler calls, recorded from any queue.
final class CallLog: @unchecked Sendable {
    private let lock = NSLock()
    private var log: [String] = []
    func append(_ entry: String) { lock.withLock { log.append(entry) } }
    var entries: [String] { lock.withLock { log } }

    /// Waits until something is logged (at most a minute, then the caller's expectations fail on what is there).
    func waitForAnEntry() async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while entries.isEmpty && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
    }
}

extension ContentEditingTests {
    /// A change block's requests held their block's context and it held them: every request of every block stayed
    /// in memory, and with a committed edit its output and input — whose private copies stayed in $TMPDIR (479 folders,
    /// 229 MB in one run of edits). Once the block is done and the caller lets go, the input and its folder are gone.
    @Test func anEditsInputAndItsFolderGoOnceCommittedAndReleased() async throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let (asset, _) = try Self.sidewaysAsset(library)
        weak var weakInput: PHContentEditingInput?
        weak var weakOutput: PHContentEditingOutput?
        var folder: URL?
        do {
            let input = try await Self.requireInput(asset)
            let output = try Self.output(input, recipe: "released") { $0 }
            (weakInput, weakOutput) = (input, output)
            folder = input.fullSizeImageURL?.deletingLastPathComponent().deletingLastPathComponent()
            try await library.library.performChanges { PHAssetChangeRequest(for: asset).contentEditingOutput = output }
        }
        #expect(weakInput == nil && weakOutput == nil, "the block's requests still hold the edit")
        let path = try #require(folder?.path)
        #expect(!FileManager.default.fileExists(atPath: path), "\(path) is left behind")
    }
}

extension ContentEditingTests {
    /// Format identifiers and versions are bounded (2.5 MB of either was accepted): at most 255 and 64 bytes; the limits
    /// themselves are accepted.
    @Test func adjustmentFormatIdentifiersAndVersionsAreBounded() async throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let (asset, _) = try Self.sidewaysAsset(library)
        for (identifier, version) in [(String(repeating: "a", count: 256), "1.0"), ("a.b", String(repeating: "1", count: 65))] {
            let output = try Self.output(try await Self.requireInput(asset), recipe: "x")
            output.adjustmentData = PHAdjustmentData(formatIdentifier: identifier, formatVersion: version, data: Data([1]))
            #expect(throws: PHPhotosError(.invalidResource)) { try Self.commit(output, to: asset, in: library.library) }
        }
        let output = try Self.output(try await Self.requireInput(asset), recipe: "x")
        output.adjustmentData = PHAdjustmentData(
            formatIdentifier: String(repeating: "a", count: 255), formatVersion: String(repeating: "1", count: 64), data: Data([1]))
        try Self.commit(output, to: asset, in: library.library)
        #expect(try Self.refetch(asset, library).adjustmentFormatIdentifier == String(repeating: "a", count: 255))
    }

    /// A rendering larger than its pixels can need is refused before it is copied: a 1.5 GB sparse file with a
    /// 48 × 32 JPEG's header and an end-of-image marker was committed.
    @Test func aRenderingLargerThanItsPixelsCanNeedIsRefused() async throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let (asset, _) = try Self.sidewaysAsset(library)
        let output = try Self.output(try await Self.requireInput(asset), recipe: "sparse")
        let url = output.renderedContentURL
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: 1_500_000_000 - 2)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0xFF, 0xD9]))
        try handle.close()
        #expect(throws: PHPhotosError(.invalidResource)) { try Self.commit(output, to: asset, in: library.library) }
        #expect(!(try Self.refetch(asset, library).hasAdjustments))
        #expect(try library.writerLeftovers().isEmpty)
    }

    /// A rendered movie larger than its duration can need is refused before it is copied (a second of video padded to
    /// 1 GB with a sparse tail was taken whole).
    @Test func aRenderedMovieLargerThanItsDurationCanNeedIsRefused() async throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let (asset, _) = try Self.videoAsset(library, seconds: 0.5)
        let output = PHContentEditingOutput(contentEditingInput: try await Self.requireInput(asset))
        try TestMedia.writeMovie(to: output.renderedContentURL, width: 64, height: 48, seconds: 0.5)
        let handle = try FileHandle(forWritingTo: output.renderedContentURL)
        try handle.truncate(atOffset: 1_000_000_000)
        try handle.close()
        output.adjustmentData = PHAdjustmentData(formatIdentifier: Self.format, formatVersion: "1.0", data: Data("big".utf8))
        do {
            try Self.commit(output, to: asset, in: library.library)
            Issue.record("a 1 GB rendering of half a second was committed")
        } catch let error as PHPhotosError {
            #expect(error.code == .invalidResource)
            #expect(error.localizedDescription.contains("can need"), "\(error.localizedDescription)")
        }
        #expect(!(try Self.refetch(asset, library).hasAdjustments))
        #expect(try library.writerLeftovers().isEmpty)
    }

    /// A tampered `Adjustments.plist` is read only up to its limit, judged by the file and not by the size the database
    /// recorded (a 2 GB file made `photos show` take 7.9 GB): the asset's adjustment data is then simply unreadable.
    @Test func aTamperedAdjustmentsFileIsNeverReadWhole() async throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let (asset, _) = try Self.sidewaysAsset(library)
        try Self.commit(try Self.output(try await Self.requireInput(asset), recipe: "kept"), to: asset, in: library.library)
        let edited = try Self.refetch(asset, library)
        let plist = try #require(PHAssetResource.assetResources(for: edited).first { $0.type == .adjustmentData }?.fileURL)
        #expect(try await Self.requireInput(edited, canHandle: { _ in true }).adjustmentData?.data == Data("kept".utf8))
        let handle = try FileHandle(forWritingTo: plist)
        try handle.truncate(atOffset: 2_000_000_000)
        try handle.close()
        let input = try await Self.requireInput(edited, canHandle: { _ in true })
        #expect(input.adjustmentData == nil)
    }
}

extension ContentEditingTests {
    /// A photo tagged with a profile that cannot be rendered into here (Adobe RGB (1998), as DSLRs write; Apple's input-
    /// class and Lab-based profiles the same way) failed `photos edit` with "Cannot render into the colour space". The
    /// edit is rendered into Display P3 and tagged so.
    @Test func aPhotoInAdobeRGBIsEditedIntoDisplayP3() async throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let file = library.scratch.appendingPathComponent("adobe.jpg")
        try TestMedia.writeJPEG(to: file, width: 64, height: 48, iccProfile: TestMedia.adobeRGBProfile())
        let source = try #require(CIImage(contentsOf: file))
        let sourceSpace = try #require(source.colorSpace)
        #expect(!sourceSpace.supportsOutput, "the test's profile must be one that cannot be rendered into")
        let id = try #require(try library.library.importItems(at: [file]).importedLocalIdentifiers.first)
        let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [id], options: library.options()).firstObject)
        _ = try await PhotoEditRecipe.edit(asset) { $0.setting(.exposure(ev: 0.3)) }
        let edited = try Self.refetch(asset, library)
        #expect(edited.hasAdjustments)
        let rendering = try #require(PHAssetResource.assetResources(for: edited).first { $0.type == .fullSizePhoto }?.fileURL)
        let space = try #require(CIImage(contentsOf: rendering)?.colorSpace)
        #expect(space.name == CGColorSpace.displayP3, "\(space)")
    }
}
