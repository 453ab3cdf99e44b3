import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// swift-log's lines on standard error, formatted like `StreamLogHandler`'s, but only when a line is written:
/// setting metadata (the server does it for every request) costs a dictionary store, not a re-rendering of every
/// key, so a server logging at `warning` pays nothing per request for the log lines it does not write.
struct StandardErrorLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.metadataProvider = metadataProvider
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { $1 } }
        if let extra = event.metadata { all.merge(extra) { $1 } }
        let fields = all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let line = "\(Self.timestamp()) \(event.level) \(label):\(fields) \(event.message)\n"
        // One write(2) per line: lines of concurrent threads never interleave.
        line.utf8CString.withUnsafeBufferPointer { buffer in
            var offset = 0
            let count = buffer.count - 1
            while offset < count {
                let written = write(2, buffer.baseAddress! + offset, count - offset)
                if written <= 0 { break }
                offset += written
            }
        }
    }

    private static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let length = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
