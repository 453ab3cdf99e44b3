import Foundation
import PhotoLibraryEngine

/// The error domain of PhotoKit errors, as Apple names it.
public let PHPhotosErrorDomain = "PHPhotosErrorDomain"

/// The user-info key holding the local identifiers an error concerns.
public let PHLocalIdentifiersErrorKey = "PHLocalIdentifiersErrorKey"

/// An error from the Photos framework. Bridges to `NSError` with Apple's domain and codes, so code that matches
/// `(error as NSError).code == 3302` ports unchanged.
///
/// ```swift
/// do {
///     try library.performChangesAndWait { ... }
/// } catch PHPhotosError.invalidResource {
///     // the file was not an image
/// }
/// ```
public struct PHPhotosError: Error, CustomNSError, Hashable, CustomStringConvertible, @unchecked Sendable {
    /// PhotoKit's error codes with Apple's raw values.
    public enum Code: Int, Sendable, Hashable {
        case internalError = -1
        case userCancelled = 3072
        case libraryVolumeOffline = 3114
        case relinquishingLibraryBundleToWriter = 3142
        case switchingSystemPhotoLibrary = 3143
        case networkAccessRequired = 3164
        case networkError = 3169
        case identifierNotFound = 3201
        case multipleIdentifiersFound = 3202
        case changeNotSupported = 3300
        case operationInterrupted = 3301
        case invalidResource = 3302
        case missingResource = 3303
        case notEnoughSpace = 3305
        case requestNotSupportedForAsset = 3306
        case limitExceeded = 3307
        case accessRestricted = 3310
        case accessUserDenied = 3311
        case libraryInFileProviderSyncRoot = 5423
        case persistentChangeTokenExpired = 3105
        case persistentChangeDetailsUnavailable = 3210

        /// Deprecated alias of ``internalError``.
        public static var invalid: Code { .internalError }
    }

    /// The error code.
    public let code: Code
    /// Extra information; `NSLocalizedDescriptionKey` holds the message.
    public let userInfo: [String: Any]

    /// Creates an error with a code and optional user info.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        self.userInfo = userInfo
    }

    package init(_ error: LibraryError) {
        self.init(Code(rawValue: error.code) ?? .internalError, userInfo: [NSLocalizedDescriptionKey: error.message])
    }

    public static var errorDomain: String { PHPhotosErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { userInfo }

    /// The human-readable message.
    public var localizedDescription: String {
        userInfo[NSLocalizedDescriptionKey] as? String ?? "The operation couldn’t be completed. (\(PHPhotosErrorDomain) error \(code.rawValue).)"
    }

    public var description: String { "PHPhotosError(\(code)): \(localizedDescription)" }

    public static func == (lhs: PHPhotosError, rhs: PHPhotosError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public static var internalError: Code { .internalError }
    public static var userCancelled: Code { .userCancelled }
    public static var libraryVolumeOffline: Code { .libraryVolumeOffline }
    public static var relinquishingLibraryBundleToWriter: Code { .relinquishingLibraryBundleToWriter }
    public static var switchingSystemPhotoLibrary: Code { .switchingSystemPhotoLibrary }
    public static var networkAccessRequired: Code { .networkAccessRequired }
    public static var networkError: Code { .networkError }
    public static var identifierNotFound: Code { .identifierNotFound }
    public static var multipleIdentifiersFound: Code { .multipleIdentifiersFound }
    public static var changeNotSupported: Code { .changeNotSupported }
    public static var operationInterrupted: Code { .operationInterrupted }
    public static var invalidResource: Code { .invalidResource }
    public static var missingResource: Code { .missingResource }
    public static var notEnoughSpace: Code { .notEnoughSpace }
    public static var requestNotSupportedForAsset: Code { .requestNotSupportedForAsset }
    public static var limitExceeded: Code { .limitExceeded }
    public static var accessRestricted: Code { .accessRestricted }
    public static var accessUserDenied: Code { .accessUserDenied }
    public static var libraryInFileProviderSyncRoot: Code { .libraryInFileProviderSyncRoot }
    public static var persistentChangeTokenExpired: Code { .persistentChangeTokenExpired }
    public static var persistentChangeDetailsUnavailable: Code { .persistentChangeDetailsUnavailable }
}

extension PHPhotosError.Code {
    /// Matches an error against a code in `catch` patterns: `catch PHPhotosError.invalidResource`.
    public static func ~= (code: PHPhotosError.Code, error: any Error) -> Bool {
        (error as? PHPhotosError)?.code == code
    }
}

/// PhotoKit raises an Objective-C exception for API misuse; on Linux that is a trap with Apple's message.
func photoKitMisuse(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError(message, file: file, line: line)
}
