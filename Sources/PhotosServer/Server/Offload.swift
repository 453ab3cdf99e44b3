import BlockingThreads

/// Runs blocking work (decoding, encoding, store commits and reads, file I/O through OpenPhotos' synchronous API) on
/// a thread for blocking work (``BlockingThreads``), so that the threads that run the server's Swift concurrency — its
/// event loops, in `photos serve` — keep serving other requests, and a request never waits in line behind another's
/// wait (Dispatch's global queues, on Linux, add about a thread a second while theirs are blocked).
func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await BlockingThreads.perform(work)
}
