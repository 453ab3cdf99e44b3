import Foundation
import OpenPhotos
import OpenCoreImage

extension PhotoEditRecipe {
    /// What one edit by the built-in editor did.
    public struct EditResult: Sendable {
        /// The recipe now stored with the asset (empty after a change that removed every step: the asset was reverted).
        public var recipe: PhotoEditRecipe
        /// Whether the editor reopened the asset's own recipe (false: a new recipe, stacked on the current version).
        public var reopened: Bool
        /// The size of the new current version.
        public var pixelWidth: Int
        public var pixelHeight: Int
    }

    /// The built-in editor, the reference client of the content editing API: asks for the asset's editing input
    /// (handling its own format, so an earlier recipe and the previous version come back), changes the recipe,
    /// renders it through Core Image from the full-size input, and commits the output in a change block.
    ///
    /// A change that leaves an empty recipe on the original reverts the asset instead of storing a copy of it.
    /// - parameter quality: the JPEG quality of the rendering (0…1).
    /// - throws: ``PHPhotosError`` (from the input request or the commit); `requestNotSupportedForAsset` for videos.
    @discardableResult
    public static func edit(
        _ asset: PHAsset, quality: Double = 0.92, changing change: (PhotoEditRecipe) throws -> PhotoEditRecipe
    ) async throws -> EditResult {
        guard asset.mediaType == .image else {
            throw PHPhotosError(
                .requestNotSupportedForAsset,
                userInfo: [NSLocalizedDescriptionKey: "the built-in editor edits photos; \(asset.localIdentifier) is a \(asset.mediaType)"])
        }
        let library = asset.library ?? PHPhotoLibrary.shared()
        let options = PHContentEditingInputRequestOptions()
        options.canHandleAdjustmentData = { PhotoEditRecipe(adjustmentData: $0) != nil }
        options.skipsDisplaySizeImage = true  // no interface to show it in
        options.isNetworkAccessAllowed = true  // an original in object storage is fetched
        let input = try await asset.requestContentEditingInput(with: options)
        let previous = input.adjustmentData.flatMap(PhotoEditRecipe.init(adjustmentData:))
        let recipe = try change(previous ?? PhotoEditRecipe())
        if recipe.steps.isEmpty, input.isOriginal {
            try await library.performChanges { PHAssetChangeRequest(for: asset).revertAssetContentToOriginal() }
            let reverted = library.refreshedAsset(asset)
            return EditResult(
                recipe: recipe, reopened: previous != nil, pixelWidth: reverted?.pixelWidth ?? 0, pixelHeight: reverted?.pixelHeight ?? 0)
        }
        // Decoding and rendering the full size block: on a dispatch queue, not on the caller's thread (a server's
        // event loop or the cooperative pool).
        let output = PHContentEditingOutput(contentEditingInput: input)
        let identifier = asset.localIdentifier
        let size = try await Self.offThread { () throws -> CGSize in
            guard let url = input.fullSizeImageURL, let source = CIImage(contentsOf: url, options: [.applyOrientationProperty: true])
            else {
                throw PHPhotosError(.invalidResource, userInfo: [NSLocalizedDescriptionKey: "cannot read the input of \(identifier)"])
            }
            let rendered = recipe.apply(to: source)
            let colorSpace = CGColorSpace.renderingDestination(for: source.colorSpace)
            do {
                try CIContext().writeJPEGRepresentation(
                    of: rendered, to: output.renderedContentURL, colorSpace: colorSpace,
                    options: [kCGImageDestinationLossyCompressionQuality: quality])
            } catch {
                throw PHPhotosError(.invalidResource, userInfo: [NSLocalizedDescriptionKey: "cannot render the edit: \(error)"])
            }
            return rendered.extent.size
        }
        output.adjustmentData = recipe.adjustmentData
        try await library.performChanges { PHAssetChangeRequest(for: asset).contentEditingOutput = output }
        return EditResult(recipe: recipe, reopened: previous != nil, pixelWidth: Int(size.width), pixelHeight: Int(size.height))
    }
}

extension PhotoEditRecipe {
    /// The recipe applied to the asset's editing input, reduced to fit `width` × `height` pixels, as JPEG — what an
    /// editor shows while the user moves a slider, without committing anything. The recipe is in unit coordinates,
    /// so it applies to the reduced copy as to the full size.
    /// - throws: ``PHPhotosError``: `requestNotSupportedForAsset` for videos, `invalidResource` when the photo cannot be
    ///   read, or what the input request threw.
    public func preview(of asset: PHAsset, fittingWidth width: Int, height: Int) async throws -> Data {
        guard asset.mediaType == .image else {
            throw PHPhotosError(.requestNotSupportedForAsset, userInfo: [NSLocalizedDescriptionKey: "the built-in editor edits photos"])
        }
        let options = PHContentEditingInputRequestOptions()
        options.canHandleAdjustmentData = { PhotoEditRecipe(adjustmentData: $0) != nil }
        options.skipsDisplaySizeImage = true
        options.isNetworkAccessAllowed = true
        let input = try await asset.requestContentEditingInput(with: options)
        // Decoding and rendering block: on a dispatch queue, not on the caller's thread (a server's event loop).
        let recipe = self
        return try await Self.offThread { () throws -> Data in
            guard let url = input.fullSizeImageURL, let source = CIImage(contentsOf: url, options: [.applyOrientationProperty: true])
            else {
                throw PHPhotosError(.invalidResource, userInfo: [NSLocalizedDescriptionKey: "cannot read the photo"])
            }
            let scale = min(1, Double(width) / source.extent.width, Double(height) / source.extent.height)
            let reduced =
                scale < 1
                ? source.applyingFilter(
                    "CILanczosScaleTransform", parameters: [kCIInputScaleKey: scale, kCIInputAspectRatioKey: 1.0])
                : source
            guard
                // Without the original's metadata (place, camera, dates), as `/image` answers are: a
                // preview is shown, not kept.
                let data = CIContext().jpegRepresentation(
                    of: recipe.apply(to: reduced).settingProperties([:]), colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!)
            else {
                throw PHPhotosError(.internalError, userInfo: [NSLocalizedDescriptionKey: "the preview could not be encoded"])
            }
            return data
        }
    }
}

extension PhotoEditRecipe {
    /// Decoding and rendering block: they run on a dispatch queue, not on the caller's thread (a server's event loop
    /// or the cooperative pool).
    static func offThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async { continuation.resume(with: Result { try work() }) }
        }
    }
}
