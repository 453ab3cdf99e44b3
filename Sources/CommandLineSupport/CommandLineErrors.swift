import Foundation
import OpenPhotos

/// A one-line error: ArgumentParser prints "Error: <message>" and exits non-zero.
package struct CLIError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// An error in one line a person can act on: PhotoKit's and AVFoundation's errors with their domain's code.
package func describe(_ error: any Error) -> String {
    if let photos = error as? PHPhotosError { return "\(photos.localizedDescription) (PHPhotosError \(photos.code.rawValue))" }
    if let av = error as? AVError { return "\(av.errorDescription ?? "") (AVError \(av.code.rawValue))" }
    return "\(error)"
}

/// Runs async work from a synchronous command and waits for it (the work runs on the cooperative pool, never on this
/// thread, so the wait cannot deadlock it).
package func waitFor<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: Result<T, any Error>?
    Task {
        do { result = .success(try await work()) } catch { result = .failure(error) }
        done.signal()
    }
    done.wait()
    switch result! {
    case .success(let value): return value
    case .failure(let error as CLIError): throw error
    case .failure(let error): throw CLIError(describe(error))
    }
}

/// An error handed from a completion handler to the waiting thread.
package final class LockedError: @unchecked Sendable {
    private let lock = NSLock()
    private var error: (any Error)?
    package init() {}
    package func set(_ error: (any Error)?) { lock.withLock { self.error = error } }
    package func get() -> (any Error)? { lock.withLock { error } }
}
