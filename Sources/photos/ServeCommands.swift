import ArgumentParser
import CommandLineSupport
import Foundation
import Logging
import OpenPhotos
import PhotosServer
import Synchronization

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the library over HTTP: the /v1 API, the change feed and the web gallery.",
        discussion: """
            Binds to loopback unless --host says otherwise. Requests to /v1 carry a bearer token from
            `photos token create CLIENT`, which acts with that client's access level (`photos grant CLIENT LEVEL`).
            The API is described at /openapi.json; /healthz answers without a token. SIGTERM or Ctrl-C stops
            accepting connections, lets requests in flight finish and exits 0. One log line per request goes to
            standard error, with its request id (also sent back as X-Request-ID).
            """)
    @OptionGroup var global: GlobalOptions
    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(help: "The port to listen on (0: any free port, printed at start).") var port = 8080
    @Option(name: .customLong("allow-origin"), help: "Allow browser pages of this origin to call the API (CORS; repeatable).")
    var allowedOrigins: [String] = []
    @Flag(name: .customLong("no-gallery"), help: "Serve the API only, not the web gallery.") var noGallery = false
    @Flag(help: "Create the library when there is none at the path (otherwise a missing library is an error).") var create = false
    @Option(
        name: .customLong("trusted-proxy"),
        help: "A reverse proxy's address whose X-Forwarded-For names the client in the request log (repeatable).")
    var trustedProxies: [String] = []
    @Option(help: "How many threads serve requests (default: one per core).") var threads: Int?
    @Option(name: .customLong("max-connections"), help: "The most connections open at once; more are answered 503.")
    var maximumConnections = 1024
    @Option(name: .customLong("header-timeout"), help: "Seconds a request's head may take to arrive (also the keep-alive idle time).")
    var headerTimeout = 30
    @Option(name: .customLong("idle-timeout"), help: "Seconds a request body may stop arriving before its connection is closed.")
    var idleTimeout = 60
    @Option(name: .customLong("shutdown-timeout"), help: "Seconds requests in flight may take to finish after SIGTERM before they are cut.")
    var shutdownTimeout = 10
    @Flag(
        name: .customLong("no-background-work"),
        help: "Leave the library's background work (renderings, in object storage) to `photos worker` processes.")
    var noBackgroundWork = false
    @Option(
        name: .customLong("log-level"),
        help: "The least severe log lines written: trace, debug, info (one line per request), notice, warning, error, critical.")
    var logLevel: String?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port is from 0 to 65535") }
        if let threads, !(1...1024).contains(threads) { throw ValidationError("--threads is from 1 to 1024") }
        guard (1...1_000_000).contains(maximumConnections) else { throw ValidationError("--max-connections is from 1 to 1000000") }
        guard (1...3600).contains(headerTimeout), (1...3600).contains(idleTimeout), (0...3600).contains(shutdownTimeout) else {
            throw ValidationError("--header-timeout, --idle-timeout and --shutdown-timeout are from 1 (0) to 3600 seconds")
        }
        if let logLevel, Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError("--log-level is one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    func run() throws {
        // Ctrl-C and SIGTERM are the server's graceful shutdown, not the command line's immediate exit.
        Interruption.uninstall()
        let sharedThreads = PhotosServer.installEventLoopsAsGlobalExecutor(threads: threads)
        var logger = Logger(label: "photos.serve")
        logger.logLevel = logLevel.flatMap(Logger.Level.init(rawValue:)) ?? (global.verbose ? .debug : .info)
        if !sharedThreads { logger.debug("Swift concurrency was in use before the server started: handlers run on its own threads") }
        let configuration = PhotosServer.Configuration(
            host: host, port: port, allowedOrigins: allowedOrigins, servesGallery: !noGallery, maximumConnections: maximumConnections,
            requestHeadTimeout: .seconds(headerTimeout), idleTimeout: .seconds(idleTimeout), createsLibrary: create,
            trustedProxies: trustedProxies, shutdownTimeout: .seconds(shutdownTimeout), runsBackgroundWork: !noBackgroundWork)
        let server: PhotosServer
        do { server = try PhotosServer(libraryURL: global.libraryURL, configuration: configuration, logger: logger) } catch {
            throw CLIError(describe(error))
        }
        let json = global.json
        // An IPv6 address in a URL goes in brackets (http://[::1]:8080/).
        let host = self.host
        let urlHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        // A server library's address without its password, if one was given.
        var shown = URLComponents(url: global.libraryURL, resolvingAgainstBaseURL: false)
        shown?.password = nil
        let path = global.libraryURL.isFileURL ? global.libraryURL.path : (shown?.string ?? "the library")
        do {
            try waitFor {
                try await server.run { port in
                    let line =
                        json
                        ? "{\"host\":\"\(host)\",\"port\":\(port),\"url\":\"http://\(urlHost):\(port)/\"}\n"
                        : "serving \(path) at http://\(urlHost):\(port)/\n"
                    FileHandle.standardOutput.write(Data(line.utf8))
                }
            }
        } catch {
            throw CLIError("the server stopped: \(error)")
        }
    }
}

struct Token: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Issue, list and revoke the bearer tokens of `photos serve`.",
        discussion: """
            A token acts for a client with the access level `photos grant` gives that client, checked at every
            request: changing the grant applies at once. The library keeps only a hash; the token is printed once.
            """,
        subcommands: [TokenCreate.self, TokenList.self, TokenRevoke.self])
}

struct TokenCreate: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "create", abstract: "Issue a token for a client and print it (once).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The client the token acts for (its access level comes from photos grant).") var client: String

    func run() throws {
        let library = try global.open()
        let (token, secret): (LibraryAccessToken, String)
        do { (token, secret) = try library.createAccessToken(for: client) } catch { throw CLIError(describe(error)) }
        let status = library.authorizationStatus(forClient: client)
        if global.json {
            Output.printJSON(["id": token.id, "client": client, "token": secret, "access": status])
        } else {
            print(secret)
            FileHandle.standardError.write(Data("token \(token.id) for \(client) (\(status)); it is shown only now\n".utf8))
            if status == "notDetermined" {
                FileHandle.standardError.write(Data("note: \(client) has no access yet; give it some with photos grant \(client) readWrite\n".utf8))
            }
        }
    }
}

struct TokenList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the tokens issued (ids and clients, never the tokens).")
    @OptionGroup var global: GlobalOptions

    func run() throws {
        let library = try global.open()
        let tokens: [LibraryAccessToken]
        do { tokens = try library.accessTokens() } catch { throw CLIError(describe(error)) }
        let formatter = ISO8601DateFormatter()
        if global.json {
            Output.printJSON(
                tokens.map {
                    [
                        "id": $0.id, "client": $0.clientIdentifier, "creationDate": formatter.string(from: $0.creationDate),
                        "access": library.authorizationStatus(forClient: $0.clientIdentifier),
                    ]
                })
        } else {
            for token in tokens {
                print(
                    "\(token.id)  \(token.clientIdentifier)  \(formatter.string(from: token.creationDate))  \(library.authorizationStatus(forClient: token.clientIdentifier))"
                )
            }
        }
    }
}

struct TokenRevoke: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke", abstract: "Revoke a token (by id or the token itself), or every token of a client.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "A token id, a token, or a client identifier.") var what: String

    func run() throws {
        let library = try global.open()
        let revoked: [LibraryAccessToken]
        do { revoked = try library.revokeAccessTokens(matching: what) } catch { throw CLIError(describe(error)) }
        guard !revoked.isEmpty else { throw CLIError("no token or client matches '\(what)'") }
        if global.json {
            Output.printJSON(["revoked": revoked.map(\.id)])
        } else {
            for token in revoked { print("revoked \(token.id) (\(token.clientIdentifier))") }
        }
    }
}

extension PHPhotoLibrary {
    /// The name of a client's access level, as `photos grant` writes it.
    func authorizationStatus(forClient client: String) -> String {
        guard let handle = try? PHPhotoLibrary(url: libraryURL, clientIdentifier: client) else { return "unknown" }
        switch (handle.authorizationStatus(for: .readWrite), handle.authorizationStatus(for: .addOnly)) {
        case (.authorized, _): return "readWrite"
        case (.limited, _): return "limited"
        case (.denied, .authorized): return "addOnly"
        case (.denied, _): return "denied"
        case (.restricted, _): return "restricted"
        default: return "notDetermined"
        }
    }
}

struct Worker: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Do the library's background work: the renderings of new and edited photos and videos.",
        discussion: """
            Each commit of a new or edited movie (a video, a Live Photo's paired video) queues a web rendering in the
            library's database: a worker makes one (H.264 and AAC in MPEG-4, within 1280 x 720) where browsers cannot
            play the movie itself (HEVC, 10-bit, PCM sound), and the gallery plays it. In a library whose files are in
            object storage, each commit of new content also queues its renderings (the gallery's thumbnails, the
            API's default image, a display size, a video's poster frames); a worker makes them and keeps them in the
            object store, where every `photos serve` node finds them. Any number of workers on any hosts share the queue: each item is claimed for --lease
            seconds, and an item whose worker died is claimed again when its lease runs out. `photos serve` does the
            work itself unless started with --no-background-work. Runs until SIGTERM or Ctrl-C, waiting for commits;
            --drain stops when the queue is empty, --status prints its counts.
            """)
    @OptionGroup var global: GlobalOptions
    @Flag(help: "Work until the queue is empty, then exit (with the counts).") var drain = false
    @Flag(help: "Print how many items are queued, claimed and given up, and exit.") var status = false
    @Option(help: "Seconds a claimed item is this worker's before another worker may take it.") var lease = 300

    func validate() throws {
        guard (5...86_400).contains(lease) else { throw ValidationError("--lease is from 5 to 86400 seconds") }
    }

    func run() throws {
        var logger = Logger(label: "photos.worker")
        logger.logLevel = global.verbose ? .debug : .notice
        let worker: RenderingWorker
        do { worker = try RenderingWorker(libraryURL: global.libraryURL, lease: .seconds(lease), logger: logger) } catch {
            throw CLIError(describe(error))
        }
        if status {
            let counts: (queued: Int, claimed: Int, failed: Int)
            do { counts = try worker.status() } catch { throw CLIError(describe(error)) }
            if global.json {
                Output.printJSON(["queued": counts.queued, "claimed": counts.claimed, "failed": counts.failed])
            } else {
                print("\(counts.queued) queued, \(counts.claimed) claimed, \(counts.failed) given up")
            }
            return
        }
        guard drain else {
            try waitFor { await worker.run() }
            return
        }
        let total = (try? worker.status()).map { $0.queued } ?? 0
        let progress = ProgressReporter("rendering", total: total, unit: "assets", json: global.json)
        let report: RenderingWorker.Report
        do {
            report = try worker.drain { report in progress.update(min(total, report.done + report.failed + report.moot)) }
        } catch {
            throw CLIError(describe(error))
        }
        progress.finish()
        if global.json {
            Output.printJSON(["done": report.done, "failed": report.failed, "moot": report.moot])
        } else {
            print("\(report.done) rendered, \(report.failed) failed (tried again later), \(report.moot) no longer needed")
        }
        if report.failed > 0 { throw ExitCode(1) }
    }
}
