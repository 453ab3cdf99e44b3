import Foundation
import PhotoLibraryEngine

extension PHPhotoLibrary {
    /// Whether background uploads are enabled for the app (iOS 26.1).
    public var uploadJobExtensionEnabled: Bool { storedUploadJobConfiguration != nil }

    /// The client's background upload options as the library keeps them (JSON), nil when not enabled.
    private var storedUploadJobConfiguration: String? {
        if let remote { return (try? remote.uploadJobConfiguration()) ?? nil }
        return (try? engineIfAvailable?.uploadJobConfiguration(client: clientIdentifier)) ?? nil
    }

    /// Keeps the client's background upload options (nil: disabled), in the library or on its server.
    private func storeUploadJobConfiguration(_ json: String?) throws {
        do {
            if let remote {
                try remote.setUploadJobConfiguration(json)
            } else {
                try engine().setUploadJobConfiguration(json, client: clientIdentifier)
            }
        } catch { throw PHPhotosError(error) }
    }

    /// Enables background uploads for the app with `options` (nil: the defaults), in one change (iOS 27).
    /// - throws: ``PHPhotosError``: `accessUserDenied` / `accessRestricted` without full (read-write) access.
    public func enableUploadJobExtension(with options: PHAssetResourceUploadJobOptions?) throws {
        try requireFullAccess("enabling background uploads")
        try storeUploadJobConfiguration((options ?? PHAssetResourceUploadJobOptions()).json)
    }

    /// Disables background uploads for the app (iOS 27): its jobs waiting are cancelled, the others acknowledged.
    public func disableUploadJobExtension() throws {
        try requireFullAccess("disabling background uploads")
        try storeUploadJobConfiguration(nil)
    }

    /// Enables or disables background uploads (iOS 26.1; iOS 27 has ``enableUploadJobExtension(with:)`` and
    /// ``disableUploadJobExtension()``).
    public func setUploadJobExtensionEnabled(_ enable: Bool) throws {
        if enable { try enableUploadJobExtension(with: uploadJobExtensionOptions) } else { try disableUploadJobExtension() }
    }

    /// The app's background upload options; nil when background uploads are not enabled (iOS 27).
    public var uploadJobExtensionOptions: PHAssetResourceUploadJobOptions? {
        guard access.canManageCollections, let json = storedUploadJobConfiguration else { return nil }
        return PHAssetResourceUploadJobOptions(json: json)
    }

    /// Sets the app's background upload options (iOS 27); pass new options to reset them.
    /// - throws: ``PHPhotosError/Code/changeNotSupported`` when background uploads are not enabled.
    public func setUploadJobExtensionOptions(_ options: PHAssetResourceUploadJobOptions) throws {
        guard uploadJobExtensionEnabled else {
            throw PHPhotosError(
                .changeNotSupported, userInfo: [NSLocalizedDescriptionKey: "background uploads are not enabled: enable them first"])
        }
        try enableUploadJobExtension(with: options)
    }

    private func requireFullAccess(_ operation: String) throws {
        guard access.canManageCollections else {
            throw PHPhotosError(access.denial("\(operation) (it needs full library access)"))
        }
    }
}

/// OpenPhotoKit: an upload job a performer claimed: what to send, where. Package API: `BackgroundUploads`'.
package struct LibraryUploadJob: Sendable {
    package var localIdentifier: String
    package var url: String
    package var method: String
    package var headers: [(name: String, value: String)]
    package var timeout: Double
    package var attempts: Int
    /// The resource the job sends, as the claim found it (nil: the asset no longer has it).
    let resource: ResourceRecord?
}

/// OpenPhotoKit: what an attempt at an upload job came to. Package API.
package enum LibraryUploadJobOutcome: Sendable {
    case succeeded(status: Int, headers: [String: String])
    case failed(error: String, status: Int?, headers: [String: String]?)
    case retryLater(error: String, delay: TimeInterval)
}

extension PHPhotoLibrary {
    /// Claims up to `limit` of this client's jobs that are due, for `worker`, with a lease of `lease` seconds (a
    /// performer that dies leaves them to the next once it ends). Download-only jobs succeed here: every original
    /// of an OpenPhotoKit library is local.
    package func claimUploadJobs(worker: String, limit: Int, lease: TimeInterval) throws -> [LibraryUploadJob] {
        do {
            let engine = try engine()
            let jobs = try engine.claimUploadJobs(client: clientIdentifier, worker: worker, limit: limit, lease: lease)
            // Their resources found together (one read for the batch, not one per job when it is sent).
            let resources = try engine.uploadJobResources(jobs)
            return zip(jobs, resources).map { job, resource in
                LibraryUploadJob(
                    localIdentifier: job.localIdentifier, url: job.destination.url, method: job.destination.method,
                    headers: job.destination.headers.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }, timeout: job.destination.timeout,
                    attempts: job.attempts, resource: resource)
            }
        } catch { throw PHPhotosError(error) }
    }

    /// Extends `worker`'s claims on jobs it is still sending.
    package func renewUploadJobLeases(_ localIdentifiers: [String], worker: String, lease: TimeInterval) throws {
        do { try engine().renewUploadJobLeases(localIdentifiers, worker: worker, lease: lease) } catch { throw PHPhotosError(error) }
    }

    /// When this client's next job is due — a job to try again, or one whose performer's lease ends (nil: none
    /// waits).
    package func nextUploadJobDue() throws -> Date? {
        do { return try engine().nextUploadJobDue(client: clientIdentifier) } catch { throw PHPhotosError(error) }
    }

    /// The bytes a claimed job sends, as a file to read, and their size; nil when the asset no longer has them
    /// (deleted or edited since the job was made: the job fails).
    package func uploadJobFile(_ job: LibraryUploadJob) throws -> (url: URL, size: Int64, sha256: String)? {
        guard let resource = job.resource else { return nil }
        do { return (try engine().materialize(resource), resource.fileSize, resource.sha256) } catch { throw PHPhotosError(error) }
    }

    /// Records what attempts at claimed jobs came to, in one transaction; for each, false when the job is no longer
    /// `worker`'s.
    @discardableResult
    package func finishUploadJobs(_ outcomes: [(localIdentifier: String, outcome: LibraryUploadJobOutcome)], worker: String) throws -> [Bool] {
        let attempts = outcomes.map { identifier, outcome -> (identifier: String, attempt: UploadJobAttempt) in
            switch outcome {
            case .succeeded(let status, let headers): (identifier, .succeeded(status: status, headers: headers))
            case .failed(let error, let status, let headers): (identifier, .failed(error: error, status: status, headers: headers))
            case .retryLater(let error, let delay): (identifier, .retryLater(error: error, delay: delay))
            }
        }
        do { return try engine().finishUploadJobs(attempts, worker: worker) } catch { throw PHPhotosError(error) }
    }
}

extension PHPhotoLibrary {
    /// The wire form of this client's jobs an action applies to, each with its resource (`GET /v1/upload-jobs`: a
    /// served library's remote client fetching its jobs). Package API: the server's.
    package func servedUploadJobs(action: PHAssetResourceUploadJob.Action) throws -> Data {
        do {
            let jobs = try engine().servedUploadJobs(client: clientIdentifier, action: UploadJobAction(rawValue: action.rawValue) ?? .process)
            return try UploadJobWireRecord.encode(jobs)
        } catch let error as LibraryError { throw PHPhotosError(error) }
    }

    /// This client's background upload options as the library keeps them (JSON; nil: not enabled), for a served
    /// library's remote client. Needs full access, as ``uploadJobExtensionOptions`` does.
    package func servedUploadJobConfiguration() throws -> String? {
        try requireFullAccess("reading the background upload options")
        return storedUploadJobConfiguration
    }

    /// Enables background uploads for this client with options in their JSON form, or disables them (nil), for a
    /// served library's remote client.
    package func setServedUploadJobConfiguration(_ json: String?) throws {
        if let json {
            try enableUploadJobExtension(with: PHAssetResourceUploadJobOptions(json: json))
        } else {
            try disableUploadJobExtension()
        }
    }
}
