/// An app's background upload extension as iOS 26.1 shaped it (deprecated in iOS 27 for
/// ``PHBackgroundResourceUploadJobExtension``): the host calls ``process()`` when uploads may run, and
/// ``notifyTermination()`` before it stops the extension.
@available(*, deprecated, message: "Adopt PHBackgroundResourceUploadJobExtension (iOS 27)")
public protocol PHBackgroundResourceUploadExtension: AnyObject {
    init()
    /// Makes, acknowledges and retries jobs; answers how far it got.
    func process() -> PHBackgroundResourceUploadProcessingResult
    /// The host is about to stop the extension: stop the work in progress.
    func notifyTermination()
}
