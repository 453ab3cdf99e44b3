import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OpenPhotos

/// `/v1/assets`: fetches with PhotoKit's predicates and sort keys in keyset pages, one asset with its resources,
/// property changes, delete to Recently Deleted and recover.
struct AssetRoutes {
    let services: ServerServices

    func register(on group: RouterGroup<PhotosRequestContext>) {
        group.get("assets") { request, context in try await list(request, context: context, collection: nil) }
        group.get("assets/:id") { request, context in
            let session = try context.client()
            let id = try context.parameters.require("id")
            return try await offload {
                let asset = try session.asset(id, includeTrashed: true)
                return AssetJSON(asset, resources: PHAssetResource.assetResources(for: asset))
            }
        }
        group.patch("assets/:id") { request, context in
            let session = try context.client()
            let id = try context.parameters.require("id")
            let body = try await JSONBody(request, context: context, allowed: ChangeList.assetProperties)
            var fields = body.fields
            fields["op"] = "updateAsset"
            fields["asset"] = id
            let changes = try ChangeList(session: session, changes: [fields])
            return try await offload {
                _ = try changes.apply()
                let asset = try session.asset(id, includeTrashed: true)
                return AssetJSON(asset, resources: PHAssetResource.assetResources(for: asset))
            }
        }
        group.delete("assets/:id") { request, context in
            let session = try context.client()
            let id = try context.parameters.require("id")
            let changes = try ChangeList(session: session, changes: [["op": "deleteAssets", "assets": [id]]])
            _ = try await offload { try changes.apply() }
            return Response(status: .noContent)
        }
        group.post("assets/:id/recover") { request, context in
            let session = try context.client()
            let id = try context.parameters.require("id")
            let changes = try ChangeList(session: session, changes: [["op": "recoverAssets", "assets": [id]]])
            return try await offload {
                _ = try changes.apply()
                let asset = try session.asset(id)
                return AssetJSON(asset, resources: PHAssetResource.assetResources(for: asset))
            }
        }
    }

    static let listParameters: Set<String> = [
        "predicate", "sort", "limit", "cursor", "includeHidden", "includeAllBurstAssets", "mediaType", "resources", "q",
    ]

    /// The fetch options a request's parameters say (`predicate`, `mediaType`, `q`, `sort`, `includeHidden`,
    /// `includeAllBurstAssets`), checked.
    static func fetchOptions(_ query: Query, session: ClientSession, predicateLimit: Int = 4096) throws -> PHFetchOptions {
        let options = session.fetchOptions()
        options.includeHiddenAssets = try query.bool("includeHidden")
        options.includeAllBurstAssets = try query.bool("includeAllBurstAssets")
        var predicates: [NSPredicate] = []
        if let format = query["predicate"], !format.isEmpty {
            guard format.utf8.count <= predicateLimit else { throw APIError.badRequest("the predicate is longer than \(predicateLimit) bytes") }
            predicates.append(try NSPredicate(validatingFormat: format))
        }
        if let type = query["mediaType"] {
            let types: [String: PHAssetMediaType] = ["image": .image, "video": .video, "audio": .audio]
            guard let mediaType = types[type] else { throw APIError.badRequest("mediaType must be image, video or audio") }
            predicates.append(NSPredicate(format: "mediaType == %d", mediaType.rawValue))
        }
        options.predicate = predicates.count > 1 ? NSCompoundPredicate(andPredicateWithSubpredicates: predicates) : predicates.first
        if let q = query["q"] {
            guard q.utf8.count <= 512 else { throw APIError.badRequest("q (the search) is longer than 512 bytes") }
            options.searchText = q
        }
        if let sort = query["sort"], !sort.isEmpty {
            options.sortDescriptors = sort.split(separator: ",").map { term in
                let descending = term.hasPrefix("-")
                return NSSortDescriptor(key: String(descending ? term.dropFirst() : term), ascending: !descending)
            }
        }
        try options.validate(for: PHAsset.self)
        return options
    }

    /// A page of assets: `{"assets": […], "nextCursor": "…"}` (null after the last page), with a `Link: rel=next`.
    func list(_ request: Request, context: PhotosRequestContext, collection: String?) async throws -> Response {
        let session = try context.client()
        try session.requireRead()
        let query = try Query(request, allowed: Self.listParameters)
        let options = try Self.fetchOptions(query, session: session)
        // Captions and keywords go with every asset of a page: one read per page, not one per asset.
        options.prefetchAssetExtendedMetadata = true
        let limit = try query.integer("limit", default: 100, in: 1...1000)
        let withResources = try query.bool("resources")
        let cursor = query["cursor"]
        let scope = try collection.map { try CollectionRoutes.collection($0, session: session) }
        let page = try await offload {
            let (assets, next) = try session.library.fetchAssetPage(in: scope, options: options, cursor: cursor, limit: limit)
            var items: [AssetJSON] = []
            items.reserveCapacity(assets.count)
            assets.enumerateObjects { asset, _, _ in
                items.append(AssetJSON(asset, resources: withResources ? PHAssetResource.assetResources(for: asset) : nil))
            }
            let page = AssetPage(assets: items, nextCursor: next)
            return (page.json(), next)
        }
        var response = Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8", .contentLength: String(page.0.count)],
            body: .init(byteBuffer: ByteBuffer(bytes: page.0)))
        if let next = page.1 {
            var components = URLComponents()
            components.path = request.uri.path
            components.queryItems =
                request.uri.queryParameters.filter { $0.key != "cursor" }.map { URLQueryItem(name: String($0.key), value: String($0.value)) }
                + [URLQueryItem(name: "cursor", value: next)]
            response.headers[.link] = "<\(components.string ?? "")>; rel=\"next\""
        }
        return response
    }
}

struct AssetPage: ResponseEncodable {
    var assets: [AssetJSON]
    var nextCursor: String?

    /// The page's JSON, written by ``JSONWriter`` (the bytes the response encoder makes of ``encode(to:)``).
    func json() -> [UInt8] {
        var json = JSONWriter(capacity: 512 + assets.count * 700)
        json.beginObject()
        json.key("assets")
        json.beginArray()
        for asset in assets { asset.write(to: &json) }
        json.endArray()
        json.key("nextCursor")
        if let nextCursor { json.string(nextCursor) } else { json.null() }
        json.endObject()
        return json.bytes
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(assets, forKey: .assets)
        try container.encode(nextCursor, forKey: .nextCursor)  // null, not absent, after the last page
    }

    enum CodingKeys: String, CodingKey { case assets, nextCursor }
}
