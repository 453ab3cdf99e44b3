import Dispatch
import Foundation
import HTTPTypes
import Hummingbird

/// Runs blocking work (decoding, encoding, SQLite commits, file I/O through OpenPhotos' synchronous API) on a
/// dispatch queue, so that the threads that run the server's Swift concurrency — its event loops, in `photos serve` —
/// keep serving other requests.
func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global(qos: .userInitiated).async { continuation.resume(with: Result { try work() }) }
    }
}
