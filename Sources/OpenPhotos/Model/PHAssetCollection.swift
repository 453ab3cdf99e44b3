import Foundation
import PhotoLibraryEngine

/// A Photos asset grouping: an album, a smart album or a moment.
open class PHAssetCollection: PHCollection, @unchecked Sendable {
    /// For transient collections: their assets' identifiers, in order.
    let transientAssetIdentifiers: [String]?

    override init(record: CollectionRecord, library: PHPhotoLibrary?) {
        self.transientAssetIdentifiers = nil
        super.init(record: record, library: library)
    }

    init(transientWith identifiers: [String], title: String?, library: PHPhotoLibrary?) {
        self.transientAssetIdentifiers = identifiers
        super.init(
            record: CollectionRecord(
                localIdentifier: "\(UUID().uuidString)/L0/040", kind: .assetCollection, type: 1, subtype: 2, title: title,
                startDate: nil, endDate: nil, assetCount: identifiers.count, momentKey: nil),
            library: library)
    }

    /// An empty collection of no library, as `PHAssetCollection()` makes on Apple platforms (ported code builds
    /// placeholders and mocks with it, often as a subclass): no title, no assets, an empty local identifier, a
    /// regular album's type and subtype.
    public convenience init() {
        self.init(
            record: CollectionRecord(
                localIdentifier: "", kind: .assetCollection, type: 1, subtype: 2, title: nil, startDate: nil, endDate: nil,
                assetCount: 0, momentKey: nil),
            library: nil)
    }

    /// Whether the collection exists only in memory.
    var isTransient: Bool { transientAssetIdentifiers != nil }

    /// The type: album, smart album or moment.
    open var assetCollectionType: PHAssetCollectionType { PHAssetCollectionType(rawValue: record.type) ?? .album }
    /// The subtype.
    open var assetCollectionSubtype: PHAssetCollectionSubtype {
        record.isMoment ? .albumRegular : PHAssetCollectionSubtype(rawValue: record.subtype) ?? .smartAlbumGeneric
    }
    /// The number of assets, or `NSNotFound` when it is not quickly available (smart albums).
    open var estimatedAssetCount: Int { record.assetCount ?? NSNotFound }
    /// The earliest creation date among the assets.
    open var startDate: Date? { record.startDate }
    /// The latest creation date among the assets.
    open var endDate: Date? { record.endDate }
    /// A representative location of the assets.
    open var approximateLocation: CLLocation? {
        record.approximateLocation.map { CLLocation(latitude: $0.latitude, longitude: $0.longitude) }
    }
    /// Names of the locations of the assets.
    open var localizedLocationNames: [String] { record.locationNames }

    // MARK: Fetching

    /// Collections by local identifier.
    open class func fetchAssetCollections(withLocalIdentifiers identifiers: [String], options: PHFetchOptions?)
        -> PHFetchResult<PHAssetCollection>
    {
        let library = options?.photoLibrary ?? PHPhotoLibrary.shared()
        return library.refetchable { $0.fetchAssetCollections(withLocalIdentifiers: identifiers, options: options) }
    }

    /// Collections of a type and subtype (`.any` matches every subtype).
    open class func fetchAssetCollections(
        with type: PHAssetCollectionType, subtype: PHAssetCollectionSubtype, options: PHFetchOptions?
    ) -> PHFetchResult<PHAssetCollection> {
        let library = options?.photoLibrary ?? PHPhotoLibrary.shared()
        return library.refetchable { $0.fetchAssetCollections(type: type.rawValue, subtype: subtype, options: options) }
    }

    /// The albums or moments containing an asset (smart albums are not supported, as on Apple platforms).
    open class func fetchAssetCollectionsContaining(
        _ asset: PHAsset, with type: PHAssetCollectionType, options: PHFetchOptions?
    ) -> PHFetchResult<PHAssetCollection> {
        let library = asset.library ?? options?.photoLibrary ?? PHPhotoLibrary.shared()
        return library.refetchable { $0.fetchAssetCollections(containing: asset, type: type.rawValue, options: options) }
    }

    /// Moments in a moment list.
    @available(*, deprecated, message: "Will be removed in a future release")
    open class func fetchMoments(inMomentList momentList: PHCollectionList, options: PHFetchOptions?) -> PHFetchResult<PHAssetCollection> {
        let library = momentList.library ?? options?.photoLibrary ?? PHPhotoLibrary.shared()
        return library.refetchable { $0.fetchMoments(in: momentList, options: options) }
    }

    /// All moments.
    @available(*, deprecated, message: "Will be removed in a future release")
    open class func fetchMoments(with options: PHFetchOptions?) -> PHFetchResult<PHAssetCollection> {
        let library = options?.photoLibrary ?? PHPhotoLibrary.shared()
        return library.refetchable { $0.fetchMoments(in: nil, options: options) }
    }

    /// An in-memory collection of assets, never saved; no change details are delivered for it.
    open class func transientAssetCollection(with assets: [PHAsset], title: String?) -> PHAssetCollection {
        PHAssetCollection(transientWith: assets.map(\.localIdentifier), title: title, library: assets.first?.library)
    }

    /// An in-memory collection of the assets of a fetch result.
    open class func transientAssetCollection(withAssetFetchResult fetchResult: PHFetchResult<PHAsset>, title: String?)
        -> PHAssetCollection
    {
        PHAssetCollection(
            transientWith: fetchResult.localIdentifiers, title: title, library: fetchResult.library)
    }

    open override func canPerform(_ anOperation: PHCollectionEditOperation) -> Bool {
        isTransient ? false : super.canPerform(anOperation)
    }
}
