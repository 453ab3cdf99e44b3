import BackgroundUploads
import Foundation
import KernelSandbox
import Logging
import OpenPhotos
import PhotoUploadExtension
import PhotosServer
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

extension UploadJobHost {
    /// OpenPhotoKit: a host of an upload extension program (``UploadExtensionProgram``) over `library`, as iOS hosts
    /// an app's upload extension: the program runs as a process of its own in a kernel sandbox (no network, none of
    /// the host's files but those it is given), and its PhotoKit calls reach the library only through a `photos
    /// serve` of the host's on a socket in its sandbox, with a token of that server's life acting for `library`'s
    /// client. A program that crashes, hangs or answers nonsense costs a failed call (the host goes on, and gives up
    /// after three), never the host.
    /// - parameter library: a client's handle (the app the extension belongs to) with full access; not the owner's,
    ///   whose powers (tokens, grants) an extension must not borrow.
    /// - throws: ``UploadExtensionHostError`` when the library is the owner's or the program cannot run in a sandbox
    ///   here.
    public static func sandboxed(
        library: PHPhotoLibrary, program: UploadExtensionProgram, performer: UploadJobPerformer? = nil,
        logger: Logger = Logger(label: "photos.uploads")
    ) throws -> UploadJobHost {
        guard let client = library.clientIdentifier else {
            throw UploadExtensionHostError(
                "an upload extension acts for its app: open the library as the app's client (PHOTOS_CLIENT_ID), not as its owner")
        }
        guard FileManager.default.isExecutableFile(atPath: program.executableURL.path) else {
            throw UploadExtensionHostError("no upload extension program at \(program.executableURL.path)")
        }
        do {
            _ = try KernelSandbox.command(executable: program.executableURL, arguments: [], readWrite: [], workingDirectory: "/")
        } catch {
            throw UploadExtensionHostError("upload extensions run only in a sandbox, and \(error)")
        }
        return UploadJobHost(library: library, performer: performer) {
            SandboxedUploadExtension(program: program, libraryURL: library.libraryURL, client: client, logger: logger)
        }
    }
}

/// The stand-in for an extension program: each call is a line to the program and its answer, in a process started
/// at the first call and again after one that failed; the process and its server end with the stand-in.
final class SandboxedUploadExtension: HostedUploadExtension, @unchecked Sendable {
    private struct Setup {
        let program: UploadExtensionProgram
        let libraryURL: URL
        let client: String
        let logger: Logger
    }

    private let setup: Setup?
    private let session = Mutex<ExtensionProcess?>(nil)

    init(program: UploadExtensionProgram, libraryURL: URL, client: String, logger: Logger) {
        setup = Setup(program: program, libraryURL: libraryURL, client: client, logger: logger)
    }

    /// The protocol's: a stand-in for no program, whose calls fail.
    required init() { setup = nil }

    deinit { session.withLock { $0 }?.end() }

    func endHosting() async {
        let ending = session.withLock { current in
            defer { current = nil }
            return current
        }
        await ending?.finish(grace: 5)
    }

    func processJobs() async -> PHBackgroundResourceUploadProcessingResult {
        guard let setup else { return .failure }
        let name = setup.program.executableURL.lastPathComponent
        do {
            let process = try await current(setup)
            let line = try await process.call(UploadExtensionWire.process, timeout: setup.program.timeout)
            guard let result = UploadExtensionWire.result(from: line) else {
                throw UploadExtensionHostError("it answered \(line.prefix(80).debugDescription) to processJobs()")
            }
            return result
        } catch {
            setup.logger.error("upload extension \(name): \(error)")
            // The process that failed is not called again: the next call starts a fresh one.
            let failed = session.withLock { current in
                defer { current = nil }
                return current
            }
            await failed?.finish(grace: 0)
            return .failure
        }
    }

    func willTerminate() async {
        guard let setup, let process = session.withLock({ $0 }) else { return }
        do {
            _ = try await process.call(UploadExtensionWire.terminate, timeout: min(setup.program.timeout, 10))
        } catch {
            setup.logger.warning("upload extension \(setup.program.executableURL.lastPathComponent) at termination: \(error)")
        }
    }

    /// The running process, started if there is none.
    private func current(_ setup: Setup) async throws -> ExtensionProcess {
        if let running = session.withLock({ $0 }) { return running }
        let started = try await ExtensionProcess.start(
            program: setup.program, libraryURL: setup.libraryURL, client: setup.client, logger: setup.logger)
        session.withLock { $0 = started }
        return started
    }
}

/// One run of an extension program: its private folder, the server of the library on a socket there, the process
/// in its sandbox and the lines it answers.
final class ExtensionProcess: Sendable {
    let workspace: URL
    private let process: Process
    private let input: FileHandle
    private let lines: AnswerLines
    private let server: ServiceGroup
    private let serving: Task<Void, Never>
    private let name: String

    private init(
        workspace: URL, process: Process, input: FileHandle, lines: AnswerLines, server: ServiceGroup, serving: Task<Void, Never>, name: String
    ) {
        (self.workspace, self.process, self.input, self.lines) = (workspace, process, input, lines)
        (self.server, self.serving, self.name) = (server, serving, name)
    }

    /// Serves the library on a socket in a new private folder and starts the program in its sandbox.
    static func start(program: UploadExtensionProgram, libraryURL: URL, client: String, logger: Logger) async throws -> ExtensionProcess {
        // A broken pipe is an error of the write, not a signal that ends the host.
        signal(SIGPIPE, SIG_IGN)
        let name = program.executableURL.lastPathComponent
        // Short: a socket's path has at most 107 bytes. Named by this process, so that the folders of hosts that were
        // killed are found and removed — and only theirs.
        removeAbandonedWorkspaces()
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent(
            "opk-upload-\(getpid())-\(UUID().uuidString.prefix(8))")
        for folder in ["", "Home", "Tmp"] {
            try FileManager.default.createDirectory(
                at: workspace.appendingPathComponent(folder), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        var cleanup = true
        defer { if cleanup { try? FileManager.default.removeItem(at: workspace) } }

        // The library, served to this program only: its socket is in the program's folder, its token lives as long
        // as this server and acts for the app's client.
        let socket = workspace.appendingPathComponent("library.sock").path
        var secret = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for index in secret.indices { secret[index] = generator.next() }
        let token = "opk_session_" + secret.map { String(format: "%02x", $0) }.joined()
        var serverLogger = logger
        serverLogger.logLevel = max(logger.logLevel, .warning)
        let configuration = PhotosServer.Configuration(
            servesGallery: false, maximumConnections: 64, runsBackgroundWork: false, unixSocket: socket, sessionTokens: [token: client])
        let photosServer = try PhotosServer(libraryURL: libraryURL, configuration: configuration, logger: serverLogger)
        let (ready, readiness) = AsyncStream.makeStream(of: Void.self)
        let application = photosServer.makeApplication { _ in readiness.yield() }
        let server = ServiceGroup(configuration: .init(services: [application], gracefulShutdownSignals: [], logger: serverLogger))
        let serving = Task {
            do { try await server.run() } catch { serverLogger.error("the upload extension's library server stopped: \(error)") }
            readiness.finish()
        }
        var waiting = ready.makeAsyncIterator()
        guard await waiting.next() != nil else {
            throw UploadExtensionHostError("the library could not be served to \(name)")
        }

        let (launcher, arguments) = try KernelSandbox.command(
            executable: program.executableURL, arguments: program.arguments,
            readOnly: KernelSandbox.swiftRuntimeFolders + program.readOnlyPaths, readWrite: [workspace.path] + program.readWritePaths,
            workingDirectory: workspace.path)
        let process = Process()
        process.executableURL = launcher
        process.arguments = arguments
        process.currentDirectoryURL = workspace
        let environment = ProcessInfo.processInfo.environment
        var clean = program.environment
        for key in ["PATH", "LANG", "LC_ALL", "LD_LIBRARY_PATH"] where clean[key] == nil { clean[key] = environment[key] }
        let encoded = socket.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? socket
        clean["PHOTOS_LIBRARY"] = "http+unix://\(encoded)"
        clean["PHOTOS_TOKEN"] = token
        clean["HOME"] = workspace.appendingPathComponent("Home").path
        clean["TMPDIR"] = workspace.appendingPathComponent("Tmp").path
        clean["OPENPHOTOKIT_EXTENSION_HOST"] = "1"
        process.environment = clean
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        do {
            try KernelSandbox.launch { try process.run() }
        } catch {
            await server.triggerGracefulShutdown()
            throw UploadExtensionHostError("\(name) could not start: \(error)")
        }
        try? input.fileHandleForReading.close()
        try? output.fileHandleForWriting.close()
        try? errors.fileHandleForWriting.close()
        ProgramLog.forward(errors, name: name, logger: logger)
        cleanup = false
        return ExtensionProcess(
            workspace: workspace, process: process, input: input.fileHandleForWriting, lines: AnswerLines(output), server: server,
            serving: serving, name: name)
    }

    /// Removes the private folders of hosts that no longer run (killed before they could).
    static func removeAbandonedWorkspaces() {
        let temporary = FileManager.default.temporaryDirectory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? [] where name.hasPrefix("opk-upload-") {
            guard let pid = Int32(name.dropFirst("opk-upload-".count).prefix { $0 != "-" }), pid > 0, pid != getpid() else { continue }
            if kill(pid, 0) != 0, errno == ESRCH { try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name)) }
        }
    }

    /// Sends a call and waits at most `timeout` seconds for its answer.
    func call(_ line: String, timeout: Double) async throws -> String {
        do { try input.write(contentsOf: Data((line + "\n").utf8)) } catch {
            throw UploadExtensionHostError("it is gone (\(await exitDescription()))")
        }
        switch await lines.next(timeout: timeout) {
        case .line(let answer): return answer
        case .tooLong: throw UploadExtensionHostError("it answered a line longer than \(UploadExtensionWire.maximumLine) bytes")
        case .ended: throw UploadExtensionHostError("it ended during \(line) (\(await exitDescription()))")
        case .timedOut: throw UploadExtensionHostError("it did not answer \(line) within \(Int(timeout)) s")
        }
    }

    /// How the process ended, as far as known now.
    private func exitDescription() async -> String {
        // Its output closed: its status follows within moments (waited for without holding a thread).
        for _ in 0..<20 where process.isRunning { try? await Task.sleep(for: .milliseconds(50)) }
        guard !process.isRunning else { return "still running" }
        let code = process.terminationStatus
        // The sandbox's monitor reports a signal that ended the program as 128 + the signal, as shells do.
        if process.terminationReason == .uncaughtSignal { return "killed by signal \(code)" }
        return (129...159).contains(code) ? "killed by signal \(code - 128)" : "exit status \(code)"
    }

    /// Ends the program (its input closed; killed if it has not exited `grace` seconds later), then the server,
    /// then the folder.
    func finish(grace: Double) async {
        try? input.close()
        let deadline = Date().addingTimeInterval(grace)
        while process.isRunning, Date() < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            while process.isRunning { try? await Task.sleep(for: .milliseconds(5)) }
        }
        await server.triggerGracefulShutdown()
        await serving.value
        try? FileManager.default.removeItem(at: workspace)
    }

    /// ``finish(grace:)`` off the caller's path (a stand-in that goes away without a run's end).
    func end() {
        Task { await finish(grace: 5) }
    }
}

/// The lines a program answers on its standard output, read on a thread of their own and handed to one waiting
/// call at a time.
final class AnswerLines: Sendable {
    enum Next: Sendable {
        case line(String)
        case tooLong
        case ended
        case timedOut
    }

    private struct State {
        var ready: [Next] = []
        var ended = false
        var waiter: (id: Int, continuation: CheckedContinuation<Next, Never>)?
        var nextID = 0
    }

    private let state = Mutex(State())

    init(_ pipe: Pipe) {
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        Thread.detachNewThread { [self] in
            var line: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            reading: while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                for byte in buffer[0..<count] {
                    if byte == UInt8(ascii: "\n") {
                        deliver(.line(String(decoding: line, as: UTF8.self)))
                        line.removeAll(keepingCapacity: true)
                    } else if line.count >= UploadExtensionWire.maximumLine {
                        deliver(.tooLong)
                        break reading
                    } else {
                        line.append(byte)
                    }
                }
            }
            try? pipe.fileHandleForReading.close()
            deliver(.ended)
        }
    }

    private func deliver(_ next: Next) {
        let waiter = state.withLock { state -> CheckedContinuation<Next, Never>? in
            if case .ended = next { state.ended = true }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter.continuation
            }
            if case .ended = next { return nil }
            state.ready.append(next)
            return nil
        }
        waiter?.resume(returning: next)
    }

    /// The next answer, `.ended` once the program closed its output, `.timedOut` after `timeout` seconds.
    func next(timeout: Double) async -> Next {
        await withCheckedContinuation { continuation in
            let waiting = state.withLock { state -> Int? in
                if !state.ready.isEmpty {
                    continuation.resume(returning: state.ready.removeFirst())
                    return nil
                }
                if state.ended {
                    continuation.resume(returning: .ended)
                    return nil
                }
                state.nextID += 1
                state.waiter = (state.nextID, continuation)
                return state.nextID
            }
            guard let waiting else { return }
            DispatchQueue.global().asyncAfter(deadline: .now() + max(0, timeout)) { [self] in
                let expired = state.withLock { state -> CheckedContinuation<Next, Never>? in
                    guard let waiter = state.waiter, waiter.id == waiting else { return nil }
                    state.waiter = nil
                    return waiter.continuation
                }
                expired?.resume(returning: .timedOut)
            }
        }
    }
}

/// What a program prints (its standard error, where its standard output goes too): to the host's log, line by
/// line, at most a megabyte of it per process.
enum ProgramLog {
    static let limit = 1 << 20

    static func forward(_ pipe: Pipe, name: String, logger: Logger) {
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        Thread.detachNewThread {
            var kept = 0
            var line: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                for byte in buffer[0..<count] {
                    if byte == UInt8(ascii: "\n") || line.count >= 4096 {
                        if kept < limit { logger.notice("\(name): \(String(decoding: line, as: UTF8.self))") }
                        kept += line.count + 1
                        line.removeAll(keepingCapacity: true)
                    }
                    if byte != UInt8(ascii: "\n") { line.append(byte) }
                }
            }
            if !line.isEmpty, kept < limit { logger.notice("\(name): \(String(decoding: line, as: UTF8.self))") }
            try? pipe.fileHandleForReading.close()
        }
    }
}
