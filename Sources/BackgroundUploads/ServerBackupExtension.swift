import Foundation
import OpenPhotos
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The example upload extension (a template: copy it into your app): backs a library up to a `photos serve`
/// through background upload jobs — every resource of every asset (originals, Live Photo videos, RAW alternates,
/// edits with their adjustment data) as one job each, to `POST /v1/backup` with what the server needs in headers.
/// It remembers what the server holds (a job that succeeded), so a run when nothing changed makes no job;
/// acknowledges finished jobs, retries a failed one once, and makes a job anew later for one that failed twice.
///
/// Its settings are a JSON file — `{"server": "https://photos.example.com", "tokenFile": "/path/to/token"}` —
/// at ``settingsFile`` (`photos uploads enable` writes it), and what it remembers is kept beside it
/// (`….state.json`).
public final class ServerBackupExtension: PHBackgroundResourceUploadJobExtension {
    /// The settings file: the task's (a host sets it for each run), else `$PHOTOS_BACKUP_SETTINGS`, else
    /// `~/.config/openphotokit/backup.json`.
    @TaskLocal public static var settingsFile: URL?

    static var resolvedSettingsFile: URL { settingsFile ?? defaultSettingsFile }

    /// `$PHOTOS_BACKUP_SETTINGS`, else `~/.config/openphotokit/backup.json`.
    public static var defaultSettingsFile: URL {
        if let path = ProcessInfo.processInfo.environment["PHOTOS_BACKUP_SETTINGS"], !path.isEmpty { return URL(fileURLWithPath: path) }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config/openphotokit/backup.json")
    }

    /// Where to back up to.
    public struct Settings: Codable, Sendable, Equatable {
        /// The server's base URL (`https://host[:port]`).
        public var server: String
        /// A file holding the bearer token the server's owner issued (`photos serve --issue-token`), 0600.
        public var tokenFile: String?

        public init(server: String, tokenFile: String?) {
            (self.server, self.tokenFile) = (server, tokenFile)
        }
    }

    /// What the server holds: resource (`asset|type|sha256`) → the server's asset; and the resources whose jobs
    /// failed twice, with when (left alone for a day: a server that refuses them refuses them again).
    struct State: Codable {
        var uploaded: [String: String] = [:]
        var failed: [String: Date] = [:]

        init() {}

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            uploaded = try container.decodeIfPresent([String: String].self, forKey: .uploaded) ?? [:]
            failed = try container.decodeIfPresent([String: Date].self, forKey: .failed) ?? [:]
        }
    }

    /// How many jobs one change block makes.
    static let jobsPerPage = 100
    /// How many the first one makes: the host starts sending when it commits, so it is small.
    static let firstPage = 12

    /// How long a resource whose job failed twice is left alone.
    static let failureQuarantine: TimeInterval = 86_400

    /// The resource types backed up.
    static let backedUp: Set<PHAssetResourceType> = [
        .photo, .video, .audio, .alternatePhoto, .fullSizePhoto, .fullSizeVideo, .adjustmentData, .pairedVideo, .fullSizePairedVideo,
    ]

    public required init() {}

    public func willTerminate() async {}

    public func processJobs() async -> PHBackgroundResourceUploadProcessingResult {
        do { return try process() } catch {
            FileHandle.standardError.write(Data("backup extension: \(error)\n".utf8))
            return .failure
        }
    }

    private func process() throws -> PHBackgroundResourceUploadProcessingResult {
        let library = PHPhotoLibrary.shared()
        let settingsURL = Self.resolvedSettingsFile
        let settings = try JSONDecoder().decode(Settings.self, from: Data(contentsOf: settingsURL))
        let stateURL = settingsURL.deletingPathExtension().appendingPathExtension("state.json")
        var state = (try? JSONDecoder().decode(State.self, from: Data(contentsOf: stateURL))) ?? State()
        let options = PHFetchOptions()
        options.photoLibrary = library

        // 1. Jobs that finished: remember what the server took; retry a failure once, then let it go (a later run
        // makes a job anew).
        let finished = PHAssetResourceUploadJob.fetchJobs(action: .acknowledge, options: options).allObjects
        let retryable = Set(PHAssetResourceUploadJob.fetchJobs(action: .retry, options: options).allObjects.map(\.localIdentifier))
        for job in finished {
            guard let key = Self.key(job) else { continue }
            if job.state == .succeeded {
                state.uploaded[key] = job.responseHeaderFields?["photos-library-asset"] ?? ""
                state.failed[key] = nil
            } else if !retryable.contains(job.localIdentifier) {
                state.failed[key] = Date()
            }
        }
        state.failed = state.failed.filter { Date().timeIntervalSince($0.value) < Self.failureQuarantine }
        try Data(JSONEncoder().encode(state)).write(to: stateURL, options: .atomic)
        if !finished.isEmpty {
            try library.performChangesAndWait {
                for job in finished {
                    guard let request = PHAssetResourceUploadJobChangeRequest(for: job) else { continue }
                    if job.state == .failed, retryable.contains(job.localIdentifier) {
                        request.retry(destination: nil)
                    } else {
                        request.acknowledge()
                    }
                }
            }
        }

        // 2. What the server lacks and no job sends yet, as new jobs, within the limit.
        // The host sends jobs while this runs: fetched in this order, a job that finished after the first fetch (it
        // was not among those acknowledged above) is among the later ones, never made again.
        let inFlight = PHAssetResourceUploadJob.fetchJobs(action: .process, options: options).allObjects
        let unacknowledged = PHAssetResourceUploadJob.fetchJobs(action: .acknowledge, options: options).allObjects
        var busy = Set(inFlight.compactMap(Self.key))
        busy.formUnion(unacknowledged.compactMap(Self.key))
        busy.formUnion(PHAssetResourceUploadJob.fetchJobs(action: .retry, options: options).allObjects.compactMap(Self.key))
        var room = PHAssetResourceUploadJob.jobLimit - inFlight.count - unacknowledged.count
        guard room > 0 else { return .processing }
        let token = try settings.tokenFile.map { try String(contentsOfFile: $0, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) }
        guard let endpoint = URL(string: settings.server)?.appendingPathComponent("v1/backup") else {
            throw CocoaError(.coderInvalidValue, userInfo: [NSDebugDescriptionErrorKey: "server must be a URL: \(settings.server)"])
        }
        let assets = PHAsset.fetchAssets(with: options)
        var requests: [(URLRequest, PHAssetResource)] = []
        var made = 0
        // Jobs are committed a page at a time: the host sends the first while the rest are made.
        func commit() throws {
            guard !requests.isEmpty else { return }
            let page = requests
            requests.removeAll(keepingCapacity: true)
            try library.performChangesAndWait {
                for (request, resource) in page {
                    _ = PHAssetResourceUploadJobChangeRequest.creationRequestForJob(destination: request, resource: resource)
                }
            }
            made += page.count
        }
        var pending = false
        var index = 0
        // Cloud identifiers asked for 500 assets at a time (one request to a served library, not one per asset),
        // from the first that needs a job; before the first page is made, only for as many assets as it takes (the
        // host starts sending when it is committed).
        var clouds: [String: Result<PHCloudIdentifier, any Error>] = [:]
        var cloudsAsked = 0..<0
        while index < assets.count {
            let asset = assets.object(at: index)
            index += 1
            let resources = Self.current(PHAssetResource.assetResources(for: asset))
            let todo = resources.filter { resource in
                let key = Self.key(resource)
                return state.uploaded[key] == nil && state.failed[key] == nil && !busy.contains(key)
            }
            guard !todo.isEmpty else { continue }
            // An asset's jobs are made together, so the server gets all of them.
            guard todo.count <= room else {
                pending = true
                break
            }
            if !cloudsAsked.contains(index - 1) {
                cloudsAsked = (index - 1)..<min(index - 1 + (made == 0 ? Self.firstPage : 500), assets.count)
                let page = assets.objects(at: IndexSet(integersIn: cloudsAsked))
                clouds = library.cloudIdentifierMappings(forLocalIdentifiers: page.map(\.localIdentifier))
            }
            let cloud = try? clouds[asset.localIdentifier]?.get()
            for resource in todo {
                requests.append((Self.request(endpoint, asset: asset, resource: resource, of: resources, cloud: cloud, token: token), resource))
            }
            room -= todo.count
            if requests.count >= (made == 0 ? Self.firstPage : Self.jobsPerPage) { try commit() }
        }
        try commit()
        return made == 0 && inFlight.isEmpty && !pending && unacknowledged.isEmpty ? .completed : .processing
    }

    /// The request for one resource: `POST /v1/backup` with the asset's identity and what it is (see the server's
    /// BackingUp article).
    static func request(
        _ endpoint: URL, asset: PHAsset, resource: PHAssetResource, of resources: [PHAssetResource], cloud: PHCloudIdentifier?, token: String?
    ) -> URLRequest {
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        request.timeoutInterval = 120
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        request.setValue(asset.localIdentifier, forHTTPHeaderField: "Photos-Asset-Identifier")
        request.setValue(String(resource.type.rawValue), forHTTPHeaderField: "Photos-Resource-Type")
        request.setValue(resources.map { String($0.type.rawValue) }.joined(separator: ","), forHTTPHeaderField: "Photos-Asset-Resources")
        let name = resource.originalFilename.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "._-")))
        request.setValue(name ?? "resource", forHTTPHeaderField: "Photos-Resource-Filename")
        request.setValue(resource.sha256, forHTTPHeaderField: "Photos-Content-SHA256")
        if let cloud { request.setValue(cloud.archivalStringValue, forHTTPHeaderField: "Photos-Cloud-Identifier") }
        if let date = asset.creationDate { request.setValue(isoDate(date), forHTTPHeaderField: "Photos-Creation-Date") }
        if let location = asset.location {
            var place = "\(location.coordinate.latitude),\(location.coordinate.longitude)"
            if location.verticalAccuracy >= 0 { place += ",\(location.altitude)" }
            request.setValue(place, forHTTPHeaderField: "Photos-Location")
        }
        if asset.isFavorite { request.setValue("1", forHTTPHeaderField: "Photos-Favorite") }
        return request
    }

    /// Made once: making one costs more than the rest of a job's request.
    private static let formatter = Mutex(ISO8601DateFormatter())

    /// A date in ISO 8601, UTC, to the nanosecond (what a `Date` holds comes back exactly).
    static func isoDate(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        var nanos = Int(((date.timeIntervalSince1970 - seconds) * 1_000_000_000).rounded())
        var whole = seconds
        if nanos >= 1_000_000_000 { (whole, nanos) = (whole + 1, 0) }
        let text = formatter.withLock { $0.string(from: Date(timeIntervalSince1970: whole)) }
        return text.replacingOccurrences(of: "Z", with: String(format: ".%09dZ", nanos))
    }

    /// An asset's resources to back up: one of each type (the current one).
    static func current(_ resources: [PHAssetResource]) -> [PHAssetResource] {
        var byType: [PHAssetResourceType: PHAssetResource] = [:]
        for resource in resources where backedUp.contains(resource.type) { byType[resource.type] = resource }
        return byType.values.sorted { $0.type.rawValue < $1.type.rawValue }
    }

    static func key(_ resource: PHAssetResource) -> String { "\(resource.assetLocalIdentifier)|\(resource.type.rawValue)|\(resource.sha256)" }

    static func key(_ job: PHAssetResourceUploadJob) -> String? { PHAssetResource.assetResource(forUploadJob: job).map(key) }
}

extension PHFetchResult {
    /// Every object of the result, in order.
    fileprivate var allObjects: [ObjectType] { objects(at: IndexSet(integersIn: 0..<count)) }
}
