import Foundation
import Synchronization

/// One at a time, across every suite of the test process: tests that run many processes at once — a browser, a
/// cluster of servers on hosts of their own — each take the machine's cores for a minute or two; run side by side on
/// a small machine, they starve each other (a browser's page waited more than 20 s for a server answering in
/// milliseconds). Tests opt in with a trait of their target that runs their body through ``run(_:)``.
public final class HeavyTestGate: Sendable {
    /// The process's gate.
    public static let shared = HeavyTestGate()

    private let state = Mutex<(busy: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    /// Runs `body` when no other heavy test runs, holding the gate until it ends.
    public func run<T>(_ body: () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { continuation in
            let granted = state.withLock { state -> Bool in
                if !state.busy {
                    state.busy = true
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
