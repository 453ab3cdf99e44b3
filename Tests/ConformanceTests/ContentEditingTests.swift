import Foundation
import Photos
import PhotosTesting
import Testing

/// Editing an asset's content as PhotoKit apps do it: an input, an output with a rendering and adjustment data
/// committed in a change block, the edit reopened from its recipe, and an output made from an input that an edit
/// committed meanwhile elsewhere refused.
@Suite("Content editing on every kind of library")
struct ContentEditingConformanceTests {
    static let format = "org.openphotokit.conformance"

    func input(_ asset: PHAsset, handles: Bool) async throws -> PHContentEditingInput {
        let options = PHContentEditingInputRequestOptions()
        options.isNetworkAccessAllowed = true
        options.canHandleAdjustmentData = { $0.formatIdentifier == Self.format && handles }
        return try await asset.requestContentEditingInput(with: options)
    }

    /// An output of `input` that renders solid `grey` with the recipe "grey".
    func output(_ input: PHContentEditingInput, grey: UInt8) throws -> PHContentEditingOutput {
        let output = PHContentEditingOutput(contentEditingInput: input)
        try TestMedia.writeSolidJPEG(to: output.renderedContentURL, width: 64, height: 48, red: grey, green: grey, blue: grey)
        output.adjustmentData = PHAdjustmentData(formatIdentifier: Self.format, formatVersion: "1.0", data: Data("grey \(grey)".utf8))
        return output
    }

    func fetch(_ id: String, _ library: TestLibrary) throws -> PHAsset {
        try #require(PHAsset.fetchAssets(withLocalIdentifiers: [id], options: library.options()).firstObject)
    }

    @Test(arguments: LibraryProviders.conformance)
    func anEditIsReopenedFromItsRecipeAndAStaleOutputIsRefused(_ provider: any LibraryProvider) async throws {
        let library = try TestLibrary(name: "ContentEditing", provider: provider)
        defer { library.remove() }
        let id = try #require(try library.addImages(1).first)
        let original = try fetch(id, library)

        // Unedited: the original, no recipe.
        let first = try await input(original, handles: true)
        #expect(first.adjustmentData == nil)
        #expect(first.mediaType == .image)
        let file = try #require(first.fullSizeImageURL)
        #expect(FileManager.default.fileExists(atPath: file.path))
        #expect(first.displaySizeImage?.size == CGSize(width: 64, height: 48))
        let edit = try output(first, grey: 100)
        try library.library.performChangesAndWait { PHAssetChangeRequest(for: original).contentEditingOutput = edit }
        let edited = try fetch(id, library)
        #expect(edited.hasAdjustments)
        #expect(edited.adjustmentFormatIdentifier == Self.format)

        // An editor that reads the recipe gets it and the original; one that does not, the rendering and no recipe.
        let reopened = try await input(edited, handles: true)
        #expect(reopened.adjustmentData?.data == Data("grey 100".utf8))
        #expect(reopened.adjustmentData?.formatVersion == "1.0")
        let stacked = try await input(edited, handles: false)
        #expect(stacked.adjustmentData == nil)

        // Another handle (another device) commits an edit meanwhile: the output of the older input is refused.
        let other = try library.open()
        let otherAsset = try #require(
            PHAsset.fetchAssets(
                withLocalIdentifiers: [id],
                options: {
                    let options = PHFetchOptions()
                    options.photoLibrary = other
                    return options
                }()
            ).firstObject)
        let theirs = try output(try await input(otherAsset, handles: true), grey: 200)
        try other.performChangesAndWait { PHAssetChangeRequest(for: otherAsset).contentEditingOutput = theirs }
        let stale = try output(reopened, grey: 50)
        #expect(throws: PHPhotosError.self) {
            try library.library.performChangesAndWait { PHAssetChangeRequest(for: edited).contentEditingOutput = stale }
        }
        let now = try await input(try fetch(id, library), handles: true)
        #expect(now.adjustmentData?.data == Data("grey 200".utf8))

        // Reverted: unedited again.
        let current = try fetch(id, library)
        try library.library.performChangesAndWait { PHAssetChangeRequest(for: current).revertAssetContentToOriginal() }
        #expect(try !fetch(id, library).hasAdjustments)
    }
}
