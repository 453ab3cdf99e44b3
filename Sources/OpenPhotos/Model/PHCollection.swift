import Foundation
import PhotoLibraryEngine

/// The abstract base of asset collections and collection lists.
open class PHCollection: PHObject, @unchecked Sendable {
    let record: CollectionRecord

    init(record: CollectionRecord, library: PHPhotoLibrary?) {
        self.record = record
        super.init(localIdentifier: record.localIdentifier, library: library)
    }

    /// Whether the collection can contain assets.
    open var canContainAssets: Bool { record.kind == .assetCollection }
    /// Whether the collection can contain other collections.
    open var canContainCollections: Bool { record.kind == .collectionList }
    /// The collection's title in the user's language.
    open var localizedTitle: String? { record.title }

    /// Whether the collection supports an edit operation.
    open func canPerform(_ anOperation: PHCollectionEditOperation) -> Bool {
        let userOwned = record.isUserAlbum || record.isFolder
        guard userOwned, record.id != nil else { return false }
        switch anOperation {
        case .deleteContent: return record.isUserAlbum
        case .removeContent, .addContent, .rearrangeContent, .createContent, .delete, .rename: return true
        }
    }

    open override var description: String {
        "<\(type(of: self)): \(localIdentifier) title=\(localizedTitle.map { "\"\($0)\"" } ?? "nil")>"
    }

    /// The collections in a collection list (folder children, moments of a moment list, or a transient list's).
    open class func fetchCollections(in collectionList: PHCollectionList, options: PHFetchOptions?) -> PHFetchResult<PHCollection> {
        let library = collectionList.library ?? options?.photoLibrary ?? PHPhotoLibrary.shared()
        return library.refetchable { $0.fetchCollections(in: collectionList, options: options) }
    }

    /// The top level of the user's albums and folders, in the user's order.
    open class func fetchTopLevelUserCollections(with options: PHFetchOptions?) -> PHFetchResult<PHCollection> {
        let library = options?.photoLibrary ?? PHPhotoLibrary.shared()
        return library.refetchable { $0.fetchStoredCollections(.children(of: nil), entity: .collection, options: options) }
    }
}
