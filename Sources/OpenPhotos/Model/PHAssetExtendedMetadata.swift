import Foundation
import PhotoLibraryEngine

/// An asset's attributes that a fetch of ``PHAsset`` does not load (iOS 27): its caption, keywords and original file
/// name.
///
/// Read it from ``PHAsset/extendedMetadata``: the first access loads it from the library (one read) and the asset
/// keeps it; a fetch with ``PHFetchOptions/prefetchAssetExtendedMetadata`` loads it with each page of assets. Like
/// the asset, it is a snapshot: it does not change when the library does. Change it with
/// ``PHAssetChangeRequest/caption``, ``PHAssetChangeRequest/addKeyword(_:)`` and
/// ``PHAssetChangeRequest/removeKeyword(_:)``.
open class PHAssetExtendedMetadata: NSObject, @unchecked Sendable {
    let record: ExtendedMetadataRecord

    /// Empty metadata (no caption, no keywords, no file name).
    public override convenience init() {
        self.init(record: ExtendedMetadataRecord(caption: nil, keywords: [], originalFilename: nil))
    }

    init(record: ExtendedMetadataRecord) {
        self.record = record
        super.init()
    }

    /// The compact description of the asset; nil when it has none.
    open var caption: String? { record.caption }
    /// The keywords of the asset, in the order they were added.
    open var keywords: [String] { record.keywords }
    /// The original file name of the asset (its photo's or video's, as imported or created).
    open var originalFilename: String? { record.originalFilename }
    /// The same as ``originalFilename``: Apple's reference spells the property both ways (`originalFileName` on its
    /// symbol page, `originalFilename` in the SDK's interface), so ported code compiles with either.
    open var originalFileName: String? { record.originalFilename }

    open override func isEqual(_ object: Any?) -> Bool {
        (object as? PHAssetExtendedMetadata)?.record == record
    }

    open override var hash: Int { record.hashValue }

    open override var description: String {
        "<PHAssetExtendedMetadata: caption=\(caption.map { "\"\($0)\"" } ?? "nil") keywords=\(keywords) originalFilename=\(originalFilename ?? "nil")>"
    }
}
