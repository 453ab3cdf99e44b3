import Foundation
import HTTPTypes
import Hummingbird
import OpenPhotos

/// A `PHAssetCollection` or `PHCollectionList` as the API gives it.
struct CollectionJSON: ResponseEncodable, Equatable {
    var id: String
    var localIdentifier: String
    /// album, smartAlbum, moment or folder.
    var kind: String
    /// PhotoKit's subtype raw value (`PHAssetCollectionSubtype` / `PHCollectionListSubtype`).
    var subtype: Int
    var title: String?
    var estimatedAssetCount: Int?
    var startDate: Date?
    var endDate: Date?
    var locationNames: [String]?
    var canAddAssets: Bool
    var canRename: Bool
    var canDelete: Bool
    var keyAsset: String?

    init(_ collection: PHAssetCollection, keyAsset: String? = nil) {
        id = ObjectID.urlForm(collection.localIdentifier)
        localIdentifier = collection.localIdentifier
        kind =
            switch collection.assetCollectionType {
            case .album: "album"
            case .smartAlbum: "smartAlbum"
            default: "moment"
            }
        subtype = collection.assetCollectionSubtype.rawValue
        title = collection.localizedTitle
        estimatedAssetCount = collection.estimatedAssetCount == NSNotFound ? nil : collection.estimatedAssetCount
        startDate = collection.startDate
        endDate = collection.endDate
        locationNames = collection.localizedLocationNames.isEmpty ? nil : collection.localizedLocationNames
        canAddAssets = collection.canPerform(.addContent)
        canRename = collection.canPerform(.rename)
        canDelete = collection.canPerform(.delete)
        self.keyAsset = keyAsset
    }

    init(_ folder: PHCollectionList) {
        id = ObjectID.urlForm(folder.localIdentifier)
        localIdentifier = folder.localIdentifier
        kind = "folder"
        subtype = folder.collectionListSubtype.rawValue
        title = folder.localizedTitle
        startDate = folder.startDate
        endDate = folder.endDate
        canAddAssets = false
        canRename = folder.canPerform(.rename)
        canDelete = folder.canPerform(.delete)
    }
}

struct CollectionListJSON: ResponseEncodable {
    var collections: [CollectionJSON]
}
