import Foundation
import PhotoLibraryEngine

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

    /// The transaction the token follows: tokens of one library order by it (package API, for the server's feed).
    package var transactionNumber: Int64 { transaction }

    /// The token as text for URLs and headers: its `Codable` form, base64url (package API, for the server).
    package var wireForm: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return ((try? encoder.encode(self)) ?? Data()).base64URLEncoded
    }

    /// A token from its ``wireForm``; nil for anything else.
    package static func fromWireForm(_ text: String) -> PHPersistentChangeToken? {
        guard text.utf8.count <= 512, let data = Data(base64URLEncoded: text) else { return nil }
        return try? JSONDecoder().decode(PHPersistentChangeToken.self, from: data)
    }

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
