@_exported import Foundation
@_exported import Photos

/// The controller of a photo editing extension, as PhotosUI declares it: the host asks it whether it can handle
/// an asset's adjustment data, starts the editing session with the input, and asks it to finish — or cancels it.
///
/// On Apple platforms it is a view controller the Photos app shows. On Linux an extension is a program without a
/// window: the host (`photos edit ID --with EXTENSION`, or ``EditingSession``) runs it as its own process and passes
/// in the settings the extension declares (see `PhotoEditingExtension`). The call order is Apple's:
/// ``canHandle(_:)`` (only when the asset has adjustment data) → ``startContentEditing(with:placeholderImage:)`` →
/// ``finishContentEditing(completionHandler:)``, or ``cancelContentEditing()`` at any time after the start — even
/// while finishing; after a cancel the completion handler's output is ignored and nothing is committed.
@MainActor
public protocol PHContentEditingController: NSObjectProtocol {
    /// Whether the extension reads this adjustment data: true gets the previous version and the data (to reopen the
    /// edit), false the current version (to edit on top of it).
    func canHandle(_ adjustmentData: PHAdjustmentData) -> Bool

    /// The editing session begins: keep the input. On Apple platforms `placeholderImage` shows the current version
    /// while the view loads; on Linux there is no view and it is an empty image — the input's `displaySizeImage` is
    /// made (from the copy of the full-size file) when it is first asked for.
    func startContentEditing(with contentEditingInput: PHContentEditingInput, placeholderImage: UIImage)

    /// Render the edit into a `PHContentEditingOutput` made from the input, set its adjustment data, and call the
    /// handler with it (from any thread); nil gives up the edit.
    func finishContentEditing(completionHandler: @escaping @Sendable (PHContentEditingOutput?) -> Void)

    /// Whether the host asks the user before a cancel (when a terminal is attached).
    var shouldShowCancelConfirmation: Bool { get }

    /// The session is cancelled: stop work and clean up; do not call the finish completion handler afterwards.
    func cancelContentEditing()
}
