import Foundation

/// Options for `PHAsset.requestContentEditingInput(with:completionHandler:)`.
///
/// The choice that matters is ``canHandleAdjustmentData``: asked with the asset's current adjustment data, an
/// editor that recognises the recipe answers true and gets the *previous* version (the input of the last edit) with
/// the recipe, so it can reopen the edit; false (or no handler) gives the *current* rendering, and the new edit
/// stacks on it.
open class PHContentEditingInputRequestOptions: NSObject, NSCopying, @unchecked Sendable {
    /// Whether the editor reads this adjustment data (typically decided on its format identifier and version).
    open var canHandleAdjustmentData: ((PHAdjustmentData) -> Bool)?
    /// Whether the input's file may be downloaded when this machine has no copy of it (object storage; Apple's:
    /// iCloud). Without it the request ends with `PHContentEditingInputResultIsInCloudKey` and `networkAccessRequired`.
    open var isNetworkAccessAllowed = false
    /// A download's progress, 0…1, in order on a queue of the request's own, with a flag to stop it (never called for
    /// what is already here).
    open var progressHandler: ((Double, UnsafeMutablePointer<ObjCBool>) -> Void)?
    /// Whether to leave out the input's `displaySizeImage` (iOS 27): an editor without an interface saves decoding
    /// the image for it.
    open var skipsDisplaySizeImage = false
    /// Which original of a RAW + JPEG pair the input starts from when it starts from the original (iOS 27): the RAW
    /// (its `fullSizeImageURL` is then the RAW file, for `CIRAWFilter`) or the JPEG or HEIC.
    open var originalResourceChoice: PHAsset.OriginalResourceChoice = .compressed

    /// Default options: no adjustment data handled, no network.
    public override init() {}

    /// A copy with the same settings.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = PHContentEditingInputRequestOptions()
        copy.canHandleAdjustmentData = canHandleAdjustmentData
        copy.isNetworkAccessAllowed = isNetworkAccessAllowed
        copy.progressHandler = progressHandler
        copy.skipsDisplaySizeImage = skipsDisplaySizeImage
        copy.originalResourceChoice = originalResourceChoice
        return copy
    }
}
