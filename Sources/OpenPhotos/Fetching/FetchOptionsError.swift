import Foundation
import PhotoLibraryEngine

/// The recoverable form of an unusable predicate or sort descriptor: the message names the key or operator
/// and lists the keys PhotoKit supports for the fetched class.
public struct FetchOptionsError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What is wrong, e.g. "Unsupported predicate key 'filename' in a fetch of PHAsset. Supported keys: …".
    public let message: String
    /// The offending key, when the problem is a key.
    public let key: String?

    init(_ error: FetchPredicateError) {
        self.message = error.description
        if case .unsupportedKey(let key, _, _) = error { self.key = key } else { self.key = nil }
    }

    init(message: String, key: String?) {
        self.message = message
        self.key = key
    }

    public var description: String { message }
}
