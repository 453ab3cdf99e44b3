import Dispatch
import Foundation
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

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

    /// Blocks the calling thread until `future` completes — or `connection` closes, the connection the reply was to
    /// come on: PostgresNIO drops a query written to a connection that has just closed (a server that died) without
    /// failing it, and a wait for it would never end. Never called on one of ``group``'s own threads.
    static func wait<T>(_ future: EventLoopFuture<T>, on connection: PostgresConnection? = nil) throws -> T {
        precondition(!future.eventLoop.inEventLoop, "a PostgreSQL store's thread waits for its own reply")
        let outcome = Outcome<T>()
        future.whenComplete { outcome.complete($0) }
        if let connection {
            let watch = closeWatch(of: connection)
            let deadline = watch.deadline(on: connection) { outcome.complete(.failure($0)) }
            defer { deadline?.cancel() }
            watch.whileWaiting({ outcome.complete(.failure(ConnectionClosed())) }) { outcome.done.wait() }
        } else {
            outcome.done.wait()
        }
        return try outcome.result!.get()
    }

    /// Runs `operation` as a task on `connection`'s event loop — not on Swift's cooperative pool, whose threads the
    /// caller may be blocking — and waits for it as for any reply (PostgresNIO's `COPY` has only an async API).
    static func run<T: Sendable>(on connection: PostgresConnection, _ operation: @escaping @Sendable () async throws -> T) throws -> T {
        let promise = connection.eventLoop.makePromise(of: T.self)
        Task(executorPreference: LoopTaskExecutor(connection.eventLoop)) {
            do { promise.succeed(try await operation()) } catch { promise.fail(error) }
        }
        return try wait(promise.futureResult, on: connection)
    }

    /// Each open connection's watch (one callback on its close, registered when it is made, not one per query).
    private static let watches = Mutex<[ObjectIdentifier: CloseWatch]>([:])

    /// Starts watching a new connection's close; a wait for one of its answers ends after `replyTimeout`.
    static func watchClose(of connection: PostgresConnection, replyTimeout: TimeAmount? = nil) {
        let watch = CloseWatch(replyTimeout: replyTimeout)
        let key = ObjectIdentifier(connection)
        watches.withLock { $0[key] = watch }
        connection.closeFuture.whenComplete { _ in
            watches.withLock { _ = $0.removeValue(forKey: key) }
            watch.fire()
        }
    }

    /// The watch of `connection` (a closed one's: already fired).
    static func closeWatch(of connection: PostgresConnection) -> CloseWatch {
        watches.withLock { $0[ObjectIdentifier(connection)] } ?? CloseWatch.fired
    }

    /// The connection ended before its reply came.
    struct ConnectionClosed: Error, CustomStringConvertible {
        var description: String { "the connection to the database server was closed" }
    }

    /// No answer came within the connection's reply timeout; the connection was closed.
    struct NoAnswer: Error, CustomStringConvertible {
        var timeout: TimeAmount
        var description: String {
            "the database server did not answer within \(timeout.nanoseconds / 1_000_000_000) s (the network or the server is gone)"
        }
    }
}

/// Whether a connection closed, and what to do when it does while someone waits on it.
final class CloseWatch: @unchecked Sendable {
    private let lock = NSLock()
    private var closed = false
    private var waiter: (() -> Void)?
    /// How long a wait for one of the connection's answers may last.
    let replyTimeout: TimeAmount?

    init(replyTimeout: TimeAmount? = nil) { self.replyTimeout = replyTimeout }

    /// Arms the reply timeout of a wait on `connection`: unless cancelled first, `expire` is told why and the
    /// connection is closed (which ends every other wait on it).
    func deadline(on connection: PostgresConnection, _ expire: @escaping @Sendable (PostgreSQLEventLoops.NoAnswer) -> Void) -> Scheduled<Void>? {
        guard let replyTimeout else { return nil }
        return connection.eventLoop.scheduleTask(in: replyTimeout) {
            expire(PostgreSQLEventLoops.NoAnswer(timeout: replyTimeout))
            let closing: EventLoopFuture<Void> = connection.close()
            _ = closing
        }
    }

    static var fired: CloseWatch {
        let watch = CloseWatch()
        watch.fire()
        return watch
    }

    /// Runs `wait` with `onClose` called if the connection closes meanwhile (at once if it already has).
    func whileWaiting(_ onClose: @escaping () -> Void, _ wait: () -> Void) {
        let alreadyClosed = lock.withLock { () -> Bool in
            if closed { return true }
            waiter = onClose
            return false
        }
        if alreadyClosed { onClose() }
        wait()
        lock.withLock { waiter = nil }
    }

    func fire() {
        let waiting = lock.withLock { () -> (() -> Void)? in
            closed = true
            defer { waiter = nil }
            return waiter
        }
        waiting?()
    }
}
