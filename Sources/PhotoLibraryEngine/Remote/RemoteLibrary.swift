import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A library served by `photos serve`, reached over its HTTP API: the engine's operations answered by the server
/// instead of a store of this process (issue 27). The server runs them on its own engine with the access of the
/// token's client; this side keeps nothing but what it is answered.
///
/// Every request has a deadline, so a server that is down, slow or answers garbage gives a typed error
/// (``LibraryError/networkError(_:)``, or the server's own PhotoKit error) in bounded time, never a hang.
package final class RemoteLibrary: Sendable {
    /// The server's address (`http(s)://host:port`, with any path prefix, without a trailing slash).
    package let baseURL: String
    /// The bearer token every request carries.
    let token: String
    /// The client the token acts for, as the server says.
    package let clientIdentifier: String
    /// What the server answered about the client's access when the library was opened.
    package let session: Session

    /// The client's access as `GET /v1/session` says.
    package struct Session: Sendable, Equatable {
        /// `authorized`, `limited`, `denied`, `restricted` or `notDetermined`.
        package var status: String
        package var canRead: Bool
        package var canAdd: Bool
        package var canManageCollections: Bool
    }

    /// How long one request may take, from its start to its last byte (a page of ids of a million assets included):
    /// `$PHOTOS_REMOTE_TIMEOUT` seconds, 30 by default. Connecting may take 5 s of it, a silence between two reads 20.
    package static let timeout: Double = {
        let seconds = ProcessInfo.processInfo.environment["PHOTOS_REMOTE_TIMEOUT"].flatMap(Double.init) ?? 30
        return seconds.isFinite && seconds > 0 ? min(seconds, 86_400) : 30
    }()
    package static let requestDeadline: TimeAmount = .milliseconds(Int64(timeout * 1000))

    /// The event loops of this process's served libraries: the engine is synchronous and may be called on a thread of
    /// the process's shared event loop group, so requests run on loops of their own while the caller waits.
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// The HTTP client of every served library of the process (never shut down).
    static let http: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        let milliseconds = Int64(timeout * 1000)
        configuration.timeout = HTTPClient.Configuration.Timeout(
            connect: .milliseconds(min(5000, milliseconds)), read: .milliseconds(min(20_000, milliseconds)),
            write: .milliseconds(min(20_000, milliseconds)))
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.decompression = .disabled
        return HTTPClient(eventLoopGroup: group, configuration: configuration)
    }()

    /// Renderings of this server's assets for this client, on this machine's disk.
    let imageCacheStorage: RemoteImageCache

    /// The last batches of records loaded, whose assets' files are asked for together, and the files asked for and
    /// not asked about yet (see ``resources(assetID:)``).
    struct ResourcesAhead {
        /// Assets not asked about yet, a batch each (in the order loaded), the newest last; at most ``keptBatches``.
        var batches: [[Int64]] = []
        /// Files asked for ahead, in the order of the batch they came with.
        var fetched: [Int64: [ResourceRecord]] = [:]
        var fetchedOrder: [Int64] = []

        /// How many batches are remembered: a loop that loads a few pages of records at once (to read their
        /// identifiers) before it asks about the first still asks a batch at a time.
        static let keptBatches = 16

        mutating func expect(_ ids: [Int64]) {
            batches.append(ids)
            if batches.count > Self.keptBatches { batches.removeFirst(batches.count - Self.keptBatches) }
        }
    }
    let resourcesAhead = Mutex(ResourcesAhead())
    let resourceRequests = Atomic<Int>(0)
    /// How many times the files of assets were asked for (`POST /v1/assets/resources`): what batching saves.
    package var resourceRequestCount: Int { resourceRequests.load(ordering: .relaxed) }

    private init(baseURL: String, token: String, clientIdentifier: String, session: Session, cacheFolder: URL? = nil) {
        self.baseURL = baseURL
        self.token = token
        self.clientIdentifier = clientIdentifier
        self.session = session
        let megabytes = ProcessInfo.processInfo.environment["PHOTOS_REMOTE_CACHE_MB"].flatMap(Int64.init) ?? 256
        imageCacheStorage = RemoteImageCache(
            folder: cacheFolder ?? RemoteImageCache.folder(baseURL: baseURL, client: clientIdentifier), limit: max(1, megabytes) << 20)
    }

    /// Whether `url` names a served library: `http://`, `https://`, or `http+unix://` and the socket's path
    /// percent-encoded as its host (`http+unix://%2Frun%2Fphotos.sock`: a server on a Unix domain socket).
    package static func isServed(_ url: URL) -> Bool {
        let scheme = url.scheme?.lowercased()
        return scheme == "http" || scheme == "https" || scheme == "http+unix"
    }

    /// The token a served library is opened with when none is given: `$PHOTOS_TOKEN`, else the file
    /// `$PHOTOS_TOKEN_FILE` names — which only its owner may read (mode 0600 or stricter), as ssh demands of keys.
    package static func environmentToken() throws(LibraryError) -> String {
        let environment = ProcessInfo.processInfo.environment
        if let token = environment["PHOTOS_TOKEN"]?.trimmingCharacters(in: .whitespacesAndNewlines), !token.isEmpty { return token }
        guard let path = environment["PHOTOS_TOKEN_FILE"], !path.isEmpty else {
            throw .accessUserDenied("a served library needs a token: set PHOTOS_TOKEN, or PHOTOS_TOKEN_FILE to a file only you can read")
        }
        return try tokenFile(path)
    }

    /// The token in the file at `path`, refused when others may read the file.
    package static func tokenFile(_ path: String) throws(LibraryError) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .accessUserDenied("cannot read the token file \(path): \(String(cString: strerror(errno)))") }
        guard info.st_mode & 0o077 == 0 else {
            throw .accessUserDenied(
                "the token file \(path) may be read by others (mode \(String(info.st_mode & 0o777, radix: 8))): chmod 600 it")
        }
        guard let data = FileManager.default.contents(atPath: path), data.count <= 4096,
            let token = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines), !token.isEmpty
        else { throw .accessUserDenied("the token file \(path) holds no token") }
        return token
    }

    /// Opens the library `url` serves, checking the token with the server (`GET /v1/session`).
    /// - parameter cacheFolder: where this machine keeps the server's renderings (nil: the user's cache folder).
    package static func open(_ url: URL, token: String, cacheFolder: URL? = nil) throws(LibraryError) -> RemoteLibrary {
        guard isServed(url), url.host != nil else { throw .invalidResource("\(url) is not an http(s) or http+unix address of photos serve") }
        var base = url.absoluteString
        if let query = base.firstIndex(where: { $0 == "?" || $0 == "#" }) { base = String(base[..<query]) }
        while base.hasSuffix("/") { base.removeLast() }
        guard !token.isEmpty, token.allSatisfy({ $0.isASCII && !$0.isWhitespace && !$0.isNewline }) else {
            throw .accessUserDenied("the token is empty or not one line of ASCII")
        }
        let probe = RemoteLibrary(
            baseURL: base, token: token, clientIdentifier: "",
            session: Session(status: "notDetermined", canRead: false, canAdd: false, canManageCollections: false))
        let answer = try probe.json(.GET, "/v1/session")
        guard let client = answer["client"] as? String, let status = answer["status"] as? String else {
            throw .networkError("\(base) did not answer /v1/session as photos serve does")
        }
        let session = Session(
            status: status, canRead: answer["canRead"] as? Bool ?? false, canAdd: answer["canAdd"] as? Bool ?? false,
            canManageCollections: answer["canManageCollections"] as? Bool ?? false)
        return RemoteLibrary(baseURL: base, token: token, clientIdentifier: client, session: session, cacheFolder: cacheFolder)
    }

    // MARK: - Requests

    /// A response read whole.
    package struct Answer: Sendable {
        package var status: Int
        package var headers: HTTPHeaders
        package var body: Data
    }

    /// The URL of `path` (starting with `/`) with `query`.
    func url(_ path: String, query: [URLQueryItem] = []) -> String {
        guard !query.isEmpty else { return baseURL + path }
        var components = URLComponents()
        components.queryItems = query
        // `+` is a space to many servers' query parsers: encode it.
        let encoded = (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
        return baseURL + path + "?" + encoded
    }

    func makeRequest(_ method: HTTPMethod, _ path: String, query: [URLQueryItem] = [], body: Data? = nil) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url(path, query: query))
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Accept", value: "application/json")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        return request
    }

    /// Sends a request and reads its answer whole (at most `limit` bytes); a status of 400 or more throws the
    /// server's error.
    package func send(
        _ method: HTTPMethod, _ path: String, query: [URLQueryItem] = [], body: Data? = nil, limit: Int = 64 << 20, accept: String? = nil
    ) throws(LibraryError) -> Answer {
        let answer = try exchange(method, path, query: query, body: body, limit: limit, accept: accept)
        if answer.status >= 400 { throw Self.error(answer, path: path) }
        return answer
    }

    /// Sends a request and reads its answer whole (at most `limit` bytes), whatever its status, within `timeout`.
    func exchange(
        _ method: HTTPMethod, _ path: String, query: [URLQueryItem] = [], body: Data? = nil, limit: Int = 64 << 20,
        timeout: TimeAmount = requestDeadline, accept: String? = nil, contentType: String? = nil
    ) throws(LibraryError) -> Answer {
        var request = makeRequest(method, path, query: query, body: body)
        if let accept { request.headers.replaceOrAdd(name: "Accept", value: accept) }
        if let contentType, body != nil { request.headers.replaceOrAdd(name: "Content-Type", value: contentType) }
        let prepared = request
        return try Self.run(description: "\(method) \(path)") {
            let response = try await Self.http.execute(prepared, deadline: .now() + timeout)
            let body = try await response.body.collect(upTo: limit)
            return Answer(status: Int(response.status.code), headers: response.headers, body: Data(body.readableBytesView))
        }
    }

    /// Sends a request whose answer is a JSON object.
    package func json(_ method: HTTPMethod, _ path: String, query: [URLQueryItem] = [], body: Data? = nil) throws(LibraryError) -> [String: Any] {
        let answer = try send(method, path, query: query, body: body)
        guard let object = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] else {
            throw .networkError("\(baseURL)\(path) answered something that is not a JSON object (\(answer.body.count) bytes)")
        }
        return object
    }

    /// The error a failed answer carries: the server's PhotoKit error as it is (`{"error": {"domain", "code",
    /// "message"}}`), else one that says the status.
    static func error(_ answer: Answer, path: String) -> LibraryError {
        let object = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any]
        let error = object?["error"] as? [String: Any]
        let message = error?["message"] as? String ?? "HTTP \(answer.status)"
        if let code = error?["code"] as? Int, error?["domain"] as? String == "PHPhotosErrorDomain" {
            return LibraryError(code: code, message)
        }
        switch answer.status {
        case 401: return .accessUserDenied("the server refused the token: \(message)")
        case 403: return .accessRestricted(message)
        case 404: return .identifierNotFound(message)
        case 408, 429, 500...: return .networkError("the server answered \(path) with HTTP \(answer.status): \(message)")
        default: return .invalidResource("the server refused \(path) (HTTP \(answer.status)): \(message)")
        }
    }

    /// Runs `operation` on this process's served-library loop and blocks the calling thread until it ends; what it
    /// throws becomes a ``LibraryError`` (a connection that fails or a deadline that passes: `networkError`).
    static func run<T: Sendable>(description: String, _ operation: @escaping @Sendable () async throws -> T) throws(LibraryError) -> T {
        let loop = group.next()
        precondition(!loop.inEventLoop, "a served library's thread waits for its own request")
        let outcome = Outcome<T>()
        Task(executorPreference: LoopTaskExecutor(loop)) {
            do { outcome.complete(.success(try await operation())) } catch { outcome.complete(.failure(error)) }
        }
        outcome.done.wait()
        switch outcome.result! {
        case .success(let value): return value
        case .failure(let error as LibraryError): throw error
        case .failure(let error): throw .networkError("\(description) failed: \(error)")
        }
    }
}

extension RemoteLibrary {
    /// The client's access as the server answered it when the library was opened (the server checks it again at
    /// every request: this only spares requests that would be refused).
    package var accessContext: AccessContext {
        let grant: ClientGrant? =
            switch session.status {
            case "authorized": .readWrite
            case "limited": .limited
            case "denied": .denied
            case "restricted": .restricted
            default: session.canAdd ? .addOnly : nil
            }
        return AccessContext(clientID: clientIdentifier, grant: grant, libraryIsReadOnly: false)
    }
}
