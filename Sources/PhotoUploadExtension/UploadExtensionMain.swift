import Foundation
import OpenPhotos

#if canImport(Glibc)
    import Glibc
#endif

/// OpenPhotoKit: the entry point of an upload extension program — what iOS does for an app's upload extension,
/// for a program that `UploadExtensionHost` runs in a kernel sandbox.
///
/// ```swift
/// // main.swift of the program
/// import PhotoUploadExtension
/// await UploadExtensionMain.run(MyBackup.self)
/// ```
///
/// The program never sees the library: its host serves it the library over a socket in the program's sandbox, and
/// ``OpenPhotos/PHPhotoLibrary/shared()`` is that served library (`$PHOTOS_LIBRARY`, `$PHOTOS_TOKEN`), with its
/// app's access. The host calls ``OpenPhotos/PHBackgroundResourceUploadJobExtension/processJobs()`` one call at a
/// time on the one instance the program makes, and
/// ``OpenPhotos/PHBackgroundResourceUploadJobExtension/willTerminate()`` before it stops it. What the extension prints
/// goes to the host's log, never into the conversation.
public enum UploadExtensionMain {
    /// Runs `type`'s extension until its host is done with it, then exits the process.
    public static func run(_ type: any PHBackgroundResourceUploadJobExtension.Type) async -> Never {
        // The conversation keeps the real standard output; the extension's own output goes to standard error.
        let conversation = dup(STDOUT_FILENO)
        dup2(STDERR_FILENO, STDOUT_FILENO)
        let instance = Unchecked(value: type.init())
        let (lines, continuation) = AsyncStream<String>.makeStream()
        Thread.detachNewThread {
            while let line = readLine(strippingNewline: true) { continuation.yield(line) }
            continuation.finish()
        }
        for await line in lines {
            switch line {
            case UploadExtensionWire.process:
                let result = await instance.value.processJobs()
                UploadExtensionWire.send(UploadExtensionWire.result(result), to: conversation)
            case UploadExtensionWire.terminate:
                await instance.value.willTerminate()
                UploadExtensionWire.send(UploadExtensionWire.terminated, to: conversation)
                exit(0)
            default:
                FileHandle.standardError.write(Data("upload extension: the host said \(line.prefix(80).debugDescription)\n".utf8))
                exit(2)
            }
        }
        // The host closed the conversation: it is done with the extension.
        exit(0)
    }
}

/// The conversation of an upload extension program with its host: one line each way per call, on the program's
/// standard input and output. Package API: the host's.
package enum UploadExtensionWire {
    /// Host → program: call `processJobs()`; answered by ``result(_:)``.
    package static let process = "process"
    /// Host → program: call `willTerminate()`; answered by ``terminated``, then the program exits.
    package static let terminate = "terminate"
    package static let terminated = "terminated"
    /// The longest line either side reads.
    package static let maximumLine = 256

    /// Program → host: what `processJobs()` returned.
    package static func result(_ result: PHBackgroundResourceUploadProcessingResult) -> String { "result \(result.rawValue)" }

    /// The result a line tells, nil when it tells none.
    package static func result(from line: String) -> PHBackgroundResourceUploadProcessingResult? {
        guard line.hasPrefix("result "), let raw = Int(line.dropFirst(7)) else { return nil }
        return PHBackgroundResourceUploadProcessingResult(rawValue: raw)
    }

    static func send(_ line: String, to descriptor: Int32) {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0, errno == EINTR { continue }
            if written <= 0 { exit(3) }
            offset += written
        }
    }
}

/// The extension's one instance, used by one call at a time.
private struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
}
