import AsyncHTTPClient
import Dispatch
import NIOCore
import NIOPosix
import ObjectStorage

/// The event loops of this process's object store requests, and the one way the engine waits for them.
///
/// As for PostgreSQL (see `PostgreSQLEventLoops`): the engine is synchronous and may be called on a thread of the
/// process's shared event loop group, so the store's HTTP client has loops of its own, its requests run there as
/// tasks, and the caller waits on a semaphore.
enum S3EventLoops {
    /// Two threads for every library of the process: they move bytes and hash them. Never shut down.
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)

    /// The HTTP client of every object store of the process, on ``group`` (the behaviour of
    /// `S3Client.sharedHTTPClient`: see `S3Client.httpConfiguration`).
    static let http = HTTPClient(eventLoopGroup: group, configuration: S3Client.httpConfiguration)

    /// Runs `operation` as a task on one of ``group``'s loops and blocks the calling thread until it ends.
    static func run<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) throws -> T {
        let loop = group.next()
        precondition(!loop.inEventLoop, "an object store's thread waits for its own request")
        let outcome = Outcome<T>()
        Task(executorPreference: LoopTaskExecutor(loop)) {
            do { outcome.complete(.success(try await operation())) } catch { outcome.complete(.failure(error)) }
        }
        outcome.done.wait()
        return try outcome.result!.get()
    }
}
