import Foundation
import JSONWriting
import NIOHTTP1

/// An upload job as a served library describes it to its client (`GET /v1/upload-jobs`): every field of
/// ``UploadJobRecord`` and the resource the job sends, when the asset still has it — what
/// `PHAssetResource.assetResource(forUploadJob:)` answers, without a request per job.
package struct UploadJobWireRecord: Codable, Sendable {
    var localIdentifier: String
    var client: String?
    var jobType: Int
    var assetLocalIdentifier: String
    var resourceType: Int
    var resourceSHA256: String
    var destination: UploadJobDestination
    var state: Int
    var acknowledged: Bool
    var retried: Bool
    var attempts: Int
    var error: String?
    var responseStatus: Int?
    var responseHeaders: [String: String]?
    var createdDate: Double
    var resource: ResourceWireRecord?

    package init(_ record: UploadJobRecord, resource: ResourceRecord?) {
        (localIdentifier, client, jobType) = (record.localIdentifier, record.client, record.jobType)
        (assetLocalIdentifier, resourceType, resourceSHA256) = (record.assetLocalIdentifier, record.resourceType, record.resourceSHA256)
        (destination, state, acknowledged, retried) = (record.destination, record.state.rawValue, record.acknowledged, record.retried)
        (attempts, error, responseStatus, responseHeaders) = (record.attempts, record.error, record.responseStatus, record.responseHeaders)
        createdDate = record.createdDate.timeIntervalSince1970
        self.resource = resource.map(ResourceWireRecord.init)
    }

    /// The record, with the resource the server found for it.
    var record: UploadJobRecord? {
        guard let state = UploadJobState(rawValue: state) else { return nil }
        return UploadJobRecord(
            localIdentifier: localIdentifier, client: client, jobType: jobType, assetLocalIdentifier: assetLocalIdentifier,
            resourceType: resourceType, resourceSHA256: resourceSHA256, destination: destination, state: state, acknowledged: acknowledged,
            retried: retried, attempts: attempts, error: error, responseStatus: responseStatus, responseHeaders: responseHeaders,
            createdDate: Date(timeIntervalSince1970: createdDate), servedResource: resource?.record)
    }

    /// `{"jobs": […]}`, as `JSONEncoder` writes the records (a thousand jobs' worth took it a fifth of a second),
    /// written by hand.
    package static func encode(_ records: [UploadJobWireRecord]) throws -> Data {
        var out = JSONText.Writer()
        out.raw(#"{"jobs":["#)
        for (index, job) in records.enumerated() {
            guard job.destination.timeout.isFinite, job.createdDate.isFinite else {
                throw EncodingError.invalidValue(job, .init(codingPath: [], debugDescription: "a job's timeout or date is not a finite number"))
            }
            if index > 0 { out.raw(",") }
            out.raw("{")
            out.field("localIdentifier", job.localIdentifier)
            if let client = job.client { out.field("client", client) }
            out.field("jobType", job.jobType)
            out.field("assetLocalIdentifier", job.assetLocalIdentifier)
            out.field("resourceType", job.resourceType)
            out.field("resourceSHA256", job.resourceSHA256)
            out.key("destination")
            out.raw("{")
            out.field("url", job.destination.url)
            out.field("method", job.destination.method)
            out.field("headers", job.destination.headers)
            out.field("timeout", job.destination.timeout)
            out.raw("}")
            out.field("state", job.state)
            out.field("acknowledged", job.acknowledged)
            out.field("retried", job.retried)
            out.field("attempts", job.attempts)
            if let error = job.error { out.field("error", error) }
            if let status = job.responseStatus { out.field("responseStatus", status) }
            if let headers = job.responseHeaders { out.field("responseHeaders", headers) }
            out.field("createdDate", job.createdDate)
            if let resource = job.resource {
                out.key("resource")
                resource.write(to: &out)
            }
            out.raw("}")
        }
        out.raw("]}")
        return Data(out.bytes)
    }
}

extension LibraryEngine {
    /// A client's jobs an action applies to, with their resources, for a served library's remote clients.
    package func servedUploadJobs(client: String?, action: UploadJobAction) throws(LibraryError) -> [UploadJobWireRecord] {
        let jobs = try uploadJobs(client: client, action: action)
        let resources = try uploadJobResources(jobs)
        return zip(jobs, resources).map { UploadJobWireRecord($0, resource: $1) }
    }
}

extension RemoteLibrary {
    /// The client's jobs an action applies to, oldest first (`GET /v1/upload-jobs?action=`).
    package func uploadJobs(action: UploadJobAction) throws(LibraryError) -> [UploadJobRecord] {
        let name =
            switch action {
            case .process: "process"
            case .acknowledge: "acknowledge"
            case .retry: "retry"
            }
        let answer = try send(.GET, "/v1/upload-jobs", query: [URLQueryItem(name: "action", value: name)])
        do {
            let records = try JSONDecoder().decode([String: [UploadJobWireRecord]].self, from: answer.body)["jobs"] ?? []
            return records.compactMap(\.record)
        } catch {
            throw .networkError("GET /v1/upload-jobs answered something that is not upload jobs: \(error)")
        }
    }

    /// The client's background upload options (JSON), nil when it has not enabled background uploads
    /// (`GET /v1/upload-jobs/options`).
    package func uploadJobConfiguration() throws(LibraryError) -> String? {
        try json(.GET, "/v1/upload-jobs/options")["options"] as? String
    }

    /// Enables background uploads for the client with `options` (JSON), or disables them (nil)
    /// (`PUT /v1/upload-jobs/options`).
    package func setUploadJobConfiguration(_ options: String?) throws(LibraryError) {
        let body: Data
        do { body = try JSONText.data(["options": options.map { $0 as Any } ?? NSNull()]) } catch {
            throw .internalError("\(error)")
        }
        _ = try send(.PUT, "/v1/upload-jobs/options", body: body)
    }
}

extension ChangeRequestWire {
    /// An upload job's change as a request (`{"request": "uploadJob", "job", "action", …}`).
    static func encode(job identifier: String, _ change: UploadJobChange) -> [String: Any] {
        var request: [String: Any] = ["request": "uploadJob", "job": identifier]
        switch change {
        case .create(let asset, let resourceType, let destination, let jobType):
            request["action"] = "create"
            request["asset"] = asset
            request["resourceType"] = resourceType
            request["jobType"] = jobType
            if let destination { request["destination"] = encode(destination) }
        case .acknowledge: request["action"] = "acknowledge"
        case .retry(let destination):
            request["action"] = "retry"
            if let destination { request["destination"] = encode(destination) }
        case .cancel: request["action"] = "cancel"
        }
        return request
    }

    private static func encode(_ destination: UploadJobDestination) -> [String: Any] {
        ["url": destination.url, "method": destination.method, "headers": destination.headers, "timeout": destination.timeout]
    }

    /// A destination read back: a URL, a method, at most 100 header fields and a timeout, each of bounded size.
    static func destination(_ value: Any?, path: String) throws(LibraryError) -> UploadJobDestination {
        guard let object = value as? [String: Any] else { throw .invalidResource("\(path): destination must be an object") }
        if let unknown = object.keys.sorted().first(where: { !["url", "method", "headers", "timeout"].contains($0) }) {
            throw .invalidResource("\(path): \(unknown.prefix(40).debugDescription) is not a field of a destination")
        }
        guard let url = object["url"] as? String, url.utf8.count <= 8192 else {
            throw .invalidResource("\(path): destination.url must be a string of at most 8192 bytes")
        }
        guard let method = object["method"] as? String, (1...16).contains(method.utf8.count), method.allSatisfy({ $0.isLetter && $0.isASCII })
        else { throw .invalidResource("\(path): destination.method must be an HTTP method") }
        guard let list = object["headers"] as? [Any], list.count <= 100 else {
            throw .invalidResource("\(path): destination.headers must be a list of at most 100 [name, value] pairs")
        }
        var headers: [[String]] = []
        for item in list {
            guard let pair = item as? [String], pair.count == 2, pair.allSatisfy({ $0.utf8.count <= 8192 }) else {
                throw .invalidResource("\(path): destination.headers must be a list of [name, value] pairs of strings")
            }
            headers.append(pair)
        }
        guard let timeout = (object["timeout"] as? NSNumber)?.doubleValue, timeout.isFinite, timeout > 0, timeout <= 86_400 else {
            throw .invalidResource("\(path): destination.timeout must be a number of seconds, at most a day")
        }
        return UploadJobDestination(url: url, method: method, headers: headers, timeout: timeout)
    }
}
