import Foundation
import PhotoLibraryEngine
import PhotoMedia

/// A request to create an asset from resources (photo, video, paired video for Live Photos …).
///
/// ```swift
/// try library.performChangesAndWait {
///     let request = PHAssetCreationRequest.forAsset()
///     request.addResource(with: .photo, fileURL: stillURL, options: nil)
///     request.addResource(with: .pairedVideo, fileURL: movieURL, options: nil)
/// }
/// ```
/// Adding a resource always succeeds; the data is imported and validated when the change block runs.
open class PHAssetCreationRequest: PHAssetChangeRequest, @unchecked Sendable {
    /// An empty creation request: add at least one resource before the block returns.
    open class func forAsset() -> Self {
        self.init(_creatingAssetWithIdentifier: LocalIdentifier.newAsset())
    }

    /// Whether a combination of resource types can make an asset (a photo or a video as the primary resource;
    /// a paired video only with a photo; each type once).
    open class func supportsAssetResourceTypes(_ types: [NSNumber]) -> Bool {
        let values = types.map(\.intValue)
        let hasPhoto = values.contains(PHAssetResourceType.photo.rawValue)
        let hasVideo = values.contains(PHAssetResourceType.video.rawValue)
        guard hasPhoto != hasVideo, Set(values).count == values.count else { return false }
        if values.contains(PHAssetResourceType.pairedVideo.rawValue), !hasPhoto { return false }
        let supported: Set<Int> = [1, 2, 3, 4, 9]
        return values.allSatisfy(supported.contains)
    }

    /// Adds a resource from a file.
    open func addResource(with type: PHAssetResourceType, fileURL: URL, options: PHAssetResourceCreationOptions?) {
        checkInsideBlock()
        resources.append(
            ResourceInput(
                type: type.rawValue, source: .file(fileURL, move: options?.shouldMoveFile ?? false),
                originalFilename: options?.originalFilename, uniformTypeIdentifier: options?.uniformTypeIdentifier))
    }

    /// Adds a file an import already staged (copied and hashed) and probed: placed as it is.
    func addStagedResource(with type: PHAssetResourceType, staged: StagedFile, info: MediaInfo, originalFilename: String) {
        checkInsideBlock()
        resources.append(
            ResourceInput(
                type: type.rawValue, source: .staged(staged, info), originalFilename: originalFilename, uniformTypeIdentifier: nil))
    }

    /// Which original of a RAW + JPEG pair (a `.photo` and an `.alternatePhoto` in this request) the asset shows
    /// (iOS 27); `.raw` for an asset without a RAW fails the block with ``PHPhotosError/Code/invalidResource``.
    open var originalResourceChoice: PHAsset.OriginalResourceChoice {
        get { PHAsset.OriginalResourceChoice(rawValue: changes.originalChoice ?? 0) ?? .compressed }
        set {
            checkInsideBlock()
            changes.originalChoice = newValue.rawValue
        }
    }

    /// The device the asset is backed up from (`photos serve`'s backups): committed with the asset.
    package var backupOrigin: AssetOrigin? {
        get { changes.origin }
        set { changes.origin = newValue }
    }

    /// Adds a resource from data in memory.
    open func addResource(with type: PHAssetResourceType, data: Data, options: PHAssetResourceCreationOptions?) {
        checkInsideBlock()
        resources.append(
            ResourceInput(
                type: type.rawValue, source: .data(data), originalFilename: options?.originalFilename,
                uniformTypeIdentifier: options?.uniformTypeIdentifier))
    }
}

/// Options for a resource added to a creation request.
open class PHAssetResourceCreationOptions: NSObject, NSCopying, @unchecked Sendable {
    /// The file name to record (default: the file's name, or a generated one for data).
    open var originalFilename: String?
    /// The uniform type identifier to record (default: inferred from the content).
    open var uniformTypeIdentifier: String?
    /// Move the file into the library instead of copying it (default false). The file is removed only when the
    /// change succeeds; files with other hard links cannot be moved.
    open var shouldMoveFile = false

    public override init() {}

    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = PHAssetResourceCreationOptions()
        copy.originalFilename = originalFilename
        copy.uniformTypeIdentifier = uniformTypeIdentifier
        copy.shouldMoveFile = shouldMoveFile
        return copy
    }
}
