import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Ctrl-C. Commands that can stop between steps (import, verify, export, empty-trash) say so with
/// ``cooperate()``: the first Ctrl-C then asks them to stop, and they finish the step in progress, report what was
/// done and exit 130; a second Ctrl-C ends the process at once. Any other command ends at once, exit 130 — which
/// leaves the library consistent too: every write is one transaction, and the next open sweeps what a killed
/// writer staged.
package enum Interruption {
    private static let state = Mutex((cooperative: false, requested: false))
    nonisolated(unsafe) private static var source: (any DispatchSourceSignal)?

    /// The exit status of an interrupted command (128 + SIGINT), as shells expect.
    package static let exitStatus: Int32 = 130

    package static func install() {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            let stopNow = state.withLock { state -> Bool in
                if !state.cooperative || state.requested { return true }
                state.requested = true
                return false
            }
            if stopNow { _exit(exitStatus) }
            FileHandle.standardError.write(Data("\ninterrupted: finishing the current step (Ctrl-C again to stop at once)\n".utf8))
        }
        source.resume()
        Self.source = source
    }

    /// Gives SIGINT back to the command (a server with its own graceful shutdown).
    package static func uninstall() {
        source?.cancel()
        source = nil
        signal(SIGINT, SIG_DFL)
    }

    /// This command stops cleanly between steps when interrupted.
    package static func cooperate() { state.withLock { $0.cooperative = true } }

    /// Forgets an interruption the command chose not to act on (the user declined to cancel).
    package static func clear() { state.withLock { $0.requested = false } }

    /// Whether Ctrl-C asked the command to stop.
    package static var requested: Bool { state.withLock { $0.requested } }
}

/// Progress of long work on standard error: a bar with counts, rate and time left on a terminal; plain lines (at most
/// one every two seconds) when standard error is not a terminal; nothing with `--json`.
package final class ProgressReporter: Sendable {
    private let label: String
    private let unit: String
    private let total: Int
    private let started = Date()
    private let isTerminal: Bool
    private let enabled: Bool
    private let last = Mutex((drawn: Date.distantPast, done: 0))

    package init(_ label: String, total: Int, unit: String, json: Bool) {
        self.label = label
        self.unit = unit
        self.total = total
        isTerminal = isatty(STDERR_FILENO) == 1
        enabled = !json && total > 0
    }

    /// Reports `done` of the total (`bytes` read so far, when known).
    package func update(_ done: Int, bytes: Int64? = nil) {
        guard enabled else { return }
        let now = Date()
        let interval: TimeInterval = isTerminal ? 0.1 : 2
        let shouldDraw = last.withLock { state -> Bool in
            guard done > state.done, now.timeIntervalSince(state.drawn) >= interval || done == total else { return false }
            state = (now, done)
            return true
        }
        guard shouldDraw else { return }
        let elapsed = max(now.timeIntervalSince(started), 0.001)
        let rate = Double(done) / elapsed
        let left = rate > 0 ? Double(total - done) / rate : 0
        let megabytes = bytes.map { String(format: isTerminal ? "  %.0f MB" : ", %.0f MB", Double($0) / 1_000_000) } ?? ""
        if isTerminal {
            let width = 30
            let filled = width * done / max(total, 1)
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            let line = String(
                format: "\r%@ %@ %d/%d %@  %.1f/s%@  %@ left\u{1B}[K", label, bar, done, total, unit, rate, megabytes, Self.duration(left))
            FileHandle.standardError.write(Data(line.utf8))
        } else {
            let line = String(
                format: "%@: %d/%d %@ (%d%%), %.1f/s%@, about %@ left\n", label, done, total, unit, 100 * done / max(total, 1), rate,
                megabytes, Self.duration(left))
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    /// Clears the bar (on a terminal) before the command prints its result.
    package func finish() {
        guard enabled, isTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    package static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? "\(s / 3600) h \(s % 3600 / 60) min" : s >= 60 ? "\(s / 60) min \(s % 60) s" : "\(s) s"
    }
}

/// A progress bar made when the work first says how much there is (the library's progress callbacks give the total
/// with each call), safe to call from any thread.
package final class LazyProgress: Sendable {
    private let label: String
    private let unit: String
    private let json: Bool
    private let reporter = Mutex<ProgressReporter?>(nil)

    package init(_ label: String, unit: String, json: Bool) {
        self.label = label
        self.unit = unit
        self.json = json
    }

    package func update(_ done: Int, of total: Int, bytes: Int64? = nil) {
        let bar = reporter.withLock { bar in
            if bar == nil { bar = ProgressReporter(label, total: total, unit: unit, json: json) }
            return bar!
        }
        bar.update(done, bytes: bytes)
    }

    package func finish() { reporter.withLock { $0 }?.finish() }
}

/// Calls `handler` (on a global queue) at SIGINT or SIGTERM instead of ending the process: a command that runs until
/// it is told to stop (`photos watch`, `photos uploads run`) finishes its work first. Keep the sources returned
/// while the command runs, and cancel them when it is done.
package func onTermination(_ handler: @escaping @Sendable () -> Void) -> [any DispatchSourceSignal] {
    [SIGINT, SIGTERM].map { number in
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler(handler: handler)
        source.resume()
        return source
    }
}
