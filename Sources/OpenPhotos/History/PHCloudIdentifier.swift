import Foundation

/// An identifier of an asset or collection that stays the same on every device of an iCloud Photos library.
///
/// In OpenPhotoKit an asset's cloud identifier is the one the device it came from sent when it backed it up to this
/// library (through `photos serve`'s upload-job destination), else the asset's own — so the same photo has the same
/// cloud identifier in the device's library and in the served one, as on the devices of one iCloud Photos library.
/// ``PHPhotoLibrary/cloudIdentifierMappings(forLocalIdentifiers:)`` and ``PHPhotoLibrary/localIdentifierMappings(for:)``
/// answer from what the library stores.
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
    /// The cloud identifier of each local identifier — the same for one photo in every library that holds it: the
    /// one a device sent when it backed the asset up to this library (`photos serve`), else the asset's own (it
    /// was made here). `identifierNotFound` for an identifier of no asset (collections have none).
    public func cloudIdentifierMappings(forLocalIdentifiers localIdentifiers: [String]) -> [String: Result<PHCloudIdentifier, any Error>] {
        let found: [String: String]
        do { found = try storedCloudIdentifiers(forLocalIdentifiers: localIdentifiers) } catch {
            return Dictionary(localIdentifiers.map { ($0, .failure(error)) }, uniquingKeysWith: { first, _ in first })
        }
        return Dictionary(
            localIdentifiers.map { identifier in
                (
                    identifier,
                    found[identifier].map { .success(PHCloudIdentifier(stringValue: $0)) }
                        ?? .failure(Self.notFound(identifier, "names no asset of this library"))
                )
            }, uniquingKeysWith: { first, _ in first })
    }

    /// The local identifier of each cloud identifier: `identifierNotFound` when no asset has it,
    /// `multipleIdentifiersFound` (the candidates in `userInfo[PHLocalIdentifiersErrorKey]`) when several do.
    public func localIdentifierMappings(for cloudIdentifiers: [PHCloudIdentifier]) -> [PHCloudIdentifier: Result<String, any Error>] {
        let found: [String: [String]]
        do { found = try storedLocalIdentifiers(forCloudIdentifiers: cloudIdentifiers.map(\.archivalStringValue)) } catch {
            return Dictionary(cloudIdentifiers.map { ($0, .failure(error)) }, uniquingKeysWith: { first, _ in first })
        }
        return Dictionary(
            cloudIdentifiers.map { cloud -> (PHCloudIdentifier, Result<String, any Error>) in
                let candidates = found[cloud.archivalStringValue] ?? []
                switch candidates.count {
                case 0: return (cloud, .failure(Self.notFound(cloud.archivalStringValue, "names no asset of this library")))
                case 1: return (cloud, .success(candidates[0]))
                default:
                    return (
                        cloud,
                        .failure(
                            PHPhotosError(
                                .multipleIdentifiersFound,
                                userInfo: [
                                    NSLocalizedDescriptionKey: "\(cloud.archivalStringValue) names \(candidates.count) assets",
                                    PHLocalIdentifiersErrorKey: candidates,
                                ]))
                    )
                }
            }, uniquingKeysWith: { first, _ in first })
    }

    private static func notFound(_ identifier: String, _ what: String) -> PHPhotosError {
        PHPhotosError(.identifierNotFound, userInfo: [NSLocalizedDescriptionKey: "\(identifier) \(what)"])
    }
}
