import Foundation

/// An identifier of an asset or collection that stays the same on every device of an iCloud Photos library.
///
/// OpenPhotoKit libraries have no cloud: no local object has a cloud identifier, and no cloud identifier names a
/// local object. The type exists, archives and compares as on Apple platforms so that code that keeps cloud
/// identifiers compiles and runs; ``PHPhotoLibrary/cloudIdentifierMappings(forLocalIdentifiers:)`` and
/// ``PHPhotoLibrary/localIdentifierMappings(for:)`` answer `identifierNotFound` for each identifier.
public final class PHCloudIdentifier: NSObject, NSSecureCoding, @unchecked Sendable {
    /// The identifier as a string to store (iOS 18's name).
    public let archivalStringValue: String

    /// A cloud identifier from a stored string (nil for an empty one).
    public init?(archivalStringValue: String) {
        guard !archivalStringValue.isEmpty else { return nil }
        self.archivalStringValue = archivalStringValue
    }

    /// A cloud identifier from a stored string (the name before iOS 18).
    public init(stringValue: String) {
        self.archivalStringValue = stringValue
    }

    /// The identifier as a string (the name before iOS 18).
    public var stringValue: String { archivalStringValue }

    /// The placeholder older APIs returned for an identifier with no match.
    public static let notFoundIdentifier = PHCloudIdentifier(stringValue: "NotFound")

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(archivalStringValue as NSString, forKey: "archivalStringValue")
    }

    public init?(coder: NSCoder) {
        guard let value = coder.decodeObject(of: NSString.self, forKey: "archivalStringValue") as String? else { return nil }
        self.archivalStringValue = value
    }

    public override func isEqual(_ object: Any?) -> Bool {
        (object as? PHCloudIdentifier)?.archivalStringValue == archivalStringValue
    }

    public override var hash: Int { archivalStringValue.hashValue }

    public override var description: String { "<PHCloudIdentifier: \(archivalStringValue)>" }
}

extension PHPhotoLibrary {
    /// The cloud identifier of each local identifier: on a library without iCloud Photos, `identifierNotFound` for
    /// every one (as Apple answers for objects that were never synced).
    public func cloudIdentifierMappings(forLocalIdentifiers localIdentifiers: [String]) -> [String: Result<PHCloudIdentifier, any Error>] {
        Dictionary(
            localIdentifiers.map { ($0, Result<PHCloudIdentifier, any Error>.failure(Self.notFound($0, "has no cloud identifier"))) },
            uniquingKeysWith: { first, _ in first })
    }

    /// The local identifier of each cloud identifier: on a library without iCloud Photos, `identifierNotFound` for
    /// every one.
    public func localIdentifierMappings(for cloudIdentifiers: [PHCloudIdentifier]) -> [PHCloudIdentifier: Result<String, any Error>] {
        Dictionary(
            cloudIdentifiers.map {
                ($0, Result<String, any Error>.failure(Self.notFound($0.archivalStringValue, "names no object of this library")))
            },
            uniquingKeysWith: { first, _ in first })
    }

    private static func notFound(_ identifier: String, _ what: String) -> PHPhotosError {
        PHPhotosError(
            .identifierNotFound,
            userInfo: [NSLocalizedDescriptionKey: "\(identifier) \(what): this library has no iCloud Photos"])
    }
}
