import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import OpenPhotos
import ServiceLifecycle
import UnixSignals

/// The photo library over HTTP: the `/v1` API, the change feed and the web gallery of `photos serve`.
///
/// ```swift
/// let server = try PhotosServer(libraryURL: url, configuration: .init(host: "127.0.0.1", port: 8080))
/// try await server.run()   // until SIGTERM or SIGINT; in-flight requests finish
/// ```
///
/// Every request but `/healthz`, `/openapi.json` and the gallery's files carries a bearer token issued by the
/// library's owner (``OpenPhotos/PHPhotoLibrary/createAccessToken(for:)``, `photos token create`). The token acts
/// for its client with that client's access level at the time of the request, exactly as a local process with
/// `PHOTOS_CLIENT_ID` would; the routes call OpenPhotos as such a client does.
public struct PhotosServer: Sendable {
    /// Where and how the server listens.
    public struct Configuration: Sendable {
        /// The address to bind (loopback by default: expose the library on purpose, not by accident).
        public var host: String
        /// The port to listen on; 0 picks a free one (the `onServerRunning` callback of ``run(onServerRunning:)`` tells it).
        public var port: Int
        /// Origins allowed to call the API from a browser page of another origin; empty (the default): CORS off.
        public var allowedOrigins: [String]
        /// The largest upload accepted, in bytes.
        public var maximumUploadSize: Int
        /// Whether `/` serves the web gallery.
        public var servesGallery: Bool
        /// The most connections open at once; one more is answered 503 with `Retry-After` and closed. Never more than
        /// half the process's descriptor limit (raised to its hard limit at start) less 64.
        public var maximumConnections: Int
        /// How long a request's head may take to arrive whole, from the connection's start or the end of the answer
        /// before it: a connection that says nothing, or trickles its head, is closed then.
        public var requestHeadTimeout: Duration
        /// How long a request body may stop arriving before its connection is closed.
        public var idleTimeout: Duration
        /// The most bytes of uploads one client may have waiting to be imported (`POST /v1/assets`); one more byte is
        /// refused with 413. Uploads not imported within an hour are removed.
        public var maximumPendingUploadBytes: Int
        /// The most uploads one client may have waiting to be imported.
        public var maximumPendingUploads: Int
        /// How long requests in flight may take to finish after SIGTERM or SIGINT before they are cancelled.
        public var shutdownTimeout: Duration
        /// Addresses of reverse proxies in front of the server (nginx, Caddy): for requests from them, the request log
        /// names the client by the last address of `X-Forwarded-For`. Empty: the connection's peer is the client.
        public var trustedProxies: [String]
        /// Whether the server also does the library's background work (the renderings that commits queue in a
        /// library whose files are in object storage: ``RenderingWorker``). Off where `photos worker` processes do it.
        public var runsBackgroundWork: Bool
        /// Whether a library that does not exist is created (false: the server refuses to start, so that a mistyped
        /// path is not served as a new, empty library).
        public var createsLibrary: Bool
        /// A Unix domain socket to listen on instead of ``host`` and ``port`` (a host serving its library to a
        /// sandboxed program of its own, which has no network: the socket's folder is all it shares with it).
        public var unixSocket: String?
        /// Tokens of this server's life only, each acting for a client (secret → client identifier), besides the
        /// library's: a host lends one to a program it starts, and no trace of it stays in the library.
        public var sessionTokens: [String: String]

        /// A configuration; the defaults serve the gallery on loopback port 8080 without CORS.
        public init(
            host: String = "127.0.0.1", port: Int = 8080, allowedOrigins: [String] = [], maximumUploadSize: Int = 4 << 30,
            servesGallery: Bool = true, maximumConnections: Int = 1024, requestHeadTimeout: Duration = .seconds(30),
            idleTimeout: Duration = .seconds(60), createsLibrary: Bool = false, trustedProxies: [String] = [],
            maximumPendingUploadBytes: Int = 16 << 30, maximumPendingUploads: Int = 1000, shutdownTimeout: Duration = .seconds(10),
            runsBackgroundWork: Bool = true, unixSocket: String? = nil, sessionTokens: [String: String] = [:]
        ) {
            self.unixSocket = unixSocket
            self.sessionTokens = sessionTokens
            self.runsBackgroundWork = runsBackgroundWork
            self.shutdownTimeout = shutdownTimeout
            self.maximumPendingUploadBytes = maximumPendingUploadBytes
            self.maximumPendingUploads = maximumPendingUploads
            self.createsLibrary = createsLibrary
            self.trustedProxies = trustedProxies
            self.host = host
            self.port = port
            self.allowedOrigins = allowedOrigins
            self.maximumUploadSize = maximumUploadSize
            self.servesGallery = servesGallery
            self.maximumConnections = maximumConnections
            self.requestHeadTimeout = requestHeadTimeout
            self.idleTimeout = idleTimeout
        }
    }

    /// Where and how this server listens.
    public let configuration: Configuration
    /// The `Server` header.
    static let serverName = "OpenPhotoKit"
    let services: ServerServices
    let logger: Logger

    /// A server over the library at `libraryURL` (opened as its owner, to check tokens and read the history; each
    /// request acts as its token's client).
    /// - throws: ``OpenPhotos/PHPhotosError`` when the library cannot be opened.
    public init(libraryURL: URL, configuration: Configuration = Configuration(), logger: Logger = Logger(label: "photos.serve")) throws {
        // Serving a library that is not there would make an empty one where a typo points: only on request.
        if !configuration.createsLibrary, try !LibraryStorage.libraryExists(at: libraryURL) {
            var address = URLComponents(url: libraryURL, resolvingAgainstBaseURL: false)
            address?.password = nil
            let shown = libraryURL.isFileURL ? libraryURL.path : (address?.string ?? "the library's address")
            throw PHPhotosError(
                .libraryVolumeOffline,
                userInfo: [NSLocalizedDescriptionKey: "no photo library at \(shown) (to serve a new, empty one, ask for it to be created)"])
        }
        self.configuration = configuration
        self.logger = logger
        self.services = try ServerServices(libraryURL: libraryURL, configuration: configuration, logger: logger)
    }

    /// The routes, for tests (`app.test(.router)`) and for embedding in another Hummingbird application.
    public func makeRouter() -> Router<PhotosRequestContext> {
        // HEAD is answered for every GET route (the GET's headers, no body).
        let router = Router(context: PhotosRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: RequestLogMiddleware(services: services, trustedProxies: Set(configuration.trustedProxies)))
        // Outside the error middleware: error answers carry CORS headers too (a page must be able to read them).
        if !configuration.allowedOrigins.isEmpty {
            router.add(middleware: CrossOriginMiddleware(allowedOrigins: Set(configuration.allowedOrigins)))
        }
        router.add(middleware: ErrorMiddleware())
        let methods = MethodNotAllowedMiddleware.Table()
        router.add(middleware: MethodNotAllowedMiddleware(table: methods))
        router.add(middleware: AuthenticationMiddleware(services: services))
        SystemRoutes(services: services).register(on: router)
        AssetRoutes(services: services).register(on: router.group("v1"))
        RemoteLibraryRoutes(services: services).register(on: router.group("v1"))
        UploadRoutes(services: services).register(on: router.group("v1"))
        BackupRoutes(services: services).register(on: router.group("v1"))
        UploadJobRoutes(services: services).register(on: router.group("v1"))
        EditRoutes(services: services).register(on: router.group("v1"))
        ImageRoutes(services: services).register(on: router.group("v1"))
        CollectionRoutes(services: services).register(on: router.group("v1"))
        ChangeRoutes(services: services).register(on: router.group("v1"))
        if configuration.servesGallery { GalleryRoutes().register(on: router) }
        methods.fill(router.routes.map { (path: $0.path.description, method: $0.method.rawValue) })
        return router
    }

    /// The application: the router on the configured address, with graceful shutdown.
    public func makeApplication(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let services = self.services
        let logger = self.logger
        let counter = ConnectionGuard.Counter(
            maximum: max(1, min(configuration.maximumConnections, ConnectionGuard.connectionsTheDescriptorLimitAllows())))
        let headTimeout = TimeAmount.nanoseconds(Self.nanoseconds(configuration.requestHeadTimeout))
        return Application(
            router: makeRouter(),
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [
                        ConnectionGuard(counter: counter, headTimeout: headTimeout, logger: logger),
                        CachedImageHandler(services: services, serverName: Self.serverName),
                    ],
                    idleTimeout: .nanoseconds(Self.nanoseconds(configuration.idleTimeout)))),
            configuration: .init(
                address: configuration.unixSocket.map { .unixDomainSocket(path: $0) } ?? .hostname(configuration.host, port: configuration.port),
                serverName: Self.serverName),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Makes the server's event loops run this process's Swift concurrency too, so that a request's handler runs on
    /// the thread that read it instead of hopping to the cooperative pool and back (Vapor's entry point does the
    /// same). Call it first thing in a process that exists to serve — before any `Task` or `await` — or it does
    /// nothing and returns false. Blocking work never runs on these threads: the routes run it on dispatch queues.
    /// - parameter threads: how many event loops (threads) serve; nil: one per core.
    @discardableResult
    public static func installEventLoopsAsGlobalExecutor(threads: Int? = nil) -> Bool {
        if let threads { NIOSingletons.groupLoopCountSuggestion = max(1, threads) }
        return NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }

    /// Serves until SIGTERM or SIGINT: then stops accepting, lets in-flight requests finish for at most
    /// ``Configuration/shutdownTimeout`` and cancels what is left (an upload cut short is discarded and the client
    /// retries; writes are atomic transactions of the library, so nothing is half-written either way), and returns.
    /// A slow upload in flight kept the server from exiting after SIGTERM until it ended.
    public func run(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: makeApplication(onServerRunning: onServerRunning))]
        if configuration.runsBackgroundWork, let worker = try? RenderingWorker(library: self.services.owner, logger: logger) {
            services.append(.init(service: BackgroundWorkService(worker: worker)))
        }
        var group = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        group.maximumGracefulShutdownDuration = configuration.shutdownTimeout
        defer { self.services.uploads.close() }
        try await ServiceGroup(configuration: group).run()
    }
}

/// The server's own worker, as a service of its group: stops at graceful shutdown (an item it was doing is left to
/// its lease).
struct BackgroundWorkService: Service {
    let worker: RenderingWorker

    func run() async throws {
        await cancelWhenGracefulShutdown { await worker.run() }
    }
}
