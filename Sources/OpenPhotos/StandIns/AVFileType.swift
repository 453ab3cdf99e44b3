import Foundation

/// AVFoundation's file types: uniform type identifiers of the containers an export can write.
public struct AVFileType: RawRepresentable, Hashable, Sendable {
    /// The uniform type identifier.
    public let rawValue: String

    /// The type with this identifier.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The type with this identifier.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// QuickTime movie (`.mov`).
    public static let mov = AVFileType("com.apple.quicktime-movie")
    /// MPEG-4 (`.mp4`).
    public static let mp4 = AVFileType("public.mpeg-4")
    /// Apple's MPEG-4 video (`.m4v`).
    public static let m4v = AVFileType("com.apple.m4v-video")

    /// The usual file name extension.
    var pathExtension: String {
        switch self {
        case .mp4: "mp4"
        case .m4v: "m4v"
        default: "mov"
        }
    }
}
