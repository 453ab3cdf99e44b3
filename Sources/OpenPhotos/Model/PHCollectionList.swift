import Foundation
import PhotoLibraryEngine

/// A group of collections: a folder of albums, or a list of moments (by year or cluster).
open class PHCollectionList: PHCollection, @unchecked Sendable {
    /// For transient lists: their collections.
    let transientCollections: [PHCollection]?

    override init(record: CollectionRecord, library: PHPhotoLibrary?) {
        self.transientCollections = nil
        super.init(record: record, library: library)
    }

    init(transientWith collections: [PHCollection], title: String?, library: PHPhotoLibrary?) {
        self.transientCollections = collections
        super.init(
            record: CollectionRecord(
                localIdentifier: "\(UUID().uuidString)/L0/020", kind: .collectionList, type: 2, subtype: 100, title: title,
                startDate: nil, endDate: nil, assetCount: nil, momentKey: nil),
            library: library)
    }

    /// The root folder (iOS 27): the one list whose children are the top-level user collections. Its identifier is
    /// the same in every library, as the smart albums' are.
    static let rootFolderIdentifier = "5A4A7A1B-0000-4000-8000-000000000065/L0/020"

    static func rootFolder(library: PHPhotoLibrary?) -> PHCollectionList {
        PHCollectionList(
            record: CollectionRecord(
                localIdentifier: rootFolderIdentifier, kind: .collectionList, type: PHCollectionListType.folder.rawValue,
                subtype: PHCollectionListSubtype.rootFolder.rawValue, title: nil, startDate: nil, endDate: nil, assetCount: nil,
                momentKey: nil),
            library: library)
    }

    /// Whether this is the root folder.
    var isRootFolder: Bool { record.subtype == PHCollectionListSubtype.rootFolder.rawValue && record.id == nil }

    /// The type: folder, smart folder or moment list.
    open var collectionListType: PHCollectionListType { PHCollectionListType(rawValue: record.type) ?? .folder }
    /// The subtype.
    open var collectionListSubtype: PHCollectionListSubtype {
        PHCollectionListSubtype(rawValue: record.subtype) ?? .regularFolder
    }
    /// The earliest date among the collections.
    open var startDate: Date? { record.startDate }
    /// The latest date among the collections.
    open var endDate: Date? { record.endDate }
    /// Names of the locations of the collections.
    open var localizedLocationNames: [String] { record.locationNames }

    open override func canPerform(_ anOperation: PHCollectionEditOperation) -> Bool {
        if isRootFolder {
            // The top level: collections are added, created, removed and rearranged there; it is never renamed or
            // deleted, and holds no assets of its own to delete.
            switch anOperation {
            case .addContent, .createContent, .removeContent, .rearrangeContent: return true
            case .delete, .rename, .deleteContent: return false
            }
        }
        return transientCollections != nil ? false : super.canPerform(anOperation)
    }

    // MARK: Fetching

    /// The lists containing a collection: its folder, or for a moment its year and cluster lists.
    open class func fetchCollectionListsContaining(_ collection: PHCollection, options: PHFetchOptions?)
        -> PHFetchResult<PHCollectionList>
    {
        let library = collection.library ?? options?.photoLibrary ?? PHPhotoLibrary.shared()
        return library.refetchable { $0.fetchCollectionLists(containing: collection, options: options) }
    }

    /// Lists by local identifier.
    open class func fetchCollectionLists(withLocalIdentifiers identifiers: [String], options: PHFetchOptions?)
        -> PHFetchResult<PHCollectionList>
    {
        let library = options?.photoLibrary ?? PHPhotoLibrary.shared()
        return library.refetchable { $0.fetchCollectionLists(withLocalIdentifiers: identifiers, options: options) }
    }

    /// Lists of a type and subtype (`.any` matches every subtype).
    open class func fetchCollectionLists(
        with collectionListType: PHCollectionListType, subtype: PHCollectionListSubtype, options: PHFetchOptions?
    ) -> PHFetchResult<PHCollectionList> {
        let library = options?.photoLibrary ?? PHPhotoLibrary.shared()
        return library.refetchable { $0.fetchCollectionLists(type: collectionListType.rawValue, subtype: subtype.rawValue, options: options) }
    }

    /// Moment lists of a subtype that contain a moment.
    @available(*, deprecated, message: "Will be removed in a future release")
    open class func fetchMomentLists(
        with momentListSubtype: PHCollectionListSubtype, containingMoment moment: PHAssetCollection, options: PHFetchOptions?
    ) -> PHFetchResult<PHCollectionList> {
        let library = moment.library ?? options?.photoLibrary ?? PHPhotoLibrary.shared()
        let containing = library.fetchCollectionLists(containing: moment, options: options)
        return PHFetchResult(objects: containing.allObjects.filter { $0.record.subtype == momentListSubtype.rawValue }, library: library)
    }

    /// Moment lists of a subtype.
    @available(*, deprecated, message: "Will be removed in a future release")
    open class func fetchMomentLists(with momentListSubtype: PHCollectionListSubtype, options: PHFetchOptions?)
        -> PHFetchResult<PHCollectionList>
    {
        let library = options?.photoLibrary ?? PHPhotoLibrary.shared()
        return library.refetchable { $0.fetchCollectionLists(type: 1, subtype: momentListSubtype.rawValue, options: options) }
    }

    /// An in-memory list of collections, never saved.
    open class func transientCollectionList(with collections: [PHCollection], title: String?) -> PHCollectionList {
        PHCollectionList(transientWith: collections, title: title, library: collections.first?.library)
    }

    /// An in-memory list of the collections of a fetch result.
    open class func transientCollectionList(withCollectionsFetchResult fetchResult: PHFetchResult<PHCollection>, title: String?)
        -> PHCollectionList
    {
        PHCollectionList(transientWith: fetchResult.allObjects, title: title, library: fetchResult.library)
    }
}
