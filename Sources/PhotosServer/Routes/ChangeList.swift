import Foundation
import HTTPTypes
import OpenPhotos

/// A list of change requests applied in one `performChangesAndWait`: all of them, or none.
///
/// Each change is `{"op": …, …}`:
/// - `updateAsset` — `asset`, and any of `isFavorite`, `isHidden`, `creationDate` (ISO 8601 or null), `location`
///   (`{"latitude", "longitude", "altitude"}` or null), `rating` (0 unset … 5), `caption` (a string, or null to remove
///   it), `addKeywords` / `removeKeywords` (lists of keywords), `livePhotoVideoPlaybackEnabled` (a Live Photo's video on
///   or off), `originalResourceChoice` (`raw` or `compressed`: which original of a RAW + JPEG pair the asset shows;
///   PhotoKit's `revertAssetContent(to:)`, which also reverts the asset's edit)
/// - `deleteAssets` / `recoverAssets` — `assets` (deleting moves them to Recently Deleted)
/// - `revertAssets` — `assets`: back to their originals
/// - `createAlbum` — `title`, optional `assets` and `folder`; `createFolder` — `title`, optional `folder`
/// - `addToAlbum` / `removeFromAlbum` — `album`, `assets`
/// - `renameCollection` — `collection`, `title`; `deleteCollections` — `collections`
///
/// Every identifier is resolved and every operation checked before anything is applied, so a bad request answers
/// 4xx and changes nothing; a change the library refuses when committing (the client's access level, say) fails
/// the whole block, which the library applies atomically.
struct ChangeList: Sendable {
    static let assetProperties: Set<String> = [
        "isFavorite", "isHidden", "creationDate", "location", "rating", "caption", "addKeywords", "removeKeywords",
        "livePhotoVideoPlaybackEnabled", "originalResourceChoice",
    ]

    /// What an `updateAsset` sets; nil: left as it is.
    private struct AssetEdit {
        var favorite: Bool?
        var hidden: Bool?
        var creationDate: Date??
        var location: CLLocation??
        var rating: PHAsset.Rating?
        var caption: String??
        var addKeywords: [String] = []
        var removeKeywords: [String] = []
        var livePhotoVideoPlaybackEnabled: Bool?
        var originalResourceChoice: PHAsset.OriginalResourceChoice?

        var isEmpty: Bool {
            favorite == nil && hidden == nil && creationDate == nil && location == nil && rating == nil && caption == nil
                && addKeywords.isEmpty && removeKeywords.isEmpty && livePhotoVideoPlaybackEnabled == nil && originalResourceChoice == nil
        }
    }
    static let maximumChanges = 1000

    private enum Planned: @unchecked Sendable {
        case update(PHAsset, AssetEdit)
        case delete([PHAsset])
        case recover([PHAsset])
        case revert([PHAsset])
        case createAlbum(title: String, assets: [PHAsset], folder: PHCollectionList?)
        case createFolder(title: String, folder: PHCollectionList?)
        case add(PHAssetCollection, [PHAsset])
        case remove(PHAssetCollection, [PHAsset])
        case rename(PHCollection, String)
        case deleteCollections(albums: [PHAssetCollection], folders: [PHCollectionList])
    }

    let session: ClientSession
    private var planned: [Planned] = []

    init(session: ClientSession, changes: [[String: Any]]) throws {
        self.session = session
        try session.requireRead()
        guard !changes.isEmpty, changes.count <= Self.maximumChanges else {
            throw APIError.badRequest("a transaction has from 1 to \(Self.maximumChanges) changes")
        }
        for (index, fields) in changes.enumerated() {
            planned.append(try Self.plan(fields, at: index, session: session))
        }
    }

    private static func plan(_ fields: [String: Any], at index: Int, session: ClientSession) throws -> Planned {
        let path = "changes[\(index)]"
        guard let op = fields["op"] as? String else { throw APIError.badRequest("\(path) has no \"op\"") }
        func body(_ allowed: Set<String>) throws -> JSONBody { try JSONBody(fields, allowed: allowed.union(["op"]), path: path) }
        func assets(_ body: JSONBody, _ name: String = "assets", trashed: Bool = false) throws -> [PHAsset] {
            guard let ids = try body.strings(name), !ids.isEmpty else { throw APIError.badRequest("\(path) needs a non-empty \"\(name)\"") }
            return try ids.map { id in
                if trashed {
                    let identifier = try ObjectID.assetIdentifier(id)
                    guard let asset = session.trashedAsset(identifier) else { throw APIError.notFound("\(path): no deleted asset \(identifier)") }
                    return asset
                }
                return try session.asset(id)
            }
        }
        func title(_ body: JSONBody) throws -> String {
            guard let title = try body.string("title"), !title.trimmingCharacters(in: .whitespaces).isEmpty, title.count <= 255 else {
                throw APIError.badRequest("\(path) needs a \"title\" of 1 to 255 characters")
            }
            return title
        }
        func folder(_ body: JSONBody, _ name: String = "folder") throws -> PHCollectionList? {
            guard let id = try body.string(name) else { return nil }
            guard case .folder(let folder) = try CollectionRoutes.object(id, session: session) else {
                throw APIError.badRequest("\(path): \(id) is not a folder")
            }
            return folder
        }
        func album(_ body: JSONBody) throws -> PHAssetCollection {
            guard let id = try body.string("album"), case .album(let album) = try CollectionRoutes.object(id, session: session) else {
                throw APIError.badRequest("\(path) needs an \"album\"")
            }
            guard album.assetCollectionType == .album, album.canPerform(.addContent) else {
                throw APIError(
                    status: .unprocessableContent, domain: PHPhotosErrorDomain, code: PHPhotosError.Code.changeNotSupported.rawValue,
                    message: "\(path): \(album.localizedTitle ?? id) cannot be edited (only albums can)")
            }
            return album
        }

        switch op {
        case "updateAsset":
            let body = try body(assetProperties.union(["asset"]))
            guard let id = try body.string("asset") else { throw APIError.badRequest("\(path) needs an \"asset\"") }
            let asset = try session.asset(id)
            var location: CLLocation??
            if let value = body.fields["location"] {
                if value is NSNull {
                    location = .some(nil)
                } else {
                    guard let object = value as? [String: Any] else { throw APIError.badRequest("\(path): location must be an object or null") }
                    let fields = try JSONBody(object, allowed: ["latitude", "longitude", "altitude"], path: "\(path).location")
                    // Numbers only: true, "48.8" or an altitude of the wrong type are refused, never ignored.
                    func number(_ key: String) -> Double? {
                        guard let value = fields.fields[key] as? NSNumber, !isJSONBoolean(value), value.doubleValue.isFinite else { return nil }
                        return value.doubleValue
                    }
                    guard let latitude = number("latitude"), (-90...90).contains(latitude), let longitude = number("longitude"),
                        (-180...180).contains(longitude)
                    else { throw APIError.badRequest("\(path): location needs latitude (-90…90) and longitude (-180…180)") }
                    if fields.has("altitude"), !(fields.fields["altitude"] is NSNull), number("altitude") == nil {
                        throw APIError.badRequest("\(path): location's altitude must be a number of metres")
                    }
                    let coordinate = CLLocationCoordinate2D(latitude: latitude, longitude: longitude)
                    if let altitude = number("altitude") {
                        location = .some(
                            CLLocation(
                                coordinate: coordinate, altitude: altitude, horizontalAccuracy: 0, verticalAccuracy: 0, timestamp: Date()))
                    } else {
                        location = .some(CLLocation(latitude: latitude, longitude: longitude))
                    }
                }
            }
            var edit = AssetEdit(
                favorite: try body.bool("isFavorite"), hidden: try body.bool("isHidden"), creationDate: try body.date("creationDate"),
                location: location)
            if let value = body.fields["rating"] {
                guard let number = value as? NSNumber, !isJSONBoolean(number), let rating = PHAsset.Rating(rawValue: number.intValue),
                    Double(number.intValue) == number.doubleValue
                else { throw APIError.badRequest("\(path): rating must be a whole number from 0 (unset) to 5") }
                edit.rating = rating
            }
            if let value = body.fields["caption"] {
                if value is NSNull {
                    edit.caption = .some(nil)
                } else {
                    guard let text = value as? String, text.utf8.count <= 8192 else {
                        throw APIError.badRequest("\(path): caption must be a string of at most 8192 bytes, or null")
                    }
                    edit.caption = .some(text)
                }
            }
            edit.addKeywords = try body.strings("addKeywords", limit: 500) ?? []
            edit.removeKeywords = try body.strings("removeKeywords", limit: 500) ?? []
            edit.livePhotoVideoPlaybackEnabled = try body.bool("livePhotoVideoPlaybackEnabled")
            if let value = body.fields["originalResourceChoice"] {
                switch value as? String {
                case "raw": edit.originalResourceChoice = .raw
                case "compressed": edit.originalResourceChoice = .compressed
                default: throw APIError.badRequest("\(path): originalResourceChoice is \"raw\" or \"compressed\"")
                }
            }
            guard !edit.isEmpty else {
                throw APIError.badRequest("\(path) changes nothing; give any of \(assetProperties.sorted().joined(separator: ", "))")
            }
            return .update(asset, edit)
        case "deleteAssets": return .delete(try assets(try body(["assets"])))
        case "recoverAssets": return .recover(try assets(try body(["assets"]), trashed: true))
        case "revertAssets": return .revert(try assets(try body(["assets"])))
        case "createAlbum":
            let body = try body(["title", "assets", "folder"])
            return .createAlbum(title: try title(body), assets: body.has("assets") ? try assets(body) : [], folder: try folder(body))
        case "createFolder":
            let body = try body(["title", "folder"])
            return .createFolder(title: try title(body), folder: try folder(body))
        case "addToAlbum":
            let body = try body(["album", "assets"])
            return .add(try album(body), try assets(body))
        case "removeFromAlbum":
            let body = try body(["album", "assets"])
            return .remove(try album(body), try assets(body))
        case "renameCollection":
            let body = try body(["collection", "title"])
            guard let id = try body.string("collection") else { throw APIError.badRequest("\(path) needs a \"collection\"") }
            let collection: PHCollection
            switch try CollectionRoutes.object(id, session: session) {
            case .album(let album): collection = album
            case .folder(let folder): collection = folder
            }
            guard collection.canPerform(.rename) else {
                throw APIError(
                    status: .unprocessableContent, domain: PHPhotosErrorDomain, code: PHPhotosError.Code.changeNotSupported.rawValue,
                    message: "\(path): \(collection.localizedTitle ?? id) cannot be renamed")
            }
            return .rename(collection, try title(body))
        case "deleteCollections":
            let body = try body(["collections"])
            guard let ids = try body.strings("collections"), !ids.isEmpty else { throw APIError.badRequest("\(path) needs \"collections\"") }
            var albums: [PHAssetCollection] = []
            var folders: [PHCollectionList] = []
            for id in ids {
                switch try CollectionRoutes.object(id, session: session) {
                case .album(let album) where album.canPerform(.delete): albums.append(album)
                case .folder(let folder) where folder.canPerform(.delete): folders.append(folder)
                default:
                    throw APIError(
                        status: .unprocessableContent, domain: PHPhotosErrorDomain, code: PHPhotosError.Code.changeNotSupported.rawValue,
                        message: "\(path): \(id) cannot be deleted")
                }
            }
            return .deleteCollections(albums: albums, folders: folders)
        default:
            throw APIError.badRequest(
                "\(path): unknown op \(op.debugDescription); use updateAsset, deleteAssets, recoverAssets, revertAssets, createAlbum, createFolder, addToAlbum, removeFromAlbum, renameCollection or deleteCollections"
            )
        }
    }

    /// Applies every change in one change block. Returns the local identifiers of what the block created, by the
    /// index of the change that created it.
    func apply() throws -> [Int: String] {
        var created: [Int: String] = [:]
        try session.library.performChangesAndWait {
            for (index, change) in planned.enumerated() {
                switch change {
                case .update(let asset, let edit):
                    let request = PHAssetChangeRequest(for: asset)
                    if let favorite = edit.favorite { request.isFavorite = favorite }
                    if let hidden = edit.hidden { request.isHidden = hidden }
                    if let date = edit.creationDate { request.creationDate = date }
                    if let location = edit.location { request.location = location }
                    if let rating = edit.rating { request.rating = rating }
                    if let caption = edit.caption { request.caption = caption }
                    for keyword in edit.addKeywords { request.addKeyword(keyword) }
                    for keyword in edit.removeKeywords { request.removeKeyword(keyword) }
                    if let enabled = edit.livePhotoVideoPlaybackEnabled { request.setLivePhotoVideoPlaybackEnabled(enabled) }
                    if let choice = edit.originalResourceChoice { request.revertAssetContent(to: choice) }
                case .delete(let assets): PHAssetChangeRequest.deleteAssets(assets as NSArray)
                case .recover(let assets): PHAssetChangeRequest.recoverAssets(assets as NSArray)
                case .revert(let assets): for asset in assets { PHAssetChangeRequest(for: asset).revertAssetContentToOriginal() }
                case .createAlbum(let title, let assets, let folder):
                    let request = PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: title)
                    if !assets.isEmpty { request.addAssets(assets as NSArray) }
                    let placeholder = request.placeholderForCreatedAssetCollection
                    created[index] = placeholder.localIdentifier
                    if let folder { PHCollectionListChangeRequest(for: folder)?.addChildCollections([placeholder] as NSArray) }
                case .createFolder(let title, let folder):
                    let request = PHCollectionListChangeRequest.creationRequestForCollectionList(withTitle: title)
                    let placeholder = request.placeholderForCreatedCollectionList
                    created[index] = placeholder.localIdentifier
                    if let folder { PHCollectionListChangeRequest(for: folder)?.addChildCollections([placeholder] as NSArray) }
                case .add(let album, let assets): PHAssetCollectionChangeRequest(for: album)?.addAssets(assets as NSArray)
                case .remove(let album, let assets): PHAssetCollectionChangeRequest(for: album)?.removeAssets(assets as NSArray)
                case .rename(let collection, let title):
                    if let album = collection as? PHAssetCollection {
                        PHAssetCollectionChangeRequest(for: album)?.title = title
                    } else if let folder = collection as? PHCollectionList {
                        PHCollectionListChangeRequest(for: folder)?.title = title
                    }
                case .deleteCollections(let albums, let folders):
                    if !albums.isEmpty { PHAssetCollectionChangeRequest.deleteAssetCollections(albums as NSArray) }
                    if !folders.isEmpty { PHCollectionListChangeRequest.deleteCollectionLists(folders as NSArray) }
                }
            }
        }
        return created
    }
}
