import Foundation
import PhotoLibraryEngine

/// Options that filter, sort and limit a fetch of Photos objects.
///
/// ```swift
/// let options = PHFetchOptions()
/// options.predicate = NSPredicate(format: "mediaType == %d AND favorite == NO", PHAssetMediaType.image.rawValue)
/// options.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: false)]
/// options.fetchLimit = 100
/// let assets = PHAsset.fetchAssets(with: options)
/// ```
///
/// Only the keys PhotoKit documents can be used (see ``FetchOptionsError``); an unsupported key traps when the
/// fetch runs, as Apple's framework raises. Call ``validate(for:)`` first to handle bad options as errors.
open class PHFetchOptions: NSObject, NSCopying, @unchecked Sendable {
    /// Which objects to include.
    open var predicate: NSPredicate?
    /// The order of the results.
    open var sortDescriptors: [NSSortDescriptor]?
    /// Whether to include assets the user hid (default false).
    open var includeHiddenAssets = false
    /// Whether to include every photo of bursts (default false: representative and user-picked ones).
    open var includeAllBurstAssets = false
    /// Which asset sources to include; empty (the default) infers them from the fetch (the user library).
    open var includeAssetSourceTypes: PHAssetSourceType = []
    /// The largest number of objects to fetch; 0 (the default) means no limit.
    open var fetchLimit = 0
    /// Whether observers receive incremental change details for results of this fetch (default true).
    open var wantsIncrementalChangeDetails = true
    /// Whether the assets' ``PHAsset/extendedMetadata`` is loaded with them (iOS 27; default false: on first access
    /// of each asset's). Set it when a screen shows captions or keywords for every asset it lists: one read per page
    /// of the result instead of one per asset.
    open var prefetchAssetExtendedMetadata = false
    /// OpenPhotoKit: full-text search — only assets whose caption, keywords, original file names or capture date
    /// match (nil, the default, or white space: no search). Each word must match a word, case and accents aside, and
    /// the last one also the words it begins, as a search box is typed ("beach sun" finds "Sunset at the beach");
    /// `IMG_45` finds IMG_4547.JPG; `2019`, `2019-07`, `2019-07-14`
    /// and English month names match the day the asset was taken. It combines with ``predicate`` and sorts as any
    /// fetch (by creation date unless ``sortDescriptors`` say otherwise). Not Apple's: PhotoKit has no search.
    open var searchText: String?
    /// OpenPhotoKit: the library to fetch from (default: the library of the objects passed, else ``PHPhotoLibrary/shared()``).
    open var photoLibrary: PHPhotoLibrary?

    public override init() {}

    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = PHFetchOptions()
        copy.predicate = predicate
        copy.sortDescriptors = sortDescriptors
        copy.includeHiddenAssets = includeHiddenAssets
        copy.includeAllBurstAssets = includeAllBurstAssets
        copy.includeAssetSourceTypes = includeAssetSourceTypes
        copy.fetchLimit = fetchLimit
        copy.wantsIncrementalChangeDetails = wantsIncrementalChangeDetails
        copy.prefetchAssetExtendedMetadata = prefetchAssetExtendedMetadata
        copy.searchText = searchText
        copy.photoLibrary = photoLibrary
        return copy
    }

    /// Checks that the predicate and sort descriptors can be used to fetch objects of a class
    /// (`PHAsset.self`, `PHAssetCollection.self`, `PHCollectionList.self` or `PHCollection.self`).
    /// - throws: ``FetchOptionsError`` naming the unsupported key or operator.
    public func validate(for objectClass: PHObject.Type) throws {
        do {
            let entity: FetchEntity =
                if objectClass == PHAsset.self {
                    .asset
                } else if objectClass == PHAssetCollection.self {
                    .assetCollection
                } else if objectClass == PHCollectionList.self {
                    .collectionList
                } else {
                    .collection
                }
            try Self.spec(from: self).validate(for: entity)
        } catch {
            throw FetchOptionsError(error)
        }
    }

    /// The engine's form of fetch options.
    static func spec(from options: PHFetchOptions?) throws(FetchPredicateError) -> FetchOptionsSpec {
        var spec = FetchOptionsSpec()
        guard let options else { return spec }
        if let predicate = options.predicate {
            spec.predicate = try PredicateArguments.expression(of: predicate)
        }
        for descriptor in options.sortDescriptors ?? [] {
            guard let key = descriptor.photosSortKey else {
                throw .unsupportedPredicate("a sort descriptor without a PhotoKit key (use NSSortDescriptor(key:ascending:))")
            }
            spec.sortKeys.append(SortKey(key: key, ascending: descriptor.ascending))
        }
        spec.includeHiddenAssets = options.includeHiddenAssets
        spec.includeAllBurstAssets = options.includeAllBurstAssets
        spec.includeAssetSourceTypes = options.includeAssetSourceTypes.rawValue
        spec.fetchLimit = max(0, options.fetchLimit)
        spec.search = options.searchText.flatMap(SearchQuery.init)
        return spec
    }
}
