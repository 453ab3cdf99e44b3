import Foundation
import KernelSandbox

#if canImport(Glibc)
    import Glibc
#endif

/// Encodes a movie's web rendering — H.264 in MPEG-4, index first, within a box — in `openphotokit-transcode`, a
/// process of its own in the kernel sandbox (``KernelSandbox``).
///
/// The movie came from anyone (an upload, a card), and encoding it decodes every frame with libavformat and libavcodec:
/// a crash, a hang or an exploit of theirs must not end the process that holds the library (`photos serve` runs the
/// worker in its own process) nor reach the library. The helper sees the movie read-only and the one folder it writes
/// in; it has no network and dies with its host. A helper that crashes or makes no progress for ``stallTimeout`` is
/// killed and the movie reported as not encodable. The helper is found as ``HelperProgram`` finds helpers
/// (`$OPENPHOTOKIT_TRANSCODE`, beside the running program, on `PATH`).
package enum WebVideoEncoder {
    /// The helper's program name.
    package static let helperName = "openphotokit-transcode"
    /// How long the helper may go without progress before it is killed.
    package static let stallTimeout: Duration = .seconds(60)

    /// Why a rendering was not made.
    package enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The helper or the sandbox is missing here (nothing was tried).
        case unavailable(String)
        /// The movie could not be read or encoded (what the helper said).
        case failed(String)
        /// The helper crashed, or was killed after making no progress (the movie is hostile or broken).
        case crashed(String)

        package var description: String {
            switch self {
            case .unavailable(let reason): "web renderings cannot be made here: \(reason)"
            case .failed(let reason): "the movie could not be encoded: \(reason)"
            case .crashed(let reason): "the encoder \(reason) on this movie"
            }
        }
    }

    /// Where the helper is, or nil.
    package static let helperPath: String? = HelperProgram.path(named: helperName, environmentVariable: "OPENPHOTOKIT_TRANSCODE")

    /// Encodes `source` into `output` (a new file in a folder of the caller's that holds nothing else: the helper may
    /// write there), fitting `long` × `short`, the sound as AAC when `audioAsAAC` (else copied where MPEG-4 holds it),
    /// blocking until it is done; `progress` hears 0…1.
    package static func encode(
        _ source: URL, to output: URL, long: Int, short: Int, audioAsAAC: Bool, progress: ((Double) -> Void)? = nil
    ) throws(Failure) {
        guard let helper = helperPath else {
            throw .unavailable("\(helperName) is not installed beside the program (or in $OPENPHOTOKIT_TRANSCODE)")
        }
        let folder = output.deletingLastPathComponent().path
        let launch: (URL, [String])
        do {
            launch = try KernelSandbox.command(
                executable: URL(fileURLWithPath: helper),
                arguments: [source.path, output.path, String(long), String(short), audioAsAAC ? "1" : "0"],
                readOnly: [source.path] + KernelSandbox.swiftRuntimeFolders,
                readWrite: [folder], workingDirectory: folder)
        } catch {
            throw .unavailable("the encoder runs only in a sandbox, and \(error)")
        }
        let process = Process()
        process.executableURL = launch.0
        process.arguments = launch.1
        process.standardInput = FileHandle.nullDevice
        let lines = Pipe()
        let errors = Pipe()
        process.standardOutput = lines
        process.standardError = errors
        do { try KernelSandbox.launch { try process.run() } } catch { throw .unavailable("the encoder could not be started: \(error)") }
        try? lines.fileHandleForWriting.close()
        try? errors.fileHandleForWriting.close()
        // What the sandbox or the helper said on standard error, up to 4 KiB (read on a thread: a full pipe blocks it).
        let said = StandardError(errors)

        var message: String?
        var stalled = false
        var pending = Data()
        let descriptor = lines.fileHandleForReading.fileDescriptor
        var buffer = [UInt8](repeating: 0, count: 4096)
        let timeout = Int32(stallTimeout.components.seconds * 1000)
        reading: while true {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, timeout)
            if ready < 0, errno == EINTR { continue }
            if ready == 0 {
                stalled = true
                kill(process.processIdentifier, SIGKILL)
                break
            }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            pending.append(contentsOf: buffer[..<count])
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending = Data(pending[(newline + 1)...])
                if line.hasPrefix("progress "), let fraction = Double(line.dropFirst(9)) {
                    progress?(min(1, max(0, fraction)))
                } else if line.hasPrefix("error ") {
                    message = String(line.dropFirst(6).prefix(500))
                }
            }
            // A line longer than any the helper writes: it is not itself.
            if pending.count > 1 << 16 {
                kill(process.processIdentifier, SIGKILL)
                break reading
            }
        }
        try? lines.fileHandleForReading.close()
        process.waitUntilExit()
        let diagnostics = said.text()
        if stalled { throw .crashed("made no progress for \(stallTimeout.components.seconds) s and was stopped") }
        if process.terminationReason == .uncaughtSignal {
            throw .crashed("was killed by signal \(process.terminationStatus)")
        }
        guard process.terminationStatus == 0 else {
            if let message { throw .failed(message) }
            throw .crashed("ended with status \(process.terminationStatus)\(diagnostics.isEmpty ? "" : ": \(diagnostics)")")
        }
        guard FileManager.default.fileExists(atPath: output.path) else { throw .crashed("wrote nothing") }
    }

    /// Collects up to 4 KiB of a pipe on a thread of its own, dropping the rest.
    private final class StandardError: @unchecked Sendable {
        private let lock = NSLock()
        private var kept = Data()
        private let done = DispatchSemaphore(value: 0)

        init(_ pipe: Pipe) {
            let handle = pipe.fileHandleForReading
            Thread.detachNewThread { [self] in
                while true {
                    let piece = handle.availableData
                    if piece.isEmpty { break }
                    lock.withLock { if kept.count < 4096 { kept.append(piece.prefix(4096 - kept.count)) } }
                }
                try? handle.close()
                done.signal()
            }
        }

        /// What it kept, once the pipe closed (the process ended).
        func text() -> String {
            _ = done.wait(timeout: .now() + 5)
            return lock.withLock { String(decoding: kept, as: UTF8.self) }.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}
