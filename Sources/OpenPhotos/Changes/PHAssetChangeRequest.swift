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
    private var output: PHContentEditingOutput?
    private var reverts = false
    /// Whether the asset's content may be edited (`canPerform(.content)`); creation requests may.
    private let canEditContent: Bool
    /// The asset's rating when the request was made (what ``rating`` reads until it is set).
    private let baseRating: PHAsset.Rating
    /// The asset being changed (nil for creation requests): its caption is read only when ``caption`` is.
    private let baseAsset: PHAsset?

    /// Creates a creation request (used by the factory methods; not for direct use).
    public required init(_creatingAssetWithIdentifier identifier: String) {
        self.targetIdentifier = nil
        self.creationIdentifier = identifier
        self.canEditContent = true
        self.baseRating = .unset
        self.baseAsset = nil
        super.init()
    }

    /// A request to change an asset's metadata.
    public init(for asset: PHAsset) {
        self.targetIdentifier = asset.localIdentifier
        self.creationIdentifier = nil
        self.canEditContent = asset.canPerform(.content)
        self.baseRating = asset.rating
        self.baseAsset = asset
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
        creationIdentifier.map {
            let placeholder = PHObjectPlaceholder(localIdentifier: $0, library: context.library)
            placeholder.creationRequest = self
            return placeholder
        }
    }

    /// Whether a creation request adds a video.
    var createsVideo: Bool { resources.contains { $0.type == PHAssetResourceType.video.rawValue } }

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

    /// Reverts the asset's edits (as ``revertAssetContentToOriginal()``) and makes `choice` the original it shows:
    /// the RAW or the JPEG of a RAW + JPEG pair (iOS 27). Choosing the RAW of an asset without one fails the block
    /// with ``PHPhotosError/Code/changeNotSupported``.
    open func revertAssetContent(to choice: PHAsset.OriginalResourceChoice) {
        checkInsideBlock()
        if !canEditContent {
            photoKitMisuse("The asset \(targetIdentifier ?? "") does not allow content editing (check canPerform(.content))")
        }
        if baseAsset?.hasAdjustments == true { reverts = true }
        changes.originalChoice = choice.rawValue
    }

    /// The asset's star rating (iOS 27).
    open var rating: PHAsset.Rating {
        get { changes.rating.flatMap(PHAsset.Rating.init(rawValue:)) ?? baseRating }
        set {
            checkInsideBlock()
            changes.rating = newValue.rawValue
        }
    }

    /// The asset's caption (iOS 27); nil or an empty string removes it. At most 8 KiB of UTF-8: a longer one makes
    /// the block fail with ``PHPhotosError/Code/invalidResource``.
    open var caption: String? {
        get {
            if let caption = changes.caption { return caption }
            return baseAsset?.extendedMetadata.caption
        }
        set {
            checkInsideBlock()
            changes.caption = .some(newValue)
        }
    }

    /// Adds a keyword to the asset (iOS 27), after those it has; one it already has (compared exactly) stays where
    /// it is. Applied to the asset's keywords when the block commits, so keywords added meanwhile by another client
    /// are kept. Surrounding white space is trimmed; an empty keyword, or one over 256 bytes of UTF-8, makes the
    /// block fail with ``PHPhotosError/Code/invalidResource``.
    open func addKeyword(_ keyword: String) {
        checkInsideBlock()
        changes.keywordEdits.append(.add(keyword))
    }

    /// Removes a keyword from the asset (iOS 27); removing one it does not have changes nothing.
    open func removeKeyword(_ keyword: String) {
        checkInsideBlock()
        changes.keywordEdits.append(.remove(keyword))
    }

    /// Turns a Live Photo's video off — it then appears as a still image, ``PHAsset/playbackStyle`` `.image` — or on
    /// again (iOS 27.3). The video is kept either way. Applies to Live Photos only (see
    /// ``PHAsset/canPerform(_:)`` with ``PHAssetEditOperation/setLivePhotoVideoPlaybackEnabled``): for any other
    /// asset the block fails with ``PHPhotosError/Code/changeNotSupported``.
    open func setLivePhotoVideoPlaybackEnabled(_ enabled: Bool) {
        checkInsideBlock()
        changes.livePhotoVideoPlaybackEnabled = enabled
    }

    // MARK: Content

    /// An edit to commit: its rendering becomes the asset's current version and its adjustment data the asset's
    /// recipe; the original stays untouched. One output per request; the block fails with a ``PHPhotosError`` when
    /// the output does not validate (see ``PHContentEditingOutput``).
    open var contentEditingOutput: PHContentEditingOutput? {
        get { output }
        set {
            checkInsideBlock()
            if newValue != nil, !canEditContent {
                photoKitMisuse("The asset \(targetIdentifier ?? "") does not allow content editing (check canPerform(.content))")
            }
            output = newValue
        }
    }

    /// Discards every edit: the asset shows its original again, with its original size; the renderings, the
    /// previous version and the adjustment data are removed when the block commits. Fails the block with
    /// ``PHPhotosError/Code/missingResource`` when the original's file is missing.
    open func revertAssetContentToOriginal() {
        checkInsideBlock()
        if !canEditContent {
            photoKitMisuse("The asset \(targetIdentifier ?? "") does not allow content editing (check canPerform(.content))")
        }
        reverts = true
    }

    override func intents() -> [ChangeIntent] {
        if let creationIdentifier {
            var intents: [ChangeIntent] = [.createAsset(localIdentifier: creationIdentifier, resources: resources, properties: changes)]
            if let output { intents.append(.editAssetContent(localIdentifier: creationIdentifier, output.contentEdit(for: creationIdentifier))) }
            return intents
        }
        guard let targetIdentifier else { return [] }
        var intents: [ChangeIntent] = [.updateAsset(localIdentifier: targetIdentifier, properties: changes)]
        if let output { intents.append(.editAssetContent(localIdentifier: targetIdentifier, output.contentEdit(for: targetIdentifier))) }
        if reverts { intents.append(.revertAssetContent(localIdentifier: targetIdentifier)) }
        return intents
    }
}
