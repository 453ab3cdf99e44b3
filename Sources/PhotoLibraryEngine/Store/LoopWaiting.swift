import Dispatch
import Foundation
import NIOCore

/// A task executor that runs its jobs on one event loop: async work of a store's client library, started from the
/// engine's synchronous code, runs there — not on Swift's cooperative pool, whose threads the caller may be
/// blocking.
final class LoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop
    init(_ loop: any EventLoop) { self.loop = loop }
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// The result a blocked thread waits for: a semaphore, not `EventLoopFuture.wait()`, which refuses every event loop
/// thread (the engine may be called on one of the process's shared group).
final class Outcome<T>: @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private(set) var result: Result<T, any Error>?

    /// The first completion wins.
    func complete(_ value: Result<T, any Error>) {
        let first = lock.withLock { () -> Bool in
            guard result == nil else { return false }
            result = value
            return true
        }
        if first { done.signal() }
    }
}
