import Foundation

/// OpenPhotoKit: a typed view of an image result's info dictionary.
public struct ImageResultInfo: Sendable {
    /// `PHImageResultIsDegradedKey`.
    public var isDegraded: Bool
    /// `PHImageResultRequestIDKey`.
    public var requestID: PHImageRequestID
    /// `PHImageCancelledKey`.
    public var isCancelled: Bool
    /// `PHImageResultIsInCloudKey`.
    public var isInCloud: Bool
    /// `PHImageErrorKey`.
    public var error: PHPhotosError?

    /// Reads an info dictionary as the image manager fills it.
    public init(_ info: [AnyHashable: Any]?) {
        isDegraded = (info?[PHImageResultIsDegradedKey] as? Bool) ?? false
        requestID = (info?[PHImageResultRequestIDKey] as? NSNumber)?.int32Value ?? (info?[PHImageResultRequestIDKey] as? Int32) ?? 0
        isCancelled = (info?[PHImageCancelledKey] as? Bool) ?? false
        isInCloud = (info?[PHImageResultIsInCloudKey] as? Bool) ?? false
        error = info?[PHImageErrorKey] as? PHPhotosError
    }
}
