import Foundation

/// The abstract base of Photos model objects (assets and collections).
///
/// Model objects are immutable snapshots of metadata: change them through change requests inside
/// ``PHPhotoLibrary/performChanges(_:completionHandler:)``. Two objects are equal when their
/// ``localIdentifier``s are — so a fetched asset equals the ``PHObjectPlaceholder`` it was created from.
open class PHObject: NSObject, NSCopying, @unchecked Sendable {
    /// A unique string that persistently identifies the object in this library (`UUID/L0/NNN`).
    public let localIdentifier: String
    /// The library the object was fetched from.
    package let library: PHPhotoLibrary?

    init(localIdentifier: String, library: PHPhotoLibrary?) {
        self.localIdentifier = localIdentifier
        self.library = library
    }

    /// Model objects cannot be created directly; fetch them, or create them with change requests.
    @available(*, unavailable, message: "Fetch PhotoKit objects; they cannot be created directly")
    public override convenience init() {
        fatalError("PHObject cannot be created directly")
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? PHObject else { return false }
        return localIdentifier == other.localIdentifier
    }

    open override var hash: Int { localIdentifier.hashValue }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    open override var description: String { "<\(type(of: self)): \(localIdentifier)>" }
}

/// A read-only proxy for an object created in a change block: use it in the same block (add a new asset to an
/// album) or afterwards (fetch by its ``PHObject/localIdentifier``).
open class PHObjectPlaceholder: PHObject, @unchecked Sendable {
    /// The creation request it stands for, while its change block runs (what an editing output for the new asset
    /// asks about its media).
    weak var creationRequest: PHAssetChangeRequest?
}

/// Local identifiers in Apple's shape: `UUID/L0/NNN`, where the suffix tells the kind of object.
enum LocalIdentifier {
    static func newAsset() -> String { "\(UUID().uuidString)/L0/001" }
    static func newAssetCollection() -> String { "\(UUID().uuidString)/L0/040" }
    static func newCollectionList() -> String { "\(UUID().uuidString)/L0/020" }
}
