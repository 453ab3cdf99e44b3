import Foundation

/// An opaque point in a library's change history (``PHPhotoLibrary/currentChangeToken``).
///
/// Tokens are `Codable` (and `NSSecureCoding`-shaped on Apple platforms): store one, and after a restart ask
/// ``PHPhotoLibrary/fetchPersistentChanges(since:)`` for everything that happened since.
public final class PHPersistentChangeToken: NSObject, NSCopying, Codable, @unchecked Sendable {
    /// The library the token belongs to.
    let libraryUUID: String
    /// The transaction the token follows.
    let transaction: Int64

    init(libraryUUID: String, transaction: Int64) {
        self.libraryUUID = libraryUUID
        self.transaction = transaction
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

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
