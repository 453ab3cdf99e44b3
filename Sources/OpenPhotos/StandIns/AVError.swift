import Foundation

/// The error domain of AVFoundation.
public let AVFoundationErrorDomain = "AVFoundationErrorDomain"

/// AVFoundation's errors, with Apple's codes, for the video stand-ins (``AVAssetExportSession``).
///
/// Match a code the way ported code does: `catch AVError.fileAlreadyExists` or `(error as? AVError)?.code`.
public struct AVError: CustomNSError, Hashable, Sendable, LocalizedError {
    /// Apple's error codes (raw values as Apple's `AVError.Code`).
    public enum Code: Int, Sendable {
        /// An unknown error.
        case unknown = -11800
        /// The export could not be completed.
        case exportFailed = -11820
        /// The source media could not be decoded.
        case decodeFailed = -11821
        /// The source media is damaged or unreadable.
        case invalidSourceMedia = -11822
        /// The output file exists; an export never overwrites one.
        case fileAlreadyExists = -11823
        /// The file format is not recognised.
        case fileFormatNotRecognized = -11828
        /// The operation is not supported for this asset (for example a file type its streams cannot go into).
        case operationNotSupportedForAsset = -11838
        /// The operation was cancelled.
        case operationCancelled = -11878
    }

    /// The code.
    public let code: Code
    /// What went wrong, in words.
    public let reason: String

    /// An error with `code`, described by `reason`.
    public init(_ code: Code, reason: String = "") {
        self.code = code
        self.reason = reason
    }

    /// `AVFoundationErrorDomain`.
    public static var errorDomain: String { AVFoundationErrorDomain }
    /// The code's raw value.
    public var errorCode: Int { code.rawValue }
    /// The reason under `NSLocalizedDescriptionKey`.
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: errorDescription ?? ""] }
    /// The reason, or the code's name.
    public var errorDescription: String? { reason.isEmpty ? "AVFoundation error \(code.rawValue) (\(code))" : reason }

    /// An unknown error.
    public static var unknown: Code { .unknown }
    /// The export could not be completed.
    public static var exportFailed: Code { .exportFailed }
    /// The source media could not be decoded.
    public static var decodeFailed: Code { .decodeFailed }
    /// The source media is damaged or unreadable.
    public static var invalidSourceMedia: Code { .invalidSourceMedia }
    /// The output file exists.
    public static var fileAlreadyExists: Code { .fileAlreadyExists }
    /// The file format is not recognised.
    public static var fileFormatNotRecognized: Code { .fileFormatNotRecognized }
    /// The operation is not supported for this asset.
    public static var operationNotSupportedForAsset: Code { .operationNotSupportedForAsset }
    /// The operation was cancelled.
    public static var operationCancelled: Code { .operationCancelled }
}

/// Matches an error against an ``AVError/Code`` in `catch` clauses and `switch` cases.
public func ~= (code: AVError.Code, error: any Error) -> Bool {
    (error as? AVError)?.code == code
}
