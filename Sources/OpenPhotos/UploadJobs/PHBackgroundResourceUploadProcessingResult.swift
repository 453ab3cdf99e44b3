/// What an upload extension's ``PHBackgroundResourceUploadJobExtension/processJobs()`` came to.
public enum PHBackgroundResourceUploadProcessingResult: Int, Sendable {
    /// The extension failed its processing with an error.
    case failure = 0
    /// The extension completed part of its processing and needs more time: the host calls it again.
    case processing = 1
    /// The extension completed its processing and is up to date with the library.
    case completed = 2
}
