import Foundation
import OpenPhotos
import Synchronization

/// A one-line error: ArgumentParser prints "Error: <message>" and exits non-zero. File names in it are shown as
/// ``printable(_:)`` makes them.
package struct CLIError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = printable(description) }
}

/// Text from files, the database or the command line made safe for a terminal line: control characters (escape
/// sequences, newlines, carriage returns) and the invisible bidirectional controls (a right-to-left override makes
/// `gpj.exe` read `exe.jpg`) are shown escaped, so a crafted file name can neither drive the terminal, forge output
/// lines nor disguise itself.
package func printable(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
        switch scalar.value {
        case 0x0A: out += "\\n"
        case 0x0D: out += "\\r"
        case 0x09: out += "\\t"
        case 0..<0x20, 0x7F, 0x80..<0xA0: out += String(format: "\\x%02X", scalar.value)
        case 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
            out += String(format: "\\u{%04X}", scalar.value)
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out
}

/// Why a path given on the command line names no file when the reason is its bytes: a name that is not UTF-8 reaches
/// Swift with its bad bytes replaced (U+FFFD), and so names another file. Nil when that is not the case.
package func undecodableArgument(_ argument: String) -> String? {
    guard argument.unicodeScalars.contains("\u{FFFD}"), !FileManager.default.fileExists(atPath: argument) else { return nil }
    for index in 1..<Int(CommandLine.argc) {
        guard let raw = CommandLine.unsafeArgv[index] else { continue }
        let bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(raw).assumingMemoryBound(to: UInt8.self), count: strlen(raw)))
        guard String(validating: bytes, as: UTF8.self) == nil, String(decoding: bytes, as: UTF8.self) == argument else { continue }
        let escaped = bytes.map { $0 < 0x80 && $0 >= 0x20 ? String(UnicodeScalar($0)) : String(format: "\\x%02X", $0) }.joined()
        return "\(escaped): the file name is not valid UTF-8 (shown escaped); rename it to add it"
    }
    return nil
}

/// An error in one line a person can act on: PhotoKit's and AVFoundation's errors with their domain's code.
package func describe(_ error: any Error) -> String {
    if let photos = error as? PHPhotosError { return "\(photos.localizedDescription) (PHPhotosError \(photos.code.rawValue))" }
    if let av = error as? AVError { return "\(av.errorDescription ?? "") (AVError \(av.code.rawValue))" }
    return "\(error)"
}

// MARK: - Waiting
//
// Commands are synchronous: `photos serve` makes SwiftNIO's event loops Swift concurrency's global executor, which
// works only before any task has run, so the entry point cannot be `async` (AsyncParsableCommand). A command waits
// for asynchronous work in one of two ways, and only these: ``waitFor(_:)`` for async functions, and
// ``waitForCallback(_:)`` for APIs that answer through a completion handler (PhotoKit's). Both run the work
// elsewhere (the cooperative pool, the API's queue), never on the waiting thread, so the wait cannot deadlock it.

/// Runs async work from a synchronous command and waits for it.
package func waitFor<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = waitForCallback { (done: @escaping @Sendable (Result<T, any Error>) -> Void) in
        Task {
            do { done(.success(try await work())) } catch { done(.failure(error)) }
        }
    }
    switch outcome {
    case .success(let value): return value
    case .failure(let error as CLIError): throw error
    case .failure(let error): throw CLIError(describe(error))
    }
}

/// Starts an API that answers through a completion handler and waits for its answer (the first, if it answers more
/// than once). `whileWaiting` runs on this thread every `interval` until the answer comes (a command that watches for
/// Ctrl-C while it waits).
package func waitForCallback<T: Sendable>(
    _ start: (_ done: @escaping @Sendable (T) -> Void) -> Void, every interval: DispatchTimeInterval = .milliseconds(50),
    whileWaiting: (() -> Void)? = nil
) -> T {
    let arrived = DispatchSemaphore(value: 0)
    let answer = Mutex<T?>(nil)
    start { value in
        let first = answer.withLock { stored in
            guard stored == nil else { return false }
            stored = value
            return true
        }
        if first { arrived.signal() }
    }
    if let whileWaiting {
        while arrived.wait(timeout: .now() + interval) == .timedOut { whileWaiting() }
    } else {
        arrived.wait()
    }
    return answer.withLock { $0! }
}
