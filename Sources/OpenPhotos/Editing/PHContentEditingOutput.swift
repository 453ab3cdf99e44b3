import Foundation
import PhotoLibraryEngine

/// The result of an edit: the rendered photo or video and the ``PHAdjustmentData`` that describes how it was made.
///
/// Make one from the input you edited, write the rendering to ``renderedContentURL`` (a JPEG for photos, a
/// QuickTime movie for videos, orientation baked in: "up"), set a new ``adjustmentData``, and commit it in a change
/// block:
///
/// ```swift
/// let output = PHContentEditingOutput(contentEditingInput: input)
/// try context.writeJPEGRepresentation(of: edited, to: output.renderedContentURL, colorSpace: edited.colorSpace!)
/// output.adjustmentData = PHAdjustmentData(formatIdentifier: "com.example.filters", formatVersion: "1.0", data: recipe)
/// try await library.performChanges {
///     PHAssetChangeRequest(for: asset).contentEditingOutput = output
/// }
/// ```
///
/// The library validates the output when the block runs — a missing, empty, undecodable or mistyped rendering, an
/// orientation other than up, missing, empty or oversized adjustment data (see ``PHAdjustmentData/maximumDataSize``),
/// an output made for another asset, or one whose asset changed since its input was made (an output committed
/// twice) — and fails the whole block with a ``PHPhotosError`` when anything is wrong.
open class PHContentEditingOutput: NSObject, @unchecked Sendable {
    /// The recipe of this edit: set a new object for every new rendering.
    open var adjustmentData: PHAdjustmentData?

    /// The asset the output is for.
    let assetLocalIdentifier: String
    /// The input it was made from (nil: an asset created in the same change block).
    let input: PHContentEditingInput?
    private let workspace: EditingWorkspace
    private let placeholder: PHObjectPlaceholder?

    /// An output for an edit of the asset `contentEditingInput` came from.
    public init(contentEditingInput: PHContentEditingInput) {
        assetLocalIdentifier = contentEditingInput.assetLocalIdentifier
        input = contentEditingInput
        workspace = contentEditingInput.workspace
        placeholder = nil
        super.init()
    }

    /// An output for an asset created in the same change block (its creation request's placeholder): the edit is
    /// made from the resources the request adds, which stay the asset's originals.
    public init(placeholderForCreatedAsset: PHObjectPlaceholder) {
        assetLocalIdentifier = placeholderForCreatedAsset.localIdentifier
        input = nil
        placeholder = placeholderForCreatedAsset
        do { workspace = try EditingWorkspace() } catch {
            photoKitMisuse("cannot create a folder for the rendered output: \(error)")
        }
        super.init()
    }

    private var isVideo: Bool {
        if let input { return input.mediaType == .video }
        return placeholder?.creationRequest?.createsVideo ?? false
    }

    /// Where to write the rendering: `FullSizeRender.jpg` for photos, `FullSizeRender.mov` for videos, in a private
    /// folder of this editing session.
    open var renderedContentURL: URL {
        workspace.url.appendingPathComponent(isVideo ? "FullSizeRender.mov" : "FullSizeRender.jpg")
    }

    /// The type written to ``renderedContentURL`` (iOS 17): JPEG for photos, QuickTime for videos.
    open var defaultRenderedContentType: UTType? { isVideo ? .quickTimeMovie : .jpeg }

    /// The types the library accepts (iOS 17): JPEG and HEIC for photos, QuickTime for videos.
    open var supportedRenderedContentTypes: [UTType] { isVideo ? [.quickTimeMovie] : [.jpeg, .heic] }

    /// Where to write a rendering of a supported type (iOS 17); write one rendering only.
    /// - throws: ``PHPhotosError/Code/invalidResource`` for a type not in ``supportedRenderedContentTypes``.
    open func renderedContentURL(for type: UTType) throws -> URL {
        guard supportedRenderedContentTypes.contains(type), let ext = type.preferredFilenameExtension else {
            throw PHPhotosError(
                .invalidResource,
                userInfo: [
                    NSLocalizedDescriptionKey:
                        "\(type.identifier) is not a rendered content type of this output (\(supportedRenderedContentTypes.map(\.identifier).joined(separator: ", ")))"
                ])
        }
        return workspace.url.appendingPathComponent("FullSizeRender.\(ext == "jpeg" ? "jpg" : ext)")
    }

    /// Where `PHLivePhotoEditingContext.saveLivePhoto(to:options:completionHandler:)` writes a Live Photo's edited
    /// video, beside the edited still.
    package var renderedPairedVideoURL: URL { workspace.url.appendingPathComponent("FullSizeRender_3.mov") }

    /// The Live Photo video written beside the rendering, if any.
    package var writtenPairedVideo: URL? {
        FileManager.default.fileExists(atPath: renderedPairedVideoURL.path) ? renderedPairedVideoURL : nil
    }

    /// The rendering written (the first of the supported types' files that exists), and how many were written.
    package var writtenRenderings: [URL] {
        supportedRenderedContentTypes.compactMap { try? renderedContentURL(for: $0) }.filter { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// The edit to commit for the asset `identifier`: the rendering written (exactly one of the supported types'
    /// files), the adjustment data, and the version the input was made from.
    func contentEdit(for identifier: String) -> ContentEdit {
        let written = writtenRenderings
        var problem: String?
        if identifier != assetLocalIdentifier {
            problem = "the content editing output was made for another asset (\(assetLocalIdentifier)), not \(identifier)"
        } else if written.count > 1 {
            problem =
                "the content editing output holds \(written.count) renderings (\(written.map(\.lastPathComponent).joined(separator: ", "))); write one"
        } else if adjustmentData == nil {
            problem = "the content editing output has no adjustment data"
        }
        var edit = ContentEdit(
            renderedFile: written.first ?? renderedContentURL, formatIdentifier: adjustmentData?.formatIdentifier ?? "",
            formatVersion: adjustmentData?.formatVersion ?? "", adjustmentData: adjustmentData?.data ?? Data(),
            basis: input?.basis ?? .original, baseContentVersion: input?.contentVersion, madeFor: assetLocalIdentifier, problem: problem,
            renderedPairedVideo: writtenPairedVideo)
        edit.keptPropertyList = keptAdjustmentPropertyList
        return edit
    }

    /// The adjustment property list to store as it is (a backup keeps the device's bytes), instead of one written
    /// from ``adjustmentData``; it must say the same.
    package var keptAdjustmentPropertyList: Data?

    open override var description: String {
        "<PHContentEditingOutput: \(assetLocalIdentifier) \(renderedContentURL.lastPathComponent) adjustmentData=\(adjustmentData.map { "\($0.formatIdentifier) \($0.formatVersion)" } ?? "nil")>"
    }
}
