import CProcessControl
import Foundation
import KernelSandbox
import OpenPhotos
import PhotoEditingProtocol
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The kernel sandbox every editing extension program runs in (``KernelSandbox``): the system's programs and
/// libraries, the Swift runtime's folder and the extension's own folder read-only, and its session folder — the
/// copies of its input and its output folder — read-write. The library, the host process, the user's home and every
/// other file are not in its world, and it has no network. Where the sandbox cannot start, extensions are not run at
/// all: ``EditingExtensionError/launchFailed(extension:reason:)`` says why.
enum ExtensionSandbox {
    /// The program to start and its arguments, for running `executable` with `arguments` in the sandbox whose
    /// read-write folder is `workspace` (also its working directory).
    static func command(executable: URL, arguments: [String], workspace: URL) throws(EditingExtensionError) -> (URL, [String]) {
        do {
            return try KernelSandbox.command(
                executable: executable, arguments: arguments, readOnly: KernelSandbox.swiftRuntimeFolders, readWrite: [workspace.path],
                workingDirectory: workspace.path)
        } catch {
            throw .launchFailed(extension: executable.lastPathComponent, reason: "extensions run only in a sandbox, and \(error)")
        }
    }

    /// Starts `process` on the sandbox's launcher thread (see ``KernelSandbox/launch(_:)``).
    static func run(_ process: Process) throws {
        try KernelSandbox.launch { try process.runRetryingBusyExecutable() }
    }
}

extension ExtensionSandbox {
    /// The most of an extension's own output (its standard error) kept in its session's log; the rest is read and
    /// dropped, so a chatty extension neither blocks on a full pipe nor fills the disk.
    static let logLimit = 1 << 20

    /// Copies what `pipe` delivers into `log`, up to ``logLimit`` bytes, on a thread of its own until the pipe closes.
    static func capture(_ pipe: Pipe, into log: URL) {
        let source = pipe.fileHandleForReading.fileDescriptor
        let target = open(log.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        Thread.detachNewThread {
            var kept = 0
            var dropped = 0
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
                if n < 0, errno == EINTR { continue }
                if n <= 0 { break }
                let keep = max(0, min(n, logLimit - kept))
                if keep > 0, target >= 0 { _ = buffer.withUnsafeBytes { write(target, $0.baseAddress, keep) } }
                kept += keep
                dropped += n - keep
            }
            if dropped > 0, target >= 0 {
                let note = Array("\n[OpenPhotoKit: \(dropped) more bytes of output were not kept]\n".utf8)
                _ = note.withUnsafeBytes { write(target, $0.baseAddress, $0.count) }
            }
            if target >= 0 { close(target) }
            try? pipe.fileHandleForReading.close()
        }
    }

    /// Copies an extension program into its bundle with a descriptor no child process can inherit: a copy whose
    /// descriptor a concurrently started child keeps open cannot be executed ("Text file busy") while that child lives.
    static func copyProgram(_ source: URL, to target: URL) throws {
        let input = open(source.path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw CocoaError(.fileReadNoPermission, userInfo: [NSFilePathErrorKey: source.path]) }
        defer { close(input) }
        let output = open(target.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        guard output >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: target.path]) }
        var failed = false
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n < 0 { failed = true }
            if n <= 0 { break }
            var offset = 0
            while offset < n {
                let written = buffer.withUnsafeBytes { write(output, $0.baseAddress! + offset, n - offset) }
                if written < 0, errno == EINTR { continue }
                if written <= 0 { failed = true; break }
                offset += written
            }
            if failed { break }
        }
        if fsync(output) != 0 { failed = true }
        close(output)
        if failed {
            unlink(target.path)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target.path])
        }
    }
}
