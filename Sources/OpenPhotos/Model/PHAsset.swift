import Foundation
import PhotoLibraryEngine
import Synchronization

/// A representation of an image, video or Live Photo in the photo library.
///
/// Assets hold metadata only; request image data from ``PHImageManager`` or the files from
/// ``PHAssetResource``. Fetch assets with the class methods in `PHAsset+Fetching.swift`.
open class PHAsset: PHObject, @unchecked Sendable {
    let record: AssetRecord
    /// The extended metadata, once loaded (or prefetched with the asset).
    private let extended: Mutex<ExtendedMetadataRecord?>

    init(record: AssetRecord, library: PHPhotoLibrary?, extendedMetadata: ExtendedMetadataRecord? = nil) {
        self.record = record
        self.extended = Mutex(extendedMetadata)
        super.init(localIdentifier: record.localIdentifier, library: library)
    }

    /// The type of the asset: image, video or audio.
    open var mediaType: PHAssetMediaType { PHAssetMediaType(rawValue: record.mediaType.rawValue) ?? .unknown }
    /// Subtypes such as panorama, HDR, screenshot or Live Photo.
    open var mediaSubtypes: PHAssetMediaSubtype { PHAssetMediaSubtype(rawValue: record.mediaSubtypes) }
    /// How to present the asset, whatever its underlying media.
    open var playbackStyle: PlaybackStyle { PlaybackStyle(rawValue: record.playbackStyle) ?? .unsupported }
    /// The Live Photo effect.
    open var playbackVariation: PlaybackVariation { PlaybackVariation(rawValue: record.playbackVariation) ?? .none }
    /// Width in pixels as displayed (orientation applied).
    open var pixelWidth: Int { record.pixelWidth }
    /// Height in pixels as displayed (orientation applied).
    open var pixelHeight: Int { record.pixelHeight }
    /// The date and time the asset was originally captured (user-editable).
    open var creationDate: Date? { record.creationDate }
    /// The date the asset or any of its properties last changed.
    open var modificationDate: Date? { record.modificationDate }
    /// The date the asset was added to the library.
    open var addedDate: Date? { record.addedDate }
    /// Where the asset was captured.
    open var location: CLLocation? {
        guard let l = record.location else { return nil }
        return CLLocation(
            coordinate: CLLocationCoordinate2D(latitude: l.latitude, longitude: l.longitude), altitude: l.altitude ?? 0,
            horizontalAccuracy: 0, verticalAccuracy: l.altitude == nil ? -1 : 0, timestamp: record.creationDate ?? record.addedDate)
    }
    /// Duration in seconds (0 for photos).
    open var duration: TimeInterval { record.duration }
    /// The uniform type of the image or video data the asset presents (iOS 26): its current version's — an edit's
    /// rendering, else the original's; `.image` or `.movie` when it has none to read.
    open var contentType: UTType {
        PHAssetResource.resource(of: self, version: .current)?.contentType ?? (mediaType == .video ? .movie : .image)
    }
    /// Whether the user hid the asset.
    open var isHidden: Bool { record.isHidden }
    /// Whether the user marked the asset as a favorite.
    open var isFavorite: Bool { record.isFavorite }
    /// The user's star rating (iOS 27); a fetch key (`rating`), as the other scalar properties.
    open var rating: Rating { Rating(rawValue: record.rating) ?? .unset }

    /// Which original of a RAW + JPEG pair the asset shows (iOS 27): image requests for its original (and for its
    /// current version while it has no edit) render the RAW when it is `.raw`. `.compressed` for other assets.
    open var originalResourceChoice: OriginalResourceChoice { record.originalChoice == 1 ? .raw : .compressed }
    /// The caption, keywords and original file name (iOS 27): loaded from the library on first access (one read),
    /// then kept with this object — or loaded with the fetch when its options set
    /// ``PHFetchOptions/prefetchAssetExtendedMetadata``. Empty when the library cannot be read.
    open var extendedMetadata: PHAssetExtendedMetadata {
        if let loaded = extended.withLock({ $0 }) { return PHAssetExtendedMetadata(record: loaded) }
        // Kept only when read: a library that cannot answer now (a database restarting) is asked again next time.
        let read: [Int64: ExtendedMetadataRecord]?
        if let remote = library?.remote {
            read = try? remote.loadAssets([record.id], extendedMetadata: true).extended
        } else {
            read = try? library?.engineIfAvailable?.extendedMetadata([record.id])
        }
        guard let read else { return PHAssetExtendedMetadata() }
        let loaded = read[record.id] ?? ExtendedMetadataRecord(caption: nil, keywords: [], originalFilename: nil)
        return PHAssetExtendedMetadata(
            record: extended.withLock { kept in
                if kept == nil { kept = loaded }
                return kept ?? loaded
            })
    }
    /// The identifier shared by the photos of a burst.
    open var burstIdentifier: String? { record.burstIdentifier }
    /// Whether the photo was picked automatically or by the user in its burst.
    open var burstSelectionTypes: PHAssetBurstSelectionType { PHAssetBurstSelectionType(rawValue: record.burstSelectionTypes) }
    /// Whether the asset is the representative photo of a burst.
    open var representsBurst: Bool { record.representsBurst }
    /// Where the asset comes from.
    open var sourceType: PHAssetSourceType { PHAssetSourceType(rawValue: record.sourceType) }
    /// Whether the asset carries adjustment data.
    open var hasAdjustments: Bool { record.hasAdjustments }
    /// The format identifier of the asset's adjustment data, when adjusted.
    open var adjustmentFormatIdentifier: String? { record.adjustmentFormatIdentifier }
    /// Whether and how the asset was adjusted.
    open var adjustmentsState: AdjustmentsState { record.hasAdjustments ? .userAdjusted : .none }
    /// When the asset's content was last edited — or reverted (iOS 18); nil when it never was.
    open var adjustmentTimestamp: Date? { record.adjustmentTimestamp }

    // MARK: - Content editing (in the class body so subclasses can override)

    /// Prepares the asset for editing and calls `completionHandler` once, on a serial queue of OpenPhotoKit (Apple
    /// uses the main queue; Linux programs rarely run one), with the input — or nil and
    /// ``PHContentEditingInputErrorKey`` or ``PHContentEditingInputCancelledKey`` in the info.
    ///
    /// With `options.canHandleAdjustmentData` accepting the asset's adjustment data, the input is the previous
    /// version with that data; otherwise the current version. Clients with add-only access get
    /// ``PHPhotosError/Code/accessUserDenied``; audio and other assets that are neither photos nor videos get
    /// ``PHPhotosError/Code/requestNotSupportedForAsset``; a missing file gets ``PHPhotosError/Code/missingResource``.
    @discardableResult
    open func requestContentEditingInput(
        with options: PHContentEditingInputRequestOptions?,
        completionHandler: @escaping (PHContentEditingInput?, [AnyHashable: Any]) -> Void
    ) -> PHContentEditingInputRequestID {
        ContentEditingInputRequests.shared.request(self, options: options, completionHandler: completionHandler)
    }

    /// OpenPhotoKit: the editing input, awaited. Cancelling the task cancels the request.
    /// - throws: the ``PHPhotosError`` of ``PHContentEditingInputErrorKey``; `userCancelled` when cancelled.
    public func requestContentEditingInput(with options: PHContentEditingInputRequestOptions?) async throws -> PHContentEditingInput {
        let id = Mutex<PHContentEditingInputRequestID?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<PHContentEditingInput, any Error>) in
                let requestID = requestContentEditingInput(with: options) { input, info in
                    if let input {
                        continuation.resume(returning: input)
                    } else if let error = info[PHContentEditingInputErrorKey] as? any Error {
                        continuation.resume(throwing: error)
                    } else {
                        continuation.resume(throwing: PHPhotosError(.userCancelled))
                    }
                }
                id.withLock { $0 = requestID }
                if Task.isCancelled { cancelContentEditingInputRequest(requestID) }
            }
        } onCancel: {
            if let requestID = id.withLock({ $0 }) { cancelContentEditingInputRequest(requestID) }
        }
    }

    /// Cancels a request for an editing input: its handler is called once with ``PHContentEditingInputCancelledKey``
    /// (unless it already had its answer).
    open func cancelContentEditingInputRequest(_ requestID: PHContentEditingInputRequestID) {
        ContentEditingInputRequests.shared.cancel(requestID)
    }

    /// Whether the asset supports an edit operation. iTunes-synced assets cannot be edited or deleted.
    open func canPerform(_ editOperation: PHAssetEditOperation) -> Bool {
        guard record.sourceType & PHAssetSourceType.typeiTunesSynced.rawValue == 0 else { return false }
        switch editOperation {
        case .delete, .properties: return true
        case .content: return record.mediaType == .image || record.mediaType == .video
        case .setLivePhotoVideoPlaybackEnabled:
            // A Live Photo whose video is there to play: not one whose video an edit without a paired video hid.
            guard mediaSubtypes.contains(.photoLive) else { return false }
            let types = Set(PHAssetResource.assetResources(for: self).map(\.type))
            return types.contains(.pairedVideo) && (!record.hasAdjustments || types.contains(.fullSizePairedVideo))
        }
    }

    // MARK: - Fetching (class methods live in the class body so subclasses can override them)

    /// Assets matching the options; by default only the user's library, hidden assets excluded.
    open class func fetchAssets(with options: PHFetchOptions?) -> PHFetchResult<PHAsset> {
        (options?.photoLibrary ?? PHPhotoLibrary.shared()).fetchAssets(scope: .library, options: options)
    }

    /// Assets of a media type.
    open class func fetchAssets(with mediaType: PHAssetMediaType, options: PHFetchOptions?) -> PHFetchResult<PHAsset> {
        (options?.photoLibrary ?? PHPhotoLibrary.shared()).fetchAssets(scope: .mediaType(mediaType.rawValue), options: options)
    }

    /// Assets by local identifier (hidden assets included by default).
    open class func fetchAssets(withLocalIdentifiers identifiers: [String], options: PHFetchOptions?) -> PHFetchResult<PHAsset> {
        (options?.photoLibrary ?? PHPhotoLibrary.shared()).fetchAssets(scope: .localIdentifiers(identifiers), options: options)
    }

    /// The assets that AssetsLibrary URLs name (deprecated on Apple platforms since iOS 11: use local identifiers).
    /// An `assets-library://asset/asset.JPG?id=UUID&ext=JPG` URL names the asset whose local identifier is
    /// `UUID/L0/001`; other URLs name nothing.
    open class func fetchAssets(withALAssetURLs assetURLs: [URL], options: PHFetchOptions?) -> PHFetchResult<PHAsset> {
        let identifiers = assetURLs.compactMap { url -> String? in
            guard url.scheme == "assets-library",
                let id = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first(where: { $0.name == "id" })?.value,
                UUID(uuidString: id) != nil
            else { return nil }
            return "\(id.uppercased())/L0/001"
        }
        return fetchAssets(withLocalIdentifiers: identifiers, options: options)
    }

    /// The assets of a collection (album order for albums).
    open class func fetchAssets(in assetCollection: PHAssetCollection, options: PHFetchOptions?) -> PHFetchResult<PHAsset> {
        (assetCollection.library ?? options?.photoLibrary ?? PHPhotoLibrary.shared()).fetchAssets(in: assetCollection, options: options)
    }

    /// The photos of a burst: by default the representative and user-picked ones; all with `includeAllBurstAssets`.
    open class func fetchAssets(withBurstIdentifier burstIdentifier: String, options: PHFetchOptions?) -> PHFetchResult<PHAsset> {
        (options?.photoLibrary ?? PHPhotoLibrary.shared()).fetchAssets(scope: .burst(burstIdentifier), options: options)
    }

    /// The key assets of a collection; nil for transient collections.
    open class func fetchKeyAssets(in assetCollection: PHAssetCollection, options: PHFetchOptions?) -> PHFetchResult<PHAsset>? {
        (assetCollection.library ?? options?.photoLibrary ?? PHPhotoLibrary.shared()).fetchKeyAssets(in: assetCollection, options: options)
    }

    /// OpenPhotoKit: when the asset was moved to Recently Deleted (nil when not deleted).
    public var trashedDate: Date? { record.trashedDate }

    /// OpenPhotoKit: the UTC offset of the wall-clock time the asset was captured at, when known.
    public var creationTimeZone: TimeZone? { record.creationTimeZoneOffset.flatMap(TimeZone.init(secondsFromGMT:)) }

    /// Private keys that ported code reads with `value(forKey:)` on Apple platforms (`filename`,
    /// `uniformTypeIdentifier`); unknown keys return nil instead of raising.
    public func value(forKey key: String) -> Any? {
        switch key {
        case "filename": return PHAssetResource.primaryResource(of: self)?.originalFilename
        case "uniformTypeIdentifier": return PHAssetResource.primaryResource(of: self)?.uniformTypeIdentifier
        case "localIdentifier": return localIdentifier
        case "creationDate": return creationDate
        case "modificationDate": return modificationDate
        case "mediaType": return mediaType.rawValue
        case "pixelWidth": return pixelWidth
        case "pixelHeight": return pixelHeight
        case "duration": return duration
        case "favorite", "isFavorite": return isFavorite
        case "hidden", "isHidden": return isHidden
        case "rating": return rating.rawValue
        default: return nil
        }
    }

    open override var description: String {
        "<PHAsset: \(localIdentifier) mediaType=\(mediaType) \(pixelWidth)x\(pixelHeight) creationDate=\(creationDate.map { "\($0)" } ?? "nil")>"
    }
}
