import Foundation

/// An engine failure, carrying the PhotoKit error code (`PHPhotosError.Code` raw value) it surfaces as.
package struct LibraryError: Error, Sendable, Equatable, CustomStringConvertible {
    package var code: Int
    package var message: String
    /// The transaction may or may not have committed (the connection to a database server ended during `COMMIT`):
    /// what it placed must be left for its intent journal to decide, never undone blindly.
    package var commitOutcomeUnknown = false

    package init(code: Int, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }

    package static func internalError(_ m: String) -> LibraryError { .init(code: -1, m) }
    package static func changeNotSupported(_ m: String) -> LibraryError { .init(code: 3300, m) }
    package static func invalidResource(_ m: String) -> LibraryError { .init(code: 3302, m) }
    package static func missingResource(_ m: String) -> LibraryError { .init(code: 3303, m) }
    package static func notEnoughSpace(_ m: String) -> LibraryError { .init(code: 3305, m) }
    package static func requestNotSupportedForAsset(_ m: String) -> LibraryError { .init(code: 3306, m) }
    package static func accessRestricted(_ m: String) -> LibraryError { .init(code: 3310, m) }
    package static func accessUserDenied(_ m: String) -> LibraryError { .init(code: 3311, m) }
    package static func identifierNotFound(_ m: String) -> LibraryError { .init(code: 3201, m) }
    package static func libraryVolumeOffline(_ m: String) -> LibraryError { .init(code: 3114, m) }
    package static func commitOutcomeUnknown(_ m: String) -> LibraryError {
        var error = LibraryError(code: 3114, m)
        error.commitOutcomeUnknown = true
        return error
    }
    package static func persistentChangeTokenExpired(_ m: String) -> LibraryError { .init(code: 3105, m) }
    /// The caller stopped the work (`PHPhotosError.userCancelled`).
    package static func userCancelled(_ m: String) -> LibraryError { .init(code: 3072, m) }
    /// A resource that is not local could not be fetched (`PHPhotosError.networkError`).
    package static func networkError(_ m: String) -> LibraryError { .init(code: 3169, m) }
    /// A resource is not local and the request did not allow the network (`PHPhotosError.networkAccessRequired`).
    package static func networkAccessRequired(_ m: String) -> LibraryError { .init(code: 3164, m) }
}
