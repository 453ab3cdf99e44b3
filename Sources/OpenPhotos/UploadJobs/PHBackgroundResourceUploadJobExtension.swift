/// An app's background upload extension (iOS 27): the host calls ``processJobs()`` when uploads may run; the
/// extension makes jobs for what is not backed up yet (``PHAssetResourceUploadJobChangeRequest``), acknowledges
/// finished ones and retries failed ones, and answers whether it is done.
///
/// On Apple platforms the protocol refines ExtensionFoundation's `AppExtension` and the system finds the extension
/// in the app's bundle; in OpenPhotoKit a program hosts it (`BackgroundUploads`' `UploadJobHost`, or
/// `photos uploads run` for the example extension), so the protocol asks only for ``init()``.
public protocol PHBackgroundResourceUploadJobExtension: AnyObject {
    init()
    /// Makes, acknowledges and retries jobs; answers how far it got.
    func processJobs() async -> PHBackgroundResourceUploadProcessingResult
    /// The host is about to stop the extension: stop the work in progress. A later activation calls
    /// ``processJobs()`` again.
    func willTerminate() async
}
