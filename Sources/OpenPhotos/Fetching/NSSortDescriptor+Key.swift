import Foundation

final class SortKeyRecord: @unchecked Sendable {
    weak var object: NSObject?
    let key: String?

    init(object: NSObject, key: String?) {
        self.object = object
        self.key = key
    }
}

let sortKeyTable = SideTable<SortKeyRecord>(objectOf: { $0.object })

/// A stand-in root for key-path-less sort descriptors (the key is kept in a side table).
private final class SortKeyHolder {
    var value: Int = 0
}

extension NSSortDescriptor {
    /// Creates a sort descriptor by key name, as on Apple platforms (`NSSortDescriptor(key: "creationDate",
    /// ascending: false)`), for PhotoKit fetches. swift-corelibs-foundation has no key-value coding; the key is
    /// resolved by the library's query engine.
    public convenience init(key: String?, ascending: Bool) {
        self.init(keyPath: \SortKeyHolder.value, ascending: ascending)
        sortKeyTable.set(SortKeyRecord(object: self, key: key), for: self)
    }

    /// The key a PhotoKit sort descriptor sorts by (from `init(key:ascending:)` or a key path of `PHAsset` or
    /// a collection class).
    public var photosSortKey: String? {
        if let record = sortKeyTable.get(self) { return record.key }
        return PhotosKeyPaths.name(of: keyPath)
    }
}

/// Key paths of PhotoKit classes that name fetch keys, for `NSSortDescriptor(keyPath:ascending:)`.
enum PhotosKeyPaths {
    static func name(of keyPath: AnyKeyPath) -> String? {
        switch keyPath {
        case \PHObject.localIdentifier: return "localIdentifier"
        case \PHAsset.localIdentifier: return "localIdentifier"
        case \PHAsset.creationDate: return "creationDate"
        case \PHAsset.modificationDate: return "modificationDate"
        case \PHAsset.mediaType: return "mediaType"
        case \PHAsset.mediaSubtypes: return "mediaSubtypes"
        case \PHAsset.duration: return "duration"
        case \PHAsset.pixelWidth: return "pixelWidth"
        case \PHAsset.pixelHeight: return "pixelHeight"
        case \PHAsset.isFavorite: return "favorite"
        case \PHAsset.isHidden: return "hidden"
        case \PHAsset.burstIdentifier: return "burstIdentifier"
        case \PHCollection.localizedTitle: return "localizedTitle"
        case \PHAssetCollection.localizedTitle: return "localizedTitle"
        case \PHAssetCollection.startDate: return "startDate"
        case \PHAssetCollection.endDate: return "endDate"
        case \PHAssetCollection.estimatedAssetCount: return "estimatedAssetCount"
        case \PHCollectionList.localizedTitle: return "localizedTitle"
        case \PHCollectionList.startDate: return "startDate"
        case \PHCollectionList.endDate: return "endDate"
        default: return nil
        }
    }
}
