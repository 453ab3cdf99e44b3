import Foundation
import PhotoLibraryEngine

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Makes and changes ``PHAssetResourceUploadJob``s inside a change block (iOS 26.1): a new job for a resource, or
/// one job acknowledged, retried or cancelled. Background uploads must be enabled for the app first
/// (``PHPhotoLibrary/enableUploadJobExtension(with:)``), and the app needs full (read-write) access.
open class PHAssetResourceUploadJobChangeRequest: PHChangeRequest, @unchecked Sendable {
    private let identifier: String
    private var change: UploadJobChange?
    private let creates: Bool

    /// A creation request (used by the factory methods; not for direct use).
    public required init(_creatingJobWithIdentifier identifier: String, assetLocalIdentifier: String, resourceType: Int, destination: URLRequest?) {
        self.identifier = identifier
        self.creates = true
        self.change = .create(
            assetLocalIdentifier: assetLocalIdentifier, resourceType: resourceType, destination: destination.map(UploadJobDestination.init),
            jobType: destination == nil ? 1 : 0)
        super.init()
    }

    private init(job: PHAssetResourceUploadJob) {
        self.identifier = job.localIdentifier
        self.creates = false
        super.init()
    }

    /// Makes a job that sends `resource` to `destination` and answers its change request (iOS 26.4), whose
    /// placeholder names the job. Past ``PHAssetResourceUploadJob/jobLimit`` unacknowledged jobs the block fails with
    /// ``PHPhotosError/Code/limitExceeded``.
    open class func creationRequestForJob(destination: URLRequest, resource: PHAssetResource) -> Self {
        self.init(
            _creatingJobWithIdentifier: Self.newJobIdentifier(), assetLocalIdentifier: resource.record.assetLocalIdentifier,
            resourceType: resource.record.typeRawValue, destination: destination)
    }

    /// Makes a job that sends `resource` to `destination` (iOS 26.1; ``creationRequestForJob(destination:resource:)``
    /// answers the request).
    open class func createJob(destination: URLRequest, resource: PHAssetResource) {
        _ = creationRequestForJob(destination: destination, resource: resource)
    }

    /// Makes a job that only makes `resource` local (iOS 26.4): in a library whose originals are all local, it
    /// succeeds at once.
    open class func creationRequestForDownloadJob(resource: PHAssetResource) -> Self {
        self.init(
            _creatingJobWithIdentifier: Self.newJobIdentifier(), assetLocalIdentifier: resource.record.assetLocalIdentifier,
            resourceType: resource.record.typeRawValue, destination: nil)
    }

    /// A request to change a job.
    public convenience init?(for job: PHAssetResourceUploadJob) {
        self.init(job: job)
    }

    /// A request to change a job (Objective-C's `changeRequestForUploadJob:`).
    public convenience init?(forUploadJob job: PHAssetResourceUploadJob) {
        self.init(job: job)
    }

    /// The job a creation request makes; nil for a request that changes a job.
    open var placeholderForCreatedAssetResourceUploadJob: PHObjectPlaceholder? {
        creates ? PHObjectPlaceholder(localIdentifier: identifier, library: context.library) : nil
    }

    /// Acknowledges a succeeded or failed job, which frees its place under ``PHAssetResourceUploadJob/jobLimit``.
    open func acknowledge() {
        checkInsideBlock()
        change = .acknowledge
    }

    /// Retries a failed job that is not acknowledged and was not retried before, to `destination` (nil: the same).
    open func retry(destination: URLRequest?) {
        checkInsideBlock()
        change = .retry(destination.map(UploadJobDestination.init))
    }

    /// Cancels a registered or pending job (iOS 26.4): it becomes cancelled, and acknowledged.
    open func cancel() {
        checkInsideBlock()
        change = .cancel
    }

    override func intents() -> [ChangeIntent] {
        change.map { [.uploadJob(localIdentifier: identifier, $0)] } ?? []
    }

    private static func newJobIdentifier() -> String { "\(UUID().uuidString)/L0/090" }
}
