import Foundation

/// An opaque point in a library's change history (``PHPhotoLibrary/currentChangeToken``).
///
/// Tokens are `Codable` and `NSSecureCoding`, as on Apple platforms (apps keep them with `NSKeyedArchiver`): store
/// one, and after a restart ask ``PHPhotoLibrary/fetchPersistentChanges(since:)`` for everything that happened since.
public final class PHPersistentChangeToken: NSObject, NSCopying, NSSecureCoding, Codable, @unchecked Sendable {
    /// The library the token belongs to.
    let libraryUUID: String
    /// The transaction the token follows.
    let transaction: Int64

    init(libraryUUID: String, transaction: Int64) {
        self.libraryUUID = libraryUUID
        self.transaction = transaction
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    // MARK: NSSecureCoding

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(libraryUUID as NSString, forKey: CodingKeys.libraryUUID.rawValue)
        coder.encode(transaction, forKey: CodingKeys.transaction.rawValue)
    }

    /// Decodes a token archived with `NSKeyedArchiver`; nil (and the coder's error) when the archive is not one.
    public init?(coder: NSCoder) {
        guard let library = coder.decodeObject(of: NSString.self, forKey: CodingKeys.libraryUUID.rawValue) as String?,
            coder.containsValue(forKey: CodingKeys.transaction.rawValue)
        else { return nil }
        self.libraryUUID = library
        self.transaction = coder.decodeInt64(forKey: CodingKeys.transaction.rawValue)
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? PHPersistentChangeToken else { return false }
        return other.libraryUUID == libraryUUID && other.transaction == transaction
    }

    public override var hash: Int { libraryUUID.hashValue ^ transaction.hashValue }

    public override var description: String { "<PHPersistentChangeToken: \(libraryUUID) #\(transaction)>" }

    enum CodingKeys: String, CodingKey {
        case libraryUUID = "library"
        case transaction
    }
}
