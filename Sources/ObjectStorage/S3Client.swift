import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A client of one bucket of an S3-compatible object store (AWS S3, SeaweedFS, MinIO, Ceph RGW …), path-style
/// (`endpoint/bucket/key`), every request signed with SigV4 and retried with backoff when the store is busy or the
/// connection fails.
///
/// Bodies are signed with their SHA-256 (`x-amz-content-sha256`), so the store refuses one that arrives changed.
public struct S3Client: Sendable {
    public let endpoint: URL
    public let bucket: String
    public let signer: SigV4Signer
    public var retry = RetryPolicy()
    /// How long one request may take, its body included.
    public var timeout: TimeAmount = .seconds(60)
    let http: HTTPClient

    /// The process's HTTP client for object stores: a connection that cannot be made fails at once, or after 5 s
    /// without an answer; a request whose bytes stop being taken fails after 10 s, and an answer that stops coming
    /// after 20 s — so a store cut off the network (no refusal, only silence, on a connection kept alive) is an error
    /// in seconds, not at the request's deadline. Retrying is the ``RetryPolicy``'s alone
    /// (AsyncHTTPClient's own retries of connecting would keep a request waiting until its deadline). Lives as long
    /// as the process.
    public static let sharedHTTPClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: httpConfiguration)

    /// The configuration of ``sharedHTTPClient``, for a client of the same behaviour on other event loops.
    public static var httpConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(5), read: .seconds(20), write: .seconds(10))
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    public init(endpoint: URL, bucket: String, signer: SigV4Signer, http: HTTPClient = S3Client.sharedHTTPClient) {
        self.endpoint = endpoint
        self.bucket = bucket
        self.signer = signer
        self.http = http
    }

    /// When and how often a request is tried again: on a lost connection (``connectionAttempts``) and on the answers
    /// that say "later" (500, 502, 503, 504, and 429 / `SlowDown`), after a delay that doubles from `initialDelay`,
    /// with jitter.
    public struct RetryPolicy: Sendable {
        public var attempts = 4
        /// At most this many attempts when no answer came (refused, timed out, lost): a store out of reach rarely
        /// comes back within a request's retries, and its caller should hear so in seconds (a server answers 503).
        public var connectionAttempts = 2
        public var initialDelay: Duration = .milliseconds(100)
        public init() {}

        static let retriedStatuses: Set<UInt> = [429, 500, 502, 503, 504]
    }

    /// What is known of a stored object.
    public struct ObjectInfo: Sendable, Equatable {
        public var key: String
        public var size: Int64
        public var etag: String?
        /// When it was stored (`LastModified` in a listing, `Last-Modified` of a `HEAD`).
        public var lastModified: Date?

        public init(key: String, size: Int64, etag: String? = nil, lastModified: Date? = nil) {
            self.key = key
            self.size = size
            self.etag = etag
            self.lastModified = lastModified
        }
    }

    /// How a conditional put ended.
    public enum PutOutcome: Sendable, Equatable {
        case stored
        /// `If-None-Match: *` and the key was taken: nothing written.
        case alreadyThere
    }

    // MARK: Buckets and objects

    /// Makes the bucket; one that exists and is this account's is fine.
    public func createBucket() async throws {
        let response = try await send("PUT", key: nil)
        guard response.status == 200 || response.error?.code == "BucketAlreadyOwnedByYou" else { throw response.failure() }
    }

    /// Stores `body` under `key`. With `ifNoneMatch`, only if the key is free (`If-None-Match: *`): an object that is
    /// there stays as it is and the answer is ``PutOutcome/alreadyThere``. With `sha256` (the digest the bytes must
    /// have, lowercase hex), the store checks it: the request is signed with it as the payload's hash, and bytes that
    /// differ are refused (`XAmzContentSHA256Mismatch`), never stored.
    @discardableResult
    public func put(key: String, body: Data, sha256: String? = nil, contentType: String? = nil, ifNoneMatch: Bool = false) async throws
        -> PutOutcome
    {
        var headers: [(name: String, value: String)] = []
        if let contentType { headers.append(("Content-Type", contentType)) }
        if ifNoneMatch { headers.append(("If-None-Match", "*")) }
        let response = try await send("PUT", key: key, headers: headers, body: body, payloadHash: sha256)
        if response.status == 412 || response.error?.code == "PreconditionFailed" { return .alreadyThere }
        guard response.status == 200 else { throw response.failure() }
        return .stored
    }

    /// The object's bytes, or the bytes of `range` (inclusive, as HTTP's `Range`) of them.
    public func get(key: String, range: ClosedRange<Int64>? = nil) async throws -> Data {
        let headers = range.map { [(name: "Range", value: "bytes=\($0.lowerBound)-\($0.upperBound)")] } ?? []
        let response = try await send("GET", key: key, headers: headers)
        guard response.status == (range == nil ? 200 : 206) else { throw response.failure() }
        return response.body
    }

    /// Writes the object to a new file at `file`, a piece at a time as it arrives (never the whole object in memory),
    /// and returns its size. With `sha256`, the bytes are hashed on the way and a file that is not those bytes is
    /// removed (``S3Error`` `BadDigest`). `progress` is told the bytes received and the total (when the store said)
    /// as pieces arrive, at least every 1 % and at the end; returning false stops the download (`CancellationError`).
    /// A failure leaves no file.
    @discardableResult
    public func download(
        key: String, to file: URL, sha256: String? = nil, progress: (@Sendable (_ done: Int64, _ total: Int64?) -> Bool)? = nil
    ) async throws -> Int64 {
        let url = objectURL(key: key, query: [])
        var attempt = 0
        while true {
            attempt += 1
            var request = HTTPClientRequest(url: url.absoluteString)
            for (name, value) in signer.signingHeaders(method: "GET", url: url, headers: [], payloadHash: SigV4Signer.emptyPayloadHash, date: Date())
            {
                request.headers.add(name: name, value: value)
            }
            let response: HTTPClientResponse
            do {
                response = try await http.execute(request, timeout: timeout)
            } catch {
                guard attempt < min(retry.attempts, retry.connectionAttempts) else {
                    throw S3Error(status: 0, code: "Unreachable", message: "\(url.host ?? ""): \(error)")
                }
                try await Task.sleep(for: delay(attempt))
                continue
            }
            guard response.status.code == 200 else {
                let buffer = try await response.body.collect(upTo: 1 << 20)
                let answer = Answer(status: response.status.code, headers: response.headers, body: Data(buffer.readableBytesView))
                if RetryPolicy.retriedStatuses.contains(answer.status), attempt < retry.attempts {
                    try await Task.sleep(for: delay(attempt))
                    continue
                }
                throw answer.failure()
            }
            guard FileManager.default.createFile(atPath: file.path, contents: nil), let handle = try? FileHandle(forWritingTo: file) else {
                throw S3Error(status: 0, code: "LocalFile", message: "cannot create \(file.path)")
            }
            do {
                defer { try? handle.close() }
                var hasher = SHA256()
                var size: Int64 = 0
                let total = response.headers.first(name: "Content-Length").flatMap { Int64($0) }
                let step = max(1, (total ?? 0) / 100)
                var told: Int64 = -1
                if let progress, !progress(0, total) { throw CancellationError() }
                // Written a MiB at a time on NIO's blocking thread pool, never on the event loop that receives it.
                var pending = Data()
                func flush() async throws {
                    guard !pending.isEmpty else { return }
                    let bytes = pending
                    pending = Data()
                    try await NIOThreadPool.singleton.runIfActive { try handle.write(contentsOf: bytes) }
                }
                for try await buffer in response.body {
                    let piece = Data(buffer.readableBytesView)
                    hasher.update(data: piece)
                    pending.append(piece)
                    if pending.count >= 1 << 20 { try await flush() }
                    size += Int64(buffer.readableBytes)
                    if let progress, size - told >= step || size == total {
                        told = size
                        if !progress(size, total) { throw CancellationError() }
                    }
                }
                try await flush()
                if let sha256, SigV4Signer.hex(hasher.finalize()) != sha256 {
                    throw S3Error(status: 0, code: "BadDigest", message: "\(key) is not the bytes of SHA-256 \(sha256)")
                }
                return size
            } catch {
                try? FileManager.default.removeItem(at: file)
                throw error
            }
        }
    }

    /// The object's size and ETag, or nil when there is none.
    public func head(key: String) async throws -> ObjectInfo? {
        let response = try await send("HEAD", key: key)
        if response.status == 404 { return nil }
        guard response.status == 200 else { throw response.failure() }
        return ObjectInfo(
            key: key, size: response.headers.first(name: "Content-Length").flatMap { Int64($0) } ?? 0,
            etag: response.headers.first(name: "ETag"), lastModified: response.headers.first(name: "Last-Modified").flatMap(Self.httpDate))
    }

    /// Removes the object (one that is not there is fine, as S3 has it).
    public func delete(key: String) async throws {
        let response = try await send("DELETE", key: key)
        guard response.status == 204 || response.status == 200 || response.status == 404 else { throw response.failure() }
    }

    /// Removes the bucket, which must be empty.
    public func deleteBucket() async throws {
        let response = try await send("DELETE", key: nil)
        guard response.status == 204 || response.status == 200 else { throw response.failure() }
    }

    /// Every object whose key starts with `prefix`, in key order (ListObjectsV2, `pageSize` keys a request).
    public func list(prefix: String, pageSize: Int = 1000) async throws -> [ObjectInfo] {
        var objects: [ObjectInfo] = []
        var continuation: String?
        repeat {
            var query = [("list-type", "2"), ("prefix", prefix), ("max-keys", String(pageSize))]
            if let continuation { query.append(("continuation-token", continuation)) }
            let response = try await send("GET", key: nil, query: query)
            guard response.status == 200 else { throw response.failure() }
            let xml = String(decoding: response.body, as: UTF8.self)
            for entry in XMLText.elements("Contents", in: xml) {
                guard let key = XMLText.elements("Key", in: entry).first else { continue }
                objects.append(
                    ObjectInfo(
                        key: key, size: XMLText.elements("Size", in: entry).first.flatMap { Int64($0) } ?? 0,
                        etag: XMLText.elements("ETag", in: entry).first,
                        lastModified: XMLText.elements("LastModified", in: entry).first.flatMap(Self.isoDate)))
            }
            continuation = XMLText.elements("IsTruncated", in: xml).first == "true" ? XMLText.elements("NextContinuationToken", in: xml).first : nil
        } while continuation != nil
        return objects
    }

    /// A URL that lets anyone `GET` the object for `expires` seconds, without credentials.
    public func presignedURL(key: String, expires: Int, date: Date = Date()) -> URL {
        signer.presignedURL(url: objectURL(key: key, query: []), expires: expires, date: date)
    }

    // MARK: Multipart

    /// Stores the file at `file` under `key` in parts of `partSize` bytes (at least 5 MiB, S3's smallest part but the
    /// last), read one at a time (on NIO's blocking thread pool, never on the event loop that sends them: a disk that is
    /// slow stalls no other request): create, upload each part, complete. A failure aborts the upload, so that the
    /// store keeps no parts. With `sha256`, the parts read are hashed on the way and the upload is completed only if
    /// they are those bytes (else aborted, ``S3Error`` `BadDigest`): each part is checked by the store as it is sent.
    public func putMultipart(key: String, file: URL, sha256: String? = nil, partSize: Int = 8 << 20) async throws {
        precondition(partSize >= 5 << 20, "S3 parts other than the last are at least 5 MiB")
        let created = try await send("POST", key: key, query: [("uploads", "")])
        guard created.status == 200, let uploadID = XMLText.elements("UploadId", in: String(decoding: created.body, as: UTF8.self)).first
        else { throw created.failure() }
        do {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            var etags: [String] = []
            var hasher = SHA256()
            while true {
                let part = try await NIOThreadPool.singleton.runIfActive { try handle.read(upToCount: partSize) ?? Data() }
                if part.isEmpty, !etags.isEmpty { break }
                hasher.update(data: part)
                let response = try await send(
                    "PUT", key: key, query: [("partNumber", String(etags.count + 1)), ("uploadId", uploadID)], body: part)
                guard response.status == 200, let etag = response.headers.first(name: "ETag") else { throw response.failure() }
                etags.append(etag)
                if part.count < partSize { break }
            }
            if let sha256, SigV4Signer.hex(hasher.finalize()) != sha256 {
                throw S3Error(status: 0, code: "BadDigest", message: "\(file.lastPathComponent) is not the bytes of SHA-256 \(sha256)")
            }
            let parts = etags.enumerated().map { "<Part><PartNumber>\($0.offset + 1)</PartNumber><ETag>\(XMLText.escape($0.element))</ETag></Part>" }
            let body = Data("<CompleteMultipartUpload>\(parts.joined())</CompleteMultipartUpload>".utf8)
            let completed = try await send("POST", key: key, query: [("uploadId", uploadID)], body: body)
            // S3 may answer 200 with an error in the body when completing.
            guard completed.status == 200, XMLText.elements("Error", in: String(decoding: completed.body, as: UTF8.self)).isEmpty else {
                throw completed.failure()
            }
        } catch {
            _ = try? await send("DELETE", key: key, query: [("uploadId", uploadID)])
            throw error
        }
    }

    /// An upload in parts begun and not completed nor aborted.
    public struct MultipartUpload: Sendable, Equatable {
        public var key: String
        public var uploadID: String
        public var initiated: Date?
    }

    /// The uploads in parts under `prefix` that were begun and neither completed nor aborted (ListMultipartUploads).
    public func multipartUploads(prefix: String) async throws -> [MultipartUpload] {
        var uploads: [MultipartUpload] = []
        var markers: [(String, String)] = []
        while true {
            let response = try await send("GET", key: nil, query: [("uploads", ""), ("prefix", prefix)] + markers)
            guard response.status == 200 else { throw response.failure() }
            let xml = String(decoding: response.body, as: UTF8.self)
            for entry in XMLText.elements("Upload", in: xml) {
                guard let key = XMLText.elements("Key", in: entry).first, let id = XMLText.elements("UploadId", in: entry).first else { continue }
                uploads.append(
                    MultipartUpload(key: key, uploadID: id, initiated: XMLText.elements("Initiated", in: entry).first.flatMap(Self.isoDate)))
            }
            guard XMLText.elements("IsTruncated", in: xml).first == "true", let key = XMLText.elements("NextKeyMarker", in: xml).first,
                let id = XMLText.elements("NextUploadIdMarker", in: xml).first
            else { break }
            markers = [("key-marker", key), ("upload-id-marker", id)]
        }
        return uploads
    }

    /// Ends an upload in parts and removes its parts.
    public func abortMultipart(key: String, uploadID: String) async throws {
        let response = try await send("DELETE", key: key, query: [("uploadId", uploadID)])
        guard response.status == 204 || response.status == 200 || response.status == 404 else { throw response.failure() }
    }

    // MARK: Requests

    /// An answer: its status, headers, body, and the S3 error it carries.
    struct Answer {
        var status: UInt
        var headers: HTTPHeaders
        var body: Data
        var error: S3Error? {
            guard status >= 300 || body.starts(with: Data("<?xml".utf8)) else { return nil }
            let xml = String(decoding: body, as: UTF8.self)
            guard status >= 300 || !XMLText.elements("Error", in: xml).isEmpty else { return nil }
            return S3Error(
                status: status, code: XMLText.elements("Code", in: xml).first ?? "HTTP\(status)",
                message: XMLText.elements("Message", in: xml).first ?? "")
        }
        func failure() -> S3Error { error ?? S3Error(status: status, code: "HTTP\(status)", message: "unexpected answer") }
    }

    func objectURL(key: String?, query: [(String, String)]) -> URL {
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) ?? URLComponents()
        let base = components.percentEncodedPath.hasSuffix("/") ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        components.percentEncodedPath =
            base + "/" + SigV4Signer.encode(bucket, keepingSlashes: false)
            + (key.map { "/" + SigV4Signer.encode($0, keepingSlashes: true) } ?? "")
        components.percentEncodedQuery =
            query.isEmpty
            ? nil
            : query.map { "\(SigV4Signer.encode($0.0, keepingSlashes: false))=\(SigV4Signer.encode($0.1, keepingSlashes: false))" }.joined(
                separator: "&")
        return components.url ?? endpoint
    }

    func send(
        _ method: String, key: String?, query: [(String, String)] = [], headers: [(name: String, value: String)] = [], body: Data = Data(),
        payloadHash: String? = nil
    ) async throws -> Answer {
        let url = objectURL(key: key, query: query)
        let payloadHash = payloadHash ?? (body.isEmpty ? SigV4Signer.emptyPayloadHash : SigV4Signer.hex(SHA256.hash(data: body)))
        var attempt = 0
        while true {
            attempt += 1
            var request = HTTPClientRequest(url: url.absoluteString)
            request.method = HTTPMethod(rawValue: method)
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            for (name, value) in signer.signingHeaders(method: method, url: url, headers: headers, payloadHash: payloadHash, date: Date()) {
                request.headers.add(name: name, value: value)
            }
            if !body.isEmpty || method == "PUT" || method == "POST" {
                request.body = .bytes(ByteBuffer(bytes: body))
            }
            let answer: Answer
            do {
                let response = try await http.execute(request, timeout: timeout)
                let buffer = try await response.body.collect(upTo: method == "HEAD" ? 0 : Int.max)
                answer = Answer(
                    status: response.status.code, headers: response.headers, body: Data(buffer.readableBytesView))
            } catch {
                guard attempt < min(retry.attempts, retry.connectionAttempts) else {
                    throw S3Error(status: 0, code: "Unreachable", message: "\(url.host ?? ""): \(error)")
                }
                try await Task.sleep(for: delay(attempt))
                continue
            }
            if RetryPolicy.retriedStatuses.contains(answer.status), attempt < retry.attempts {
                try await Task.sleep(for: delay(attempt))
                continue
            }
            return answer
        }
    }

    /// A listing's `LastModified` (ISO 8601, with or without fractional seconds).
    static func isoDate(_ text: String) -> Date? {
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text) ?? ISO8601DateFormatter().date(from: text)
    }

    /// An HTTP date (`Last-Modified`: `Wed, 21 Oct 2015 07:28:00 GMT`).
    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }

    /// The wait before attempt `attempt + 1`: the initial delay doubled per attempt, times 0.5–1.5.
    func delay(_ attempt: Int) -> Duration {
        retry.initialDelay * (1 << (attempt - 1)) * Double.random(in: 0.5...1.5)
    }
}

/// An error the object store answered (its S3 code and message), or `Unreachable` when no answer came.
public struct S3Error: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: UInt
    public var code: String
    public var message: String
    public var description: String { "\(code) (HTTP \(status)): \(message)" }
}

/// The little XML that S3 answers with: the texts of elements by name.
enum XMLText {
    /// The contents of every `<name>…</name>` in `xml`, entities decoded (elements of that name are not nested).
    static func elements(_ name: String, in xml: String) -> [String] {
        var values: [String] = []
        var rest = xml[...]
        while let open = rest.range(of: "<\(name)>") {
            guard let close = rest[open.upperBound...].range(of: "</\(name)>") else { break }
            values.append(unescape(String(rest[open.upperBound..<close.lowerBound])))
            rest = rest[close.upperBound...]
        }
        return values
    }

    static func unescape(_ text: String) -> String {
        guard text.contains("&") else { return text }
        return text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;")
    }
}
