import Foundation
import OpenPhotos
import PhotoEditingProtocol
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// OpenPhotoKit: one edit of an asset by a photo editing extension, hosted as Photos hosts one: the extension runs as
/// its own process, is asked whether it can handle the asset's adjustment data, gets copies of the input files and a
/// private output folder, and hands back an output that the host — not the extension — validates and commits.
///
/// ```swift
/// let look = EditingExtension.named("org.openphotokit.example.look")!
/// let session = EditingSession(extension: look, asset: asset, settings: ["look": "noir"])
/// let edited = try session.run()      // blocks; `session.cancel()` from another thread stops it
/// ```
///
/// The extension never sees the library: it runs in a kernel sandbox (bubblewrap: its own namespaces, no network, a
/// file system of its session folder and the system's libraries — see the WritingAPhotoEditingExtension article), it
/// is not given the library's path (no `$PHOTOS_LIBRARY`; its `$HOME` and `$TMPDIR` are folders of the session), and
/// every file it is given is a copy. Whatever it does — crash, hang, write
/// garbage, answer out of order, point at a file outside its folder — the session ends with a
/// ``EditingExtensionError`` naming it, and nothing is committed.
public final class EditingSession: @unchecked Sendable {
    /// How long each call may take before the extension is stopped.
    public struct Timeouts: Sendable {
        public var handshake: Double
        public var start: Double
        public var finish: Double
        public var cancel: Double
        public init(handshake: Double = 10, start: Double = 30, finish: Double = 300, cancel: Double = 5) {
            (self.handshake, self.start, self.finish, self.cancel) = (handshake, start, finish, cancel)
        }
    }

    public let editingExtension: EditingExtension
    public let asset: PHAsset
    private let settings: [String: String]
    private let timeouts: Timeouts
    private let state = Mutex<(cancelled: Bool, confirmation: Bool?)>((false, nil))

    /// A session for `asset` with settings typed as the extension declares them (`["intensity": "0.5"]`).
    public init(extension editingExtension: EditingExtension, asset: PHAsset, settings: [String: String] = [:], timeouts: Timeouts = Timeouts()) {
        self.editingExtension = editingExtension
        self.asset = asset
        self.settings = settings
        self.timeouts = timeouts
    }

    /// Stops the session: the extension is told to cancel (or stopped), and nothing is committed.
    public func cancel() { state.withLock { $0.cancelled = true } }

    /// Keeps one spare process of `editingExtension` started ahead of its next session, so that session does not
    /// wait for the program to load (a long-running host editing many assets; each session still gets a fresh
    /// process of its own). Spares of earlier calls stay until used; they exit when the host does.
    public static func prepare(_ editingExtension: EditingExtension) {
        ExtensionProcess.keepSpare(of: editingExtension)
    }

    /// Whether the extension asked for a confirmation before a cancel (known once it started; nil before).
    public var shouldShowCancelConfirmation: Bool? { state.withLock { $0.confirmation } }

    private var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Runs the edit to its end; returns the asset as edited.
    /// - throws: ``EditingExtensionError`` (nothing committed).
    @discardableResult
    public func run() throws(EditingExtensionError) -> PHAsset {
        let name = editingExtension.displayName
        let mediaType: EditingExtension.MediaType
        switch asset.mediaType {
        case .image: mediaType = .image
        case .video: mediaType = .video
        default: throw .unsupportedMediaType(extension: name, mediaType: "\(asset.mediaType)")
        }
        guard editingExtension.supportedMediaTypes.contains(mediaType) else {
            throw .unsupportedMediaType(extension: name, mediaType: mediaType.rawValue)
        }
        let values = try editingExtension.resolveSettings(settings)
        let library = asset.library ?? PHPhotoLibrary.shared()
        // What the extension will be asked about: the asset's current adjustment data.
        let adjustment: PHAdjustmentData?
        do { adjustment = try asset.storedAdjustmentData() } catch {
            throw .inputUnavailable(extension: name, reason: error.localizedDescription)
        }

        let process = try ExtensionProcess.take(editingExtension)
        // The session ends when its answer is in: the process is told to go and reaped off the caller's path.
        defer { process.stopInBackground(grace: timeouts.cancel) }
        try process.exchange(
            .init(.hello).with { $0.protocolVersion = EditingExtensionWire.protocolVersion }, expecting: .hello, phase: "hello",
            timeout: timeouts.handshake, isCancelled: { self.isCancelled })

        var handles = false
        if let adjustment {
            var call = EditingExtensionWire.Call(.canHandle)
            call.adjustmentData = .init(formatIdentifier: adjustment.formatIdentifier, formatVersion: adjustment.formatVersion, data: adjustment.data)
            let reply = try process.exchange(
                call, expecting: .canHandle, phase: "canHandle", timeout: timeouts.handshake, isCancelled: { self.isCancelled })
            handles = reply.value ?? false
        }
        if isCancelled { throw .cancelled(extension: name) }

        // The input: copies in a private folder, the output folder beside them.
        let input: PHContentEditingInput
        do {
            // No display-size image here: the extension side makes it from its copy when the extension asks for it
            // (an extension on Linux has no screen to show it on, and decoding it would cost every session).
            // Inside the process's own folder: the only one its sandbox can see.
            input = try asset.makeEditingInput(handlesAdjustmentData: handles, in: process.workspace.url)
        } catch {
            throw .inputUnavailable(extension: name, reason: "the input could not be made: \(error.localizedDescription)")
        }
        let outputFolder = input.workspace.url.appendingPathComponent("Output")
        var displayImage: String?
        do {
            try Self.makePrivateFolder(outputFolder)
            if let display = input.displaySizeImage?.jpegData(compressionQuality: 0.9) {
                let url = input.workspace.url.appendingPathComponent("Input/DisplaySize.jpg")
                try display.write(to: url)
                displayImage = url.path
            }
        } catch {
            throw .launchFailed(extension: name, reason: "cannot prepare the session folder: \(error)")
        }
        var start = EditingExtensionWire.Call(.start)
        start.input = EditingExtensionWire.Input(
            mediaType: input.mediaType.rawValue, mediaSubtypes: input.mediaSubtypes.rawValue, creationDate: input.creationDate,
            latitude: input.location?.coordinate.latitude, longitude: input.location?.coordinate.longitude,
            altitude: input.location.map { $0.verticalAccuracy < 0 ? nil : $0.altitude } ?? nil,
            uniformTypeIdentifier: input.uniformTypeIdentifier, playbackStyle: input.playbackStyle.rawValue,
            adjustmentData: input.adjustmentData.map { .init(formatIdentifier: $0.formatIdentifier, formatVersion: $0.formatVersion, data: $0.data) },
            fullSizeImage: input.fullSizeImageURL?.path, fullSizeImageOrientation: input.fullSizeImageOrientation,
            video: (input.audiovisualAsset as? AVURLAsset)?.url.path, pairedVideo: input.livePhoto?.videoURL?.path, displaySizeImage: displayImage)
        start.outputFolder = outputFolder.path
        start.settings = values
        let started = try process.exchange(
            start, expecting: .started, phase: "startContentEditing", timeout: timeouts.start, isCancelled: { self.isCancelled })
        state.withLock { $0.confirmation = started.shouldShowCancelConfirmation ?? false }

        // Finish — or cancel, at any time, even while the extension is finishing.
        let finished: EditingExtensionWire.Reply
        do {
            finished = try process.exchange(
                .init(.finish), expecting: .finished, phase: "finishContentEditing", timeout: timeouts.finish, isCancelled: { self.isCancelled })
        } catch .cancelled {
            _ = try? process.exchange(
                .init(.cancel), expecting: .cancelled, phase: "cancelContentEditing", timeout: timeouts.cancel, isCancelled: { false })
            throw .cancelled(extension: name)
        }
        if isCancelled { throw .cancelled(extension: name) }
        guard finished.hasOutput == true, let rendered = finished.renderedContent, let adjustmentData = finished.adjustmentData else {
            throw .noOutput(extension: name)
        }

        let written = try Self.writtenFile(rendered, in: outputFolder, extension: name)
        let output = PHContentEditingOutput(contentEditingInput: input)
        let type = UTType(filenameExtension: written.pathExtension) ?? .data
        let target: URL
        do { target = try output.renderedContentURL(for: type) } catch {
            throw .invalidOutput(
                extension: name,
                reason:
                    "its rendering is \(written.pathExtension), not one of \(output.supportedRenderedContentTypes.map(\.identifier).joined(separator: ", "))"
            )
        }
        guard rename(written.path, target.path) == 0 else {
            throw .invalidOutput(extension: name, reason: "cannot take its rendering: \(String(cString: strerror(errno)))")
        }
        if let video = finished.renderedPairedVideo {
            // A Live Photo edit (PHLivePhotoEditingContext): the edited video, taken the same way.
            let writtenVideo = try Self.writtenFile(video, in: outputFolder, extension: name)
            guard input.livePhoto != nil else {
                throw .invalidOutput(extension: name, reason: "it returned a Live Photo video for an asset that is not a Live Photo")
            }
            guard rename(writtenVideo.path, output.renderedPairedVideoURL.path) == 0 else {
                throw .invalidOutput(extension: name, reason: "cannot take its Live Photo video: \(String(cString: strerror(errno)))")
            }
        }
        output.adjustmentData = PHAdjustmentData(
            formatIdentifier: adjustmentData.formatIdentifier, formatVersion: adjustmentData.formatVersion, data: adjustmentData.data)
        do {
            try library.performChangesAndWait { PHAssetChangeRequest(for: asset).contentEditingOutput = output }
        } catch {
            throw .invalidOutput(extension: name, reason: (error as? PHPhotosError)?.localizedDescription ?? "\(error)")
        }
        return library.refreshedAsset(asset) ?? asset
    }
}

extension EditingSession {
    /// The file `name` of the extension's output folder: a plain file it wrote there, not a path out of it nor a link.
    fileprivate static func writtenFile(_ name: String, in folder: URL, extension extensionName: String) throws(EditingExtensionError) -> URL {
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            throw .invalidOutput(extension: extensionName, reason: "its rendering \(name.debugDescription) is not a file of its output folder")
        }
        let written = folder.appendingPathComponent(name)
        var info = stat()
        guard lstat(written.path, &info) == 0 else {
            throw .invalidOutput(extension: extensionName, reason: "it named \(name.debugDescription), which it did not write")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG, info.st_nlink == 1 else {
            throw .invalidOutput(
                extension: extensionName, reason: "its rendering is a link or not a regular file (an extension writes only inside its folder)")
        }
        return written
    }
}

extension EditingExtensionWire.Call {
    fileprivate func with(_ change: (inout Self) -> Void) -> Self {
        var copy = self
        change(&copy)
        return copy
    }
}

/// An extension's process: its pipes, a reader thread for its replies, and how it is stopped.
private final class ExtensionProcess: @unchecked Sendable {
    /// Extensions whose next process is started ahead, and the spare processes started.
    private static let spares = Mutex<(wanted: Set<String>, ready: [String: ExtensionProcess])>(([], [:]))

    static func keepSpare(of editingExtension: EditingExtension) {
        let key = editingExtension.executableURL.path
        let start = spares.withLock { state -> Bool in
            state.wanted.insert(key)
            return state.ready[key] == nil
        }
        if start, let spare = try? ExtensionProcess(editingExtension) { spares.withLock { $0.ready[key] = spare } }
    }

    /// A process for a session: the spare when one is running, else a new one; a new spare is started after.
    static func take(_ editingExtension: EditingExtension) throws(EditingExtensionError) -> ExtensionProcess {
        let key = editingExtension.executableURL.path
        let (spare, wanted) = spares.withLock { state in (state.ready.removeValue(forKey: key), state.wanted.contains(key)) }
        if wanted {
            DispatchQueue.global(qos: .utility).async { keepSpare(of: editingExtension) }
        }
        if let spare, spare.process.isRunning { return spare }
        spare?.stop(grace: 0)
        return try ExtensionProcess(editingExtension)
    }

    let name: String
    let process = Process()
    let input = Pipe()
    let output = Pipe()
    let workspace: EditingWorkspace
    private let replies = Mutex<[Result<EditingExtensionWire.Reply, EditingExtensionWire.FrameError>]>([])
    private let arrived = DispatchSemaphore(value: 0)
    /// Signalled once when the process ends (see ``waitForExit(_:)``).
    private let exited = DispatchSemaphore(value: 0)

    init(_ editingExtension: EditingExtension) throws(EditingExtensionError) {
        name = editingExtension.displayName
        // A broken pipe is an error of the write, not a signal that ends the host.
        signal(SIGPIPE, SIG_IGN)
        do {
            workspace = try EditingWorkspace()
            for folder in ["Home", "Tmp"] { try EditingSession.makePrivateFolder(workspace.url.appendingPathComponent(folder)) }
        } catch {
            throw .launchFailed(extension: name, reason: "cannot create its session folder: \(error)")
        }
        let (launcher, arguments) = try ExtensionSandbox.command(
            executable: editingExtension.executableURL, arguments: [], workspace: workspace.url)
        process.executableURL = launcher
        process.arguments = arguments
        process.currentDirectoryURL = workspace.url
        let environment = ProcessInfo.processInfo.environment
        // Nothing that names the library: a private home and temporary folder, the locale and the search path.
        var clean = ["HOME": workspace.url.appendingPathComponent("Home").path, "TMPDIR": workspace.url.appendingPathComponent("Tmp").path]
        for key in ["PATH", "LANG", "LC_ALL", "LD_LIBRARY_PATH"] { clean[key] = environment[key] }
        clean["OPENPHOTOKIT_EXTENSION_HOST"] = "1"
        process.environment = clean
        process.standardInput = input
        process.standardOutput = output
        // What the extension prints goes to a log in its session folder (its standard output is the protocol's),
        // at most ExtensionSandbox.logLimit bytes of it.
        let errors = Pipe()
        process.standardError = errors
        process.terminationHandler = { [exited] _ in exited.signal() }
        do { try ExtensionSandbox.run(process) } catch { throw .launchFailed(extension: name, reason: "\(error)") }
        try? errors.fileHandleForWriting.close()
        ExtensionSandbox.capture(errors, into: workspace.url.appendingPathComponent("extension.log"))
        let fd = output.fileHandleForReading.fileDescriptor
        Thread.detachNewThread { [self] in
            while true {
                let next: Result<EditingExtensionWire.Reply, EditingExtensionWire.FrameError>
                do throws(EditingExtensionWire.FrameError) {
                    next = .success(try EditingExtensionWire.read(EditingExtensionWire.Reply.self, from: fd))
                } catch {
                    next = .failure(error)
                }
                replies.withLock { $0.append(next) }
                arrived.signal()
                if case .failure = next { return }
            }
        }
    }

    /// Sends a call and waits for its reply (of the kind expected), polling `isCancelled`.
    @discardableResult
    func exchange(
        _ call: EditingExtensionWire.Call, expecting kind: EditingExtensionWire.Reply.Kind, phase: String, timeout: Double,
        isCancelled: () -> Bool
    ) throws(EditingExtensionError) -> EditingExtensionWire.Reply {
        do { try EditingExtensionWire.write(call, to: input.fileHandleForWriting.fileDescriptor) } catch {
            throw crashOrViolation(phase: phase, error: .endOfStream)
        }
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if isCancelled() { throw .cancelled(extension: name) }
            if arrived.wait(timeout: .now() + 0.05) == .success {
                let next = replies.withLock { $0.removeFirst() }
                switch next {
                case .failure(let error): throw crashOrViolation(phase: phase, error: error)
                case .success(let reply):
                    guard reply.reply == kind else {
                        throw .protocolViolation(extension: name, detail: "it answered \(reply.reply.rawValue) to \(phase)")
                    }
                    return reply
                }
            }
            if Date() > deadline {
                stop(grace: 0)
                throw .timedOut(extension: name, phase: phase, seconds: timeout)
            }
        }
    }

    private func crashOrViolation(phase: String, error: EditingExtensionWire.FrameError) -> EditingExtensionError {
        switch error {
        case .endOfStream, .io:
            // The pipe closed: the process ended (or closed its output). Wait a moment for its status.
            if !waitForExit(2) {
                stop(grace: 0)
                return .protocolViolation(extension: name, detail: "it closed its output during \(phase)")
            }
            // The sandbox's monitor reports a signal that ended the extension as 128 + the signal, as shells do.
            let code = process.terminationStatus
            let status =
                process.terminationReason == .uncaughtSignal
                ? "killed by signal \(code)" : (129...159).contains(code) ? "killed by signal \(code - 128)" : "exit status \(code)"
            return .crashed(extension: name, phase: phase, status: status)
        case .tooLarge(let size):
            stop(grace: 0)
            return .protocolViolation(extension: name, detail: "a message of \(size) bytes (at most \(EditingExtensionWire.maximumFrameSize))")
        case .malformed(let text):
            stop(grace: 0)
            return .protocolViolation(extension: name, detail: "it wrote \(text.debugDescription) during \(phase)")
        }
    }

    /// Waits up to `seconds` for the process to end (woken by its termination, not by polling); true when it has.
    private func waitForExit(_ seconds: Double) -> Bool {
        guard exited.wait(timeout: .now() + max(0, seconds)) == .success else { return !process.isRunning }
        exited.signal()  // it stays ended: later waits return at once
        return true
    }

    /// ``stop(grace:)`` on another thread.
    func stopInBackground(grace: Double) {
        try? input.fileHandleForWriting.close()
        DispatchQueue.global(qos: .utility).async { self.stop(grace: grace) }
    }

    /// Closes the extension's input and waits `grace` seconds for it to exit; then kills it.
    func stop(grace: Double) {
        try? input.fileHandleForWriting.close()
        if !waitForExit(grace) {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        // The session's folder (the input's copies, what the extension wrote, its log) goes with it.
        workspace.remove()
    }
}

extension EditingSession {
    /// Makes a folder (and its parents) only its owner may enter: a session's folders hold copies of the user's photos.
    static func makePrivateFolder(_ url: URL) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }
}
