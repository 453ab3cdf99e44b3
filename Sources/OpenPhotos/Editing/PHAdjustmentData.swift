import Foundation
import PhotoLibraryEngine

/// The recipe of an edit: which editor wrote it (a reverse-DNS format identifier and a version) and its serialized
/// instructions, stored with the asset so that the edit can be reopened and changed later.
///
/// An asset keeps one adjustment data: that of its most recent edit. Apple asks for it to be small — the recipe, not
/// rendered pixels — without giving a number; OpenPhotoKit accepts at most ``maximumDataSize`` bytes and refuses more,
/// like empty data, with a `PHPhotosError` when the edit is committed. The library stores the bytes and never
/// interprets them: only an editor that recognises ``formatIdentifier`` and ``formatVersion`` (its
/// `canHandleAdjustmentData`) reads them.
public final class PHAdjustmentData: NSObject, NSSecureCoding, @unchecked Sendable {
    /// The largest ``data`` committed: 1 MiB — room for any recipe, none for images.
    public static let maximumDataSize = LibraryEngine.maximumAdjustmentDataSize

    /// The editor's format, in reverse-DNS form ("com.example.filters").
    public let formatIdentifier: String
    /// The version of that format ("1.0"); editors bump its major number on incompatible changes.
    public let formatVersion: String
    /// The serialized recipe (must not be empty: Apple suggests an encoded UUID when there is nothing else to say).
    public let data: Data

    /// Adjustment data for an edit.
    public init(formatIdentifier: String, formatVersion: String, data: Data) {
        self.formatIdentifier = formatIdentifier
        self.formatVersion = formatVersion
        self.data = data
    }

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(formatIdentifier as NSString, forKey: "formatIdentifier")
        coder.encode(formatVersion as NSString, forKey: "formatVersion")
        coder.encode(data as NSData, forKey: "data")
    }

    public init?(coder: NSCoder) {
        guard let identifier = coder.decodeObject(of: NSString.self, forKey: "formatIdentifier") as String?,
            let version = coder.decodeObject(of: NSString.self, forKey: "formatVersion") as String?,
            let data = coder.decodeObject(of: NSData.self, forKey: "data") as Data?
        else { return nil }
        self.formatIdentifier = identifier
        self.formatVersion = version
        self.data = data
    }

    /// Equal when the format, version and bytes are.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? PHAdjustmentData else { return false }
        return other.formatIdentifier == formatIdentifier && other.formatVersion == formatVersion && other.data == data
    }

    public override var hash: Int { formatIdentifier.hashValue ^ formatVersion.hashValue ^ data.hashValue }

    public override var description: String {
        "<PHAdjustmentData \(formatIdentifier) \(formatVersion), \(data.count) bytes>"
    }
}
