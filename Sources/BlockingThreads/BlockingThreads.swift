import Foundation
import Synchronization

/// Threads for work that blocks: a read transaction stepped for as long as its reader takes, a wait for a server's
/// answer, a synchronous call into the library from a request handler.
///
/// Not Dispatch's global queues: on Linux, libdispatch keeps about one running thread per core and adds one more
/// about once a second while its threads are blocked, so work that waits there makes everything queued behind it wait
/// a second per waiting thread (12 waiting blocks delay a new one by 10 s, 40 by 38 s, measured on 2 cores) — and a
/// block that waits for another block (a read that waits for its stream's first page) can hold the very threads the
/// other needs. Here a job starts at once: on an idle thread, or on a new one while fewer than ``limit`` exist (past
/// it, in order as threads come free). A thread idle for ``idleLifetime`` ends.
package enum BlockingThreads {
    /// At most this many threads; jobs past it wait for one in order.
    package static let limit = 512
    /// How long a thread waits for another job before it ends.
    package static let idleLifetime: TimeInterval = 10

    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var head = 0
        var threads = 0
        var idle = 0
    }
    private static let condition = NSCondition()
    nonisolated(unsafe) private static var state = State()

    /// Runs `job` on a thread of its own for as long as it takes (starting it now).
    package static func run(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        state.jobs.append(job)
        // A new thread unless an idle one is left for this job too (one woken may not have taken its job yet).
        let start = state.jobs.count - state.head > state.idle && state.threads < limit
        if start { state.threads += 1 }
        condition.signal()
        condition.unlock()
        if start { Thread.detachNewThread(work) }
    }

    /// The result of `work`, run on a blocking thread while the caller's task is suspended (no thread of Swift's
    /// cooperative pool, or of an event loop running it, waits meanwhile).
    package static func perform<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            run { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Counts for tests: threads alive and idle among them.
    package static var threads: (alive: Int, idle: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (state.threads, state.idle)
    }

    /// A thread's loop: the oldest job waiting, until none comes for ``idleLifetime``.
    private static func work() {
        condition.lock()
        while true {
            if state.head < state.jobs.count {
                let job = state.jobs[state.head]
                state.head += 1
                if state.head == state.jobs.count {
                    state.jobs.removeAll(keepingCapacity: state.jobs.capacity <= 64)
                    state.head = 0
                }
                condition.unlock()
                job()
                condition.lock()
                continue
            }
            state.idle += 1
            let woken = condition.wait(until: Date(timeIntervalSinceNow: idleLifetime))
            state.idle -= 1
            if !woken, state.head >= state.jobs.count {
                state.threads -= 1
                condition.unlock()
                return
            }
        }
    }
}
