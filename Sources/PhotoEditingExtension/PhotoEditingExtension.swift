@_exported import EditingExtensionHost
import Foundation
import PhotoEditingProtocol
import OpenPhotos
import PhotosUI
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The extension side of photo editing extensions: the entry point an extension program calls with its manifest and
/// its ``PHContentEditingController``. It speaks the host's protocol on the standard input and output (what the
/// program prints goes to the standard error, which the host logs), calls the controller on the main actor in
/// Apple's order, and hands back the output it gives.
///
/// ```swift
/// import PhotoEditingExtension
/// import PhotosUI
///
/// @main struct LookExtension {
///     static func main() async {
///         await PhotoEditingExtension.main(manifest: .init(
///             bundleIdentifier: "com.example.look", displayName: "Look", supportedMediaTypes: [.image],
///             settings: [.init(name: "intensity", kind: .number(minimum: 0, maximum: 1), defaultValue: "1")])) {
///             LookController()
///         }
///     }
/// }
/// ```
///
/// `PROGRAM --print-info-plist` prints the manifest as the `Info.plist` the host reads (`photos extensions install
/// PROGRAM` writes it into an installed extension folder).
public enum PhotoEditingExtension {
    /// What an extension declares: identity, the media it edits and its settings.
    public struct Manifest: Sendable {
        public var bundleIdentifier: String
        public var displayName: String
        public var supportedMediaTypes: [EditingExtension.MediaType]
        public var settings: [EditingExtension.Setting]

        public init(
            bundleIdentifier: String, displayName: String, supportedMediaTypes: [EditingExtension.MediaType],
            settings: [EditingExtension.Setting] = []
        ) {
            self.bundleIdentifier = bundleIdentifier
            self.displayName = displayName
            self.supportedMediaTypes = supportedMediaTypes
            self.settings = settings
        }
    }

    /// The settings the host passed in (the declared defaults where it passed none), for the controller to read.
    @MainActor public static private(set) var settings = Settings(values: [:])

    /// Setting values by name.
    public struct Settings: Sendable {
        let values: [String: EditingExtensionWire.SettingValue]

        /// A number setting.
        public func number(_ name: String) -> Double? {
            if case .number(let value)? = values[name] { return value }
            return nil
        }

        /// A boolean setting.
        public func boolean(_ name: String) -> Bool? {
            if case .boolean(let value)? = values[name] { return value }
            return nil
        }

        /// A choice setting (the name chosen).
        public func choice(_ name: String) -> String? {
            if case .text(let value)? = values[name] { return value }
            return nil
        }

        /// A unit-rectangle setting: X, Y, W, H in the upright image's unit square, from the top left.
        public func unitRect(_ name: String) -> CGRect? {
            guard case .text(let value)? = values[name] else { return nil }
            let v = value.split(separator: ",").compactMap { Double($0) }
            return v.count == 4 ? CGRect(x: v[0], y: v[1], width: v[2], height: v[3]) : nil
        }
    }

    /// Runs the extension: answers the host's calls until it closes the session, then exits.
    @MainActor
    public static func main(manifest: Manifest, controller makeController: @MainActor () -> any PHContentEditingController) async -> Never {
        if CommandLine.arguments.dropFirst().contains("--print-info-plist") {
            let executable = URL(fileURLWithPath: CommandLine.arguments[0]).lastPathComponent
            let plist = EditingExtension.infoPlist(
                bundleIdentifier: manifest.bundleIdentifier, displayName: manifest.displayName, executableName: executable,
                supportedMediaTypes: manifest.supportedMediaTypes, settings: manifest.settings)
            let data = (try? PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)) ?? Data()
            FileHandle.standardOutput.write(data)
            exit(0)
        }
        // The protocol owns the standard output: the program's own prints go to the standard error.
        let replies = dup(STDOUT_FILENO)
        dup2(STDERR_FILENO, STDOUT_FILENO)
        signal(SIGPIPE, SIG_IGN)
        let calls = AsyncStream<EditingExtensionWire.Call> { continuation in
            Thread.detachNewThread {
                while let call = try? EditingExtensionWire.read(EditingExtensionWire.Call.self, from: STDIN_FILENO) {
                    continuation.yield(call)
                }
                continuation.finish()
            }
        }
        let session = Session(replies: replies)
        var controller: (any PHContentEditingController)?
        for await call in calls {
            switch call.call {
            case .hello:
                var reply = EditingExtensionWire.Reply(.hello)
                reply.protocolVersion = EditingExtensionWire.protocolVersion
                session.send(reply)
            case .canHandle:
                guard let data = call.adjustmentData else { exit(3) }
                let current = controller ?? makeController()
                controller = current
                var reply = EditingExtensionWire.Reply(.canHandle)
                reply.value = current.canHandle(
                    PHAdjustmentData(formatIdentifier: data.formatIdentifier, formatVersion: data.formatVersion, data: data.data))
                session.send(reply)
            case .start:
                guard let wire = call.input, let folder = call.outputFolder else { exit(3) }
                let current = controller ?? makeController()
                controller = current
                settings = Settings(values: call.settings ?? [:])
                let outputFolder = URL(fileURLWithPath: folder)
                _ = FileManager.default.changeCurrentDirectoryPath(folder)
                let input = PHContentEditingInput(extensionInput: wire, outputFolder: outputFolder)
                // No view shows a placeholder on Linux: an empty image (the input's displaySizeImage is made from the
                // full-size copy when the controller asks for it; decoding it here would cost every session).
                current.startContentEditing(with: input, placeholderImage: UIImage())
                var reply = EditingExtensionWire.Reply(.started)
                reply.shouldShowCancelConfirmation = current.shouldShowCancelConfirmation
                session.send(reply)
            case .finish:
                guard let current = controller else { exit(3) }
                current.finishContentEditing { output in session.finish(output) }
            case .cancel:
                session.cancel()
                controller?.cancelContentEditing()
                session.send(EditingExtensionWire.Reply(.cancelled))
            }
        }
        exit(0)
    }

    /// Replies, one at a time from any thread; a finish after a cancel (or a second one) is dropped.
    final class Session: Sendable {
        let fd: Int32
        let state = Mutex<(finished: Bool, cancelled: Bool)>((false, false))

        init(replies: Int32) { fd = replies }

        func send(_ reply: EditingExtensionWire.Reply) {
            state.withLock { _ in try? EditingExtensionWire.write(reply, to: fd) }
        }

        func cancel() { state.withLock { $0.cancelled = true } }

        func finish(_ output: PHContentEditingOutput?) {
            var reply = EditingExtensionWire.Reply(.finished)
            if let output, let rendering = output.writtenRenderings.first, let adjustment = output.adjustmentData {
                reply.hasOutput = true
                reply.renderedContent = rendering.lastPathComponent
                reply.renderedPairedVideo = output.writtenPairedVideo?.lastPathComponent
                reply.adjustmentData = .init(
                    formatIdentifier: adjustment.formatIdentifier, formatVersion: adjustment.formatVersion, data: adjustment.data)
            } else {
                reply.hasOutput = false
            }
            state.withLock { state in
                guard !state.finished, !state.cancelled else { return }
                state.finished = true
                try? EditingExtensionWire.write(reply, to: fd)
            }
        }
    }
}
