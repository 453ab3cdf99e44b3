import Foundation
import OpenPhotos

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

/// Runs async work from a synchronous command and waits for it (the work runs on the cooperative pool, never on this
/// thread, so the wait cannot deadlock it).
package func waitFor<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: Result<T, any Error>?
    Task {
        do { result = .success(try await work()) } catch { result = .failure(error) }
        done.signal()
    }
    done.wait()
    switch result! {
    case .success(let value): return value
    case .failure(let error as CLIError): throw error
    case .failure(let error): throw CLIError(describe(error))
    }
}

/// An error handed from a completion handler to the waiting thread.
package final class LockedError: @unchecked Sendable {
    private let lock = NSLock()
    private var error: (any Error)?
    package init() {}
    package func set(_ error: (any Error)?) { lock.withLock { self.error = error } }
    package func get() -> (any Error)? { lock.withLock { error } }
}
