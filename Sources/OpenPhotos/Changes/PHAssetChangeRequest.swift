import Foundation
import PhotoLibraryEngine

/// A request to create, delete or change the metadata of an asset, inside a change block.
///
/// ```swift
/// try PHPhotoLibrary.shared().performChangesAndWait {
///     let request = PHAssetChangeRequest(for: asset)
///     request.isFavorite = true
/// }
/// ```
open class PHAssetChangeRequest: PHChangeRequest, @unchecked Sendable {
    /// The asset being changed, or nil for a creation request.
    let targetIdentifier: String?
    /// The identifier of the asset a creation request creates.
    let creationIdentifier: String?
    var changes = AssetPropertyChanges()
    var resources: [ResourceInput] = []

    /// Creates a creation request (used by the factory methods; not for direct use).
    public required init(_creatingAssetWithIdentifier identifier: String) {
        self.targetIdentifier = nil
        self.creationIdentifier = identifier
        super.init()
    }

    /// A request to change an asset's metadata.
    public init(for asset: PHAsset) {
        self.targetIdentifier = asset.localIdentifier
        self.creationIdentifier = nil
        super.init()
        if !asset.canPerform(.properties) {
            photoKitMisuse("The asset \(asset.localIdentifier) does not allow property changes (check canPerform(.properties))")
        }
    }

    // MARK: Creating assets

    /// A request to add an image to the library. The image's original bytes are stored (an image made in
    /// memory lacks a file's full metadata: prefer ``creationRequestForAssetFromImage(atFileURL:)``).
    open class func creationRequestForAsset(from image: UIImage) -> Self {
        let request = self.init(_creatingAssetWithIdentifier: LocalIdentifier.newAsset())
        let original = image.originalRepresentation
        request.resources = [
            ResourceInput(
                type: PHAssetResourceType.photo.rawValue, source: .data(original.data), originalFilename: nil,
                uniformTypeIdentifier: original.uniformTypeIdentifier)
        ]
        return request
    }

    /// A request to add an image file to the library. The file is imported and validated when the block runs;
    /// an unreadable or non-image file makes the change block fail with ``PHPhotosError/Code/invalidResource``.
    open class func creationRequestForAssetFromImage(atFileURL fileURL: URL) -> Self? {
        let request = self.init(_creatingAssetWithIdentifier: LocalIdentifier.newAsset())
        request.resources = [
            ResourceInput(
                type: PHAssetResourceType.photo.rawValue, source: .file(fileURL, move: false), originalFilename: nil, uniformTypeIdentifier: nil)
        ]
        return request
    }

    /// A request to add a video file to the library.
    open class func creationRequestForAssetFromVideo(atFileURL fileURL: URL) -> Self? {
        let request = self.init(_creatingAssetWithIdentifier: LocalIdentifier.newAsset())
        request.resources = [
            ResourceInput(
                type: PHAssetResourceType.video.rawValue, source: .file(fileURL, move: false), originalFilename: nil, uniformTypeIdentifier: nil)
        ]
        return request
    }

    /// A placeholder for the asset a creation request creates (nil for other requests).
    open var placeholderForCreatedAsset: PHObjectPlaceholder? {
        creationIdentifier.map { PHObjectPlaceholder(localIdentifier: $0, library: context.library) }
    }

    // MARK: Deleting

    /// Requests that assets be deleted: they move to Recently Deleted (deleting from there removes them for good).
    open class func deleteAssets(_ assets: any NSFastEnumeration) {
        _ = FixedIntentRequest([.deleteAssets(assets.photoObjects.map(\.localIdentifier))])
    }

    /// OpenPhotoKit: requests that assets in Recently Deleted be put back.
    open class func recoverAssets(_ assets: any NSFastEnumeration) {
        _ = FixedIntentRequest([.recoverAssets(assets.photoObjects.map(\.localIdentifier))])
    }

    // MARK: Metadata

    /// The capture date.
    open var creationDate: Date? {
        get { changes.creationDate ?? nil }
        set {
            checkInsideBlock()
            changes.creationDate = .some(newValue)
        }
    }

    /// The capture location.
    open var location: CLLocation? {
        get {
            guard case .some(.some(let l)) = changes.location else { return nil }
            return CLLocation(
                coordinate: CLLocationCoordinate2D(latitude: l.latitude, longitude: l.longitude), altitude: l.altitude ?? 0,
                horizontalAccuracy: 0, verticalAccuracy: -1, timestamp: Date())
        }
        set {
            checkInsideBlock()
            changes.location = .some(
                newValue.map { LocationRecord(latitude: $0.coordinate.latitude, longitude: $0.coordinate.longitude, altitude: $0.altitude) })
        }
    }

    /// Whether the asset is a favorite.
    open var isFavorite: Bool {
        get { changes.isFavorite ?? false }
        set {
            checkInsideBlock()
            changes.isFavorite = newValue
        }
    }

    /// Whether the asset is hidden.
    open var isHidden: Bool {
        get { changes.isHidden ?? false }
        set {
            checkInsideBlock()
            changes.isHidden = newValue
        }
    }

    override func intents() -> [ChangeIntent] {
        if let creationIdentifier {
            return [.createAsset(localIdentifier: creationIdentifier, resources: resources, properties: changes)]
        }
        guard let targetIdentifier else { return [] }
        return [.updateAsset(localIdentifier: targetIdentifier, properties: changes)]
    }
}
