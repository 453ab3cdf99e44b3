import Foundation
import HTTPTypes
import Hummingbird
import OpenPhotos

/// `/v1/collections`: albums, folders, smart albums and moments; their assets (in keyset pages, as
/// `/v1/assets`), key assets and children. Edits go through `/v1/changes` (or the shortcuts here).
struct CollectionRoutes {
    let services: ServerServices

    enum Object {
        case album(PHAssetCollection)
        case folder(PHCollectionList)
    }

    /// The album, smart album, moment or folder a path component names, as this client may see it.
    static func object(_ id: String, session: ClientSession) throws -> Object {
        try session.requireRead()
        let identifier = try ObjectID.localIdentifier(id)
        if let album = PHAssetCollection.fetchAssetCollections(withLocalIdentifiers: [identifier], options: session.fetchOptions()).firstObject {
            return .album(album)
        }
        if let folder = PHCollectionList.fetchCollectionLists(withLocalIdentifiers: [identifier], options: session.fetchOptions()).firstObject {
            return .folder(folder)
        }
        throw APIError.notFound("no collection \(identifier)")
    }

    /// An asset collection (not a folder).
    static func collection(_ id: String, session: ClientSession) throws -> PHAssetCollection {
        guard case .album(let collection) = try object(id, session: session) else {
            throw APIError.notFound("\(id) is a folder, which has no assets: list its children with /v1/collections/\(id)/children")
        }
        return collection
    }

    func register(on group: RouterGroup<PhotosRequestContext>) {
        group.get("collections") { request, context in
            let session = try context.client()
            try session.requireRead()
            let query = try Query(request, allowed: ["type"])
            let type = query["type"] ?? "album"
            return try await offload {
                let options = session.fetchOptions()
                switch type {
                case "album":
                    return CollectionListJSON(
                        collections: Self.json(PHAssetCollection.fetchAssetCollections(with: .album, subtype: .any, options: options), session))
                case "smartAlbum":
                    return CollectionListJSON(
                        collections: Self.json(PHAssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .any, options: options), session))
                case "moment":
                    // `.moment` is deprecated in PhotoKit's API; its raw value reaches the same fetch without a warning.
                    let moment = PHAssetCollectionType(rawValue: 3)!
                    return CollectionListJSON(
                        collections: Self.json(PHAssetCollection.fetchAssetCollections(with: moment, subtype: .any, options: options), session))
                case "folder":
                    var folders: [CollectionJSON] = []
                    PHCollectionList.fetchCollectionLists(with: .folder, subtype: .any, options: options).enumerateObjects { folder, _, _ in
                        folders.append(CollectionJSON(folder))
                    }
                    return CollectionListJSON(collections: folders)
                case "topLevel":
                    return CollectionListJSON(collections: Self.json(PHCollection.fetchTopLevelUserCollections(with: options)))
                default:
                    throw APIError.badRequest("type must be album, smartAlbum, moment, folder or topLevel")
                }
            }
        }
        group.get("collections/:id") { request, context in
            let session = try context.client()
            let id = try context.parameters.require("id")
            return try await offload {
                switch try Self.object(id, session: session) {
                case .album(let collection): return Self.json(collection, session)
                case .folder(let folder): return CollectionJSON(folder)
                }
            }
        }
        group.get("collections/:id/assets") { request, context in
            try await AssetRoutes(services: services).list(request, context: context, collection: try context.parameters.require("id"))
        }
        group.get("collections/:id/children") { request, context in
            let session = try context.client()
            let id = try context.parameters.require("id")
            return try await offload {
                guard case .folder(let folder) = try Self.object(id, session: session) else {
                    throw APIError.notFound("\(id) is not a folder, so it has no children (its assets are at /v1/collections/\(id)/assets)")
                }
                return CollectionListJSON(collections: Self.json(PHCollection.fetchCollections(in: folder, options: session.fetchOptions())))
            }
        }
    }

    static func json(_ collection: PHAssetCollection, _ session: ClientSession) -> CollectionJSON {
        let key = PHAsset.fetchKeyAssets(in: collection, options: session.fetchOptions())?.firstObject
        return CollectionJSON(collection, keyAsset: key.map { ObjectID.urlForm($0.localIdentifier) })
    }

    static func json(_ result: PHFetchResult<PHAssetCollection>, _ session: ClientSession) -> [CollectionJSON] {
        var items: [CollectionJSON] = []
        result.enumerateObjects { collection, _, _ in items.append(json(collection, session)) }
        return items
    }

    static func json(_ result: PHFetchResult<PHCollection>) -> [CollectionJSON] {
        var items: [CollectionJSON] = []
        result.enumerateObjects { collection, _, _ in
            if let album = collection as? PHAssetCollection {
                items.append(CollectionJSON(album))
            } else if let folder = collection as? PHCollectionList {
                items.append(CollectionJSON(folder))
            }
        }
        return items
    }
}
