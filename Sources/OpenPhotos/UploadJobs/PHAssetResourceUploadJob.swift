import Foundation
import PhotoLibraryEngine

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request to upload an asset resource to a destination `URLRequest` while the app does not run (iOS 26.1).
///
/// An app's upload extension (``PHBackgroundResourceUploadJobExtension``) makes jobs with
/// ``PHAssetResourceUploadJobChangeRequest``; the library performs each job's request with the resource's bytes as
/// the body — retried with backoff, and sent again after a kill of either side — and the extension acknowledges
/// finished jobs (``Action/acknowledge``) or retries a failed one once (``Action/retry``). At most ``jobLimit``
/// jobs may be unacknowledged. In OpenPhotoKit the library keeps the jobs (every kind of library), `photos uploads
/// run` (or a ``BackgroundUploads`` host in a program of your own) performs them, and `photos serve` is a
/// destination (`POST /v1/backup`).
open class PHAssetResourceUploadJob: PHObject, @unchecked Sendable {
    /// The stages of a job's life (Apple's raw values).
    public enum State: Int, Sendable {
        /// The job has been registered.
        case registered = 1
        /// The request has been made, not yet fulfilled.
        case pending = 2
        /// The job failed to send its resource.
        case failed = 3
        /// The job sent its resource.
        case succeeded = 4
        /// The job was cancelled (iOS 26.4).
        case cancelled = 5
    }

    /// What a client may do with jobs: which ones ``fetchJobs(action:options:)`` answers.
    public enum Action: Int, Sendable {
        /// Succeeded or failed jobs not acknowledged yet.
        case acknowledge = 1
        /// Failed jobs, not acknowledged, not retried before.
        case retry = 2
        /// Registered or pending jobs (iOS 26.5).
        case process = 3
    }

    /// The kind of a job (iOS 26.4).
    public enum `Type`: Int16, Sendable {
        /// Uploads the resource.
        case upload = 0
        /// Only makes the resource local (downloads it from the cloud); a library whose originals are all local
        /// has nothing to do, and such a job succeeds at once.
        case downloadOnly = 1
    }

    let record: UploadJobRecord

    init(record: UploadJobRecord, library: PHPhotoLibrary?) {
        self.record = record
        super.init(localIdentifier: record.localIdentifier, library: library)
    }

    /// The maximum number of unacknowledged jobs (in flight, succeeded or failed) a client may have: past it, a
    /// change block that makes a job fails with ``PHPhotosError/Code/limitExceeded``.
    open class var jobLimit: Int { LibraryEngine.uploadJobLimit }

    /// The jobs of the library's client (the app) an action applies to, oldest first.
    open class func fetchJobs(action: PHAssetResourceUploadJob.Action, options: PHFetchOptions?) -> PHFetchResult<PHAssetResourceUploadJob> {
        let library = options?.photoLibrary ?? PHPhotoLibrary.shared()
        let kind = UploadJobAction(rawValue: action.rawValue) ?? .process
        let records: [UploadJobRecord]
        if let remote = library.remote {
            records = (try? remote.uploadJobs(action: kind)) ?? []
        } else {
            records = (try? library.engineIfAvailable?.uploadJobs(client: library.clientIdentifier, action: kind)) ?? []
        }
        var jobs = records.map { PHAssetResourceUploadJob(record: $0, library: library) }
        if let limit = options?.fetchLimit, limit > 0 { jobs = Array(jobs.prefix(limit)) }
        return PHFetchResult(objects: jobs, library: library, options: options)
    }

    /// Where the job sends its resource.
    open var destination: URLRequest { record.destination.urlRequest }

    /// Where the job stands.
    open var state: PHAssetResourceUploadJob.State { State(rawValue: record.state.rawValue) ?? .failed }

    /// The job's kind.
    open var type: PHAssetResourceUploadJob.`Type` { `Type`(rawValue: Int16(record.jobType)) ?? .upload }

    /// The resource the job sends (Apple deprecates it for ``PHAssetResource/assetResource(forUploadJob:)``).
    open var resource: PHAssetResource {
        guard let resource = PHAssetResource.assetResource(forUploadJob: self) else {
            photoKitMisuse("The resource of upload job \(localIdentifier) is no longer in the library")
        }
        return resource
    }

    /// Why the job failed (once ``state`` is ``State/failed``): the answer's status and what the performer saw.
    open var error: (any Error)? {
        guard record.state == .failed else { return nil }
        var info: [String: Any] = [NSLocalizedDescriptionKey: record.error ?? "the upload failed"]
        if let status = record.responseStatus { info["HTTPStatusCode"] = status }
        return PHPhotosError(.networkError, userInfo: info)
    }

    /// The answer's header fields, names in lowercase, once the job succeeded or failed with an answer (iOS 26.4).
    open var responseHeaderFields: [String: String]? {
        guard record.state == .succeeded || record.state == .failed else { return nil }
        return record.responseHeaders
    }
}

extension UploadJobDestination {
    /// The request a job keeps, as Foundation's.
    var urlRequest: URLRequest {
        var request = URLRequest(url: URL(string: url) ?? URL(string: "about:blank")!)
        request.httpMethod = method
        request.timeoutInterval = timeout
        for pair in headers where pair.count == 2 { request.addValue(pair[1], forHTTPHeaderField: pair[0]) }
        return request
    }

    /// What a job keeps of a request: its URL, method, header fields and timeout (not a body: the resource is the
    /// body).
    init(_ request: URLRequest) {
        let headers = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map { [$0.key, $0.value] }
        self.init(url: request.url?.absoluteString ?? "", method: request.httpMethod ?? "POST", headers: headers, timeout: request.timeoutInterval)
    }
}
