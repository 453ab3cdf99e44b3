import Dispatch
import NIOCore
import NIOPosix

/// The event loops of this process's PostgreSQL connections, and the one way the store waits for them.
///
/// The engine is synchronous: a read waits for PostgresNIO's replies. It may be called on a thread that runs an event
/// loop of the process's shared group (`photos serve` runs Swift concurrency there), so the connections have loops of
/// their own — a caller never waits for a reply that its own loop would have to read — and waiting is a semaphore,
/// not `EventLoopFuture.wait()`, which refuses every event loop thread.
enum PostgreSQLEventLoops {
    /// Two threads for every library of the process: they only move bytes (decoding rows happens on the caller's
    /// thread). Never shut down: they live as long as the process.
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)

    /// Blocks the calling thread until `future` completes; never called on one of ``group``'s own threads.
    static func wait<T>(_ future: EventLoopFuture<T>) throws -> T {
        precondition(!future.eventLoop.inEventLoop, "a PostgreSQL store's thread waits for its own reply")
        let outcome = Outcome<T>()
        future.whenComplete { result in
            outcome.result = result
            outcome.done.signal()
        }
        outcome.done.wait()
        // The semaphore orders the write before this read.
        return try outcome.result!.get()
    }

    private final class Outcome<T>: @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        var result: Result<T, any Error>?
    }
}
