import CVipsShims
import Foundation
import Logging

/// Routes what libvips, GLib and the codecs under them print ("VIPS-WARNING **: heifload: ignoring nclx
/// profile", "Premature end of JPEG file", …) into ``PhotosLog/media``, with the file being read when they said
/// it, instead of raw lines on the terminal in the middle of a command's output.
package enum MediaLog {
    /// The file this thread is decoding, for the messages the decoders print meanwhile. A task-local is seen by the
    /// thread that set it only: a message libvips emits from one of its worker threads carries no `file=`.
    @TaskLocal static var currentFile: String?

    /// Runs `body` with `path` named as the file any decoder message belongs to.
    package static func reading<T, E: Error>(_ path: String, _ body: () throws(E) -> T) throws(E) -> T {
        let result: Result<T, E> = $currentFile.withValue(path) {
            do throws(E) { return .success(try body()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Installs the GLib log handler (once; done by ``MediaProbe/initializeLibraries()``).
    static func install() {
        g_log_set_default_handler(
            { domain, level, message, _ in
                let text = message.map { String(cString: $0) } ?? ""
                let source = domain.map { String(cString: $0) } ?? "GLib"
                MediaLog.log(domain: source, flags: Int32(truncatingIfNeeded: level.rawValue), text)
            }, nil)
    }

    static func log(domain: String, flags: Int32, _ text: String) {
        var metadata: Logger.Metadata = ["library": .string(domain)]
        if let file = currentFile { metadata["file"] = .string(file) }
        let message: Logger.Message = "\(text)"
        let level: Logger.Level
        if flags & Int32(G_LOG_LEVEL_ERROR.rawValue | G_LOG_LEVEL_CRITICAL.rawValue) != 0 {
            level = .error
        } else if flags & Int32(G_LOG_LEVEL_WARNING.rawValue) != 0 {
            level = .warning
        } else if flags & Int32(G_LOG_LEVEL_MESSAGE.rawValue) != 0 {
            level = .notice
        } else {
            level = .debug  // GLib's info and debug: hidden by GLib's own handler unless asked for
        }
        PhotosLog.media.log(level: level, message, metadata: metadata)
    }
}
