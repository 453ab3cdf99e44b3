import Foundation

/// The lines a child process writes to a pipe, read as they come (the tests' and benchmarks' helper processes say
/// their port, or that they are ready, a line at a time). Reading blocks: from a test, read in `blockingOffThePool`.
public struct PipeLines: Sendable {
    let handle: FileHandle
    var buffer = Data()

    public init(_ handle: FileHandle) { self.handle = handle }

    /// The next line without its newline; nil once the pipe is closed.
    public mutating func next() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let more = handle.availableData
            if more.isEmpty { return nil }
            buffer.append(more)
        }
    }
}
