import Foundation
import OpenPhotos

/// Assets in Recently Deleted, which a fetch by identifier leaves out (as PhotoKit's does): the API answers for them
/// (a client may restore one) and the worker renders them (shown again when restored).
enum RecentlyDeleted {
    /// The asset `identifier` if it is in the Recently Deleted album of the library `albumOptions` names, fetched with
    /// `options` (its predicate replaced).
    static func asset(_ identifier: String, options: PHFetchOptions, albumOptions: PHFetchOptions) -> PHAsset? {
        options.predicate = NSPredicate(format: "localIdentifier == %@", identifier)
        guard
            let trash = PHAssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumRecentlyDeleted, options: albumOptions)
                .firstObject
        else { return nil }
        return PHAsset.fetchAssets(in: trash, options: options).firstObject
    }
}
