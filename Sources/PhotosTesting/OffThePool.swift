import Foundation

/// Runs a long blocking body (a campaign of child processes that waits, sleeps and kills) on a thread of its own and
/// awaits its result, so that it holds none of Swift concurrency's few cooperative threads: tests that serve HTTP in
/// the same process need them meanwhile, and would time out waiting.
public func blockingOffThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}
