import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import OpenPhotos

/// What a remote PhotoKit client (`PHPhotoLibrary(url: https://…)`) reads a fetch result with: the membership of a
/// fetch as a list of asset handles, read in one transaction (frozen, as PhotoKit's fetch results are), and the
/// assets of a batch of handles. A handle is the asset's row id in this library: opaque to clients, stable while
/// the asset exists.
struct RemoteLibraryRoutes {
    let services: ServerServices

    /// Handles per `POST /v1/assets/records`.
    static let maximumRecords = 1000
    static let changeToken = HTTPField.Name("Photos-Change-Token")!
    static let count = HTTPField.Name("Photos-Count")!
    static let nextCursor = HTTPField.Name("Photos-Next-Cursor")!
    static let idParameters = AssetRoutes.listParameters.subtracting(["resources"]).union(["sourceTypes", "fetchLimit"])

    /// A body's `ids`: at most ``maximumRecords`` asset handles (integers, exactly).
    static func handles(_ value: Any?) throws -> [Int64] {
        guard let list = value as? [Any], list.count <= maximumRecords else {
            throw APIError.badRequest("ids must be a list of at most \(maximumRecords) asset handles")
        }
        return try list.map { item -> Int64 in
            // Row ids: far below 2^53, where a JSON number is exact.
            guard let number = item as? NSNumber, let id = Int64(exactly: number.doubleValue) else {
                throw APIError.badRequest("ids must be a list of asset handles (integers)")
            }
            return id
        }
    }

    func register(on group: RouterGroup<PhotosRequestContext>) {
        group.get("assets/ids") { request, context in
            try await ids(try Query(request, allowed: Self.idParameters), scope: .library, context: context, predicateLimit: 4096)
        }
        // The same with the parameters as a JSON object: a predicate too long for a URL (a fetch by a thousand
        // local identifiers), as the remote PhotoKit client sends every fetch.
        group.post("assets/ids") { request, context in
            _ = try Query(request, allowed: [])
            var fields = try await JSONBody(request, context: context, allowed: Self.idParameters.union(["scope"])).fields
            let scope = try fields.removeValue(forKey: "scope").map { try ServedAssetScope($0) } ?? .library
            return try await ids(try Query(form: fields, allowed: Self.idParameters), scope: scope, context: context, predicateLimit: 1 << 20)
        }
        group.post("collections/records") { request, context in try await collections(request, context: context) }
        group.post("assets/resources") { request, context in try await resources(request, context: context) }
        group.post("assets/records") { request, context in try await records(request, context: context) }
        group.post("assets/count") { request, context in try await count(request, context: context) }
        group.get("assets/:id/editing-state") { request, context in
            let session = try context.client()
            try session.requireRead()
            let query = try Query(request, allowed: ["raw"])
            let raw = try query.bool("raw")
            let identifier = try ObjectID.localIdentifier(try context.parameters.require("id"))
            let library = session.library
            let data = try await offload { try library.servedEditingState(localIdentifier: identifier, rawChosen: raw) }
            return Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        group.post("assets/cloud-identifiers") { request, context in try await cloudIdentifiers(request, context: context) }
        group.post("assets/local-identifiers") { request, context in try await localIdentifiers(request, context: context) }
    }

    /// A body's list of at most ``maximumRecords`` identifiers.
    static func identifiers(_ value: Any?, _ name: String) throws -> [String] {
        guard let list = value as? [String], list.count <= maximumRecords, list.allSatisfy({ (1...255).contains($0.utf8.count) }) else {
            throw APIError.badRequest("\(name) must be a list of at most \(maximumRecords) identifiers")
        }
        return list
    }

    /// `POST /v1/assets/cloud-identifiers` `{"localIdentifiers": […]}`: `{"cloudIdentifiers": {local: cloud}}` for the
    /// assets among them the client may see (what `cloudIdentifierMappings(forLocalIdentifiers:)` answers).
    func cloudIdentifiers(_ request: Request, context: PhotosRequestContext) async throws -> Response {
        let session = try context.client()
        try session.requireRead()
        _ = try Query(request, allowed: [])
        let body = try await JSONBody(request, context: context, allowed: ["localIdentifiers"])
        let identifiers = try Self.identifiers(body.fields["localIdentifiers"], "localIdentifiers")
        let library = session.library
        let found = try await offload { try library.storedCloudIdentifiers(forLocalIdentifiers: identifiers) }
        return try ChangeRoutes.json(["cloudIdentifiers": found], status: .ok)
    }

    /// `POST /v1/assets/local-identifiers` `{"cloudIdentifiers": […]}`: `{"localIdentifiers": {cloud: [local, …]}}`,
    /// the assets the client may see that each names (what `localIdentifierMappings(for:)` answers).
    func localIdentifiers(_ request: Request, context: PhotosRequestContext) async throws -> Response {
        let session = try context.client()
        try session.requireRead()
        _ = try Query(request, allowed: [])
        let body = try await JSONBody(request, context: context, allowed: ["cloudIdentifiers"])
        let identifiers = try Self.identifiers(body.fields["cloudIdentifiers"], "cloudIdentifiers")
        let library = session.library
        let found = try await offload { try library.storedLocalIdentifiers(forCloudIdentifiers: identifiers) }
        return try ChangeRoutes.json(["localIdentifiers": found], status: .ok)
    }

    /// `GET /v1/assets/ids` (or `POST` with the parameters as a JSON object): the handles of the assets the fetch matches, in order, 8 bytes each (little endian),
    /// streamed as they are read; `Photos-Change-Token` names the transaction the membership reflects, and
    /// `Photos-Count` how many handles follow where the library's tallies count the fetch. A read that
    /// fails midway ends the response before its end, so a client never takes part of a membership for all of it.
    /// With `limit` (and `cursor`), a keyset page of it: at most `limit` handles, and `Photos-Next-Cursor` unless it
    /// is the last page.
    func ids(_ query: Query, scope: ServedAssetScope, context: PhotosRequestContext, predicateLimit: Int) async throws -> Response {
        let session = try context.client()
        try session.requireRead()
        let options = try AssetRoutes.fetchOptions(query, session: session, predicateLimit: predicateLimit)
        if let types = query["sourceTypes"] {
            guard let bits = UInt(types), bits & ~UInt(0b1111) == 0 else {
                throw APIError.badRequest("sourceTypes must be PHAssetSourceType bits (1 to 15)")
            }
            options.includeAssetSourceTypes = PHAssetSourceType(rawValue: bits)
        }
        options.fetchLimit = try query.integer("fetchLimit", default: 0, in: 0...Int(Int32.max))
        let library = session.library
        if query["limit"] != nil || query["cursor"] != nil {
            let limit = try query.integer("limit", default: 100, in: 1...10_000)
            let cursor = query["cursor"]
            let (ids, next) = try await offload { try library.servedAssetPage(options: options, scope: scope, cursor: cursor, limit: limit) }
            var buffer = ByteBufferAllocator().buffer(capacity: ids.count * 8)
            for id in ids { buffer.writeInteger(id, endianness: .little) }
            var headers: HTTPFields = [.contentType: "application/octet-stream", .cacheControl: "no-store"]
            if let next { headers[Self.nextCursor] = next }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: buffer))
        }
        let (ids, token) = try await offload { try library.servedAssetIDs(options: options, scope: scope) }
        let body = ResponseBody { writer in
            var start = 0
            while true {
                let from = start
                // What has arrived (the first page at once), up to 64 Ki handles a write.
                let batch = try await offload { Array(ids.arrived(from: from, limit: 65_536)) }
                if batch.isEmpty { break }
                var buffer = ByteBufferAllocator().buffer(capacity: batch.count * 8)
                for id in batch { buffer.writeInteger(id, endianness: .little) }
                try await writer.write(buffer)
                start += batch.count
            }
            if let failure = ids.failure { throw failure }
            try await writer.finish(nil)
        }
        var headers: HTTPFields = [.contentType: "application/octet-stream", .cacheControl: "no-store", Self.changeToken: String(token)]
        // The count before the ids, where the library's tallies tell it: a client shows it without reading them all.
        if let count = ids.count { headers[Self.count] = String(count) }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// `POST /v1/assets/records` `{"ids": [handle, …], "extendedMetadata": true}`: the assets (every property, raw
    /// values) the client may see among them, in the order asked, `{"records": […]}`.
    func records(_ request: Request, context: PhotosRequestContext) async throws -> Response {
        let session = try context.client()
        try session.requireRead()
        _ = try Query(request, allowed: [])
        let body = try await JSONBody(request, context: context, allowed: ["ids", "extendedMetadata"])
        let ids = try Self.handles(body.fields["ids"])
        let extended = body.fields["extendedMetadata"] as? Bool ?? false
        let library = session.library
        // The remote PhotoKit client asks for the binary form (what scrolling is bound by); JSON otherwise.
        let binary = request.headers[.accept]?.contains(PHPhotoLibrary.binaryAssetRecordsType) ?? false
        let data = try await offload { try library.servedAssetRecords(ids, extendedMetadata: extended, binary: binary) }
        return Response(
            status: .ok,
            headers: [
                .contentType: binary ? PHPhotoLibrary.binaryAssetRecordsType : "application/json; charset=utf-8", .cacheControl: "no-store",
                .vary: "Accept",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `POST /v1/assets/count?mediaType=N` with handles as the body (8 bytes each, little endian, as
    /// `/v1/assets/ids` answers them; at most 1 MiB): `{"count": n}`, how many of those assets the client may see
    /// have the media type — a remote fetch result's `countOfAssets(with:)` without loading its records.
    func count(_ request: Request, context: PhotosRequestContext) async throws -> Response {
        let session = try context.client()
        try session.requireRead()
        let query = try Query(request, allowed: ["mediaType"])
        let mediaType = try query.integer("mediaType", default: 1, in: 0...3)
        let body = try await JSONBody.collect(request, context: context)
        guard body.readableBytes % 8 == 0 else { throw APIError.badRequest("the body must be asset handles, 8 bytes each (little endian)") }
        var ids = ContiguousArray<Int64>()
        ids.reserveCapacity(body.readableBytes / 8)
        var reader = body
        while let id = reader.readInteger(endianness: .little, as: Int64.self) { ids.append(id) }
        let library = session.library
        let count = try await offload { [ids] in try library.servedCount(ids, mediaType: mediaType) }
        return try ChangeRoutes.json(["count": count], status: .ok)
    }

    /// `POST /v1/assets/resources` `{"ids": [handle, …]}`: the stored files of those assets the client may see,
    /// `{"resources": [{id, assetID, assetLocalIdentifier, type, originalFilename, uniformTypeIdentifier, fileSize,
    /// sha256, pixelWidth, pixelHeight}]}` (bytes: `GET /v1/assets/{id}/resources/{type}`, by ranges).
    func resources(_ request: Request, context: PhotosRequestContext) async throws -> Response {
        let session = try context.client()
        try session.requireRead()
        _ = try Query(request, allowed: [])
        let body = try await JSONBody(request, context: context, allowed: ["ids"])
        let ids = try Self.handles(body.fields["ids"])
        let library = session.library
        let data = try await offload { try library.servedResourceRecords(ids) }
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `POST /v1/collections/records` `{"scope": {…}, "entity": "assetCollection", "predicate", "sort", "fetchLimit"}`:
    /// the stored collections (albums, smart albums, folders) the fetch answers, `{"records": […]}`.
    func collections(_ request: Request, context: PhotosRequestContext) async throws -> Response {
        let session = try context.client()
        try session.requireRead()
        _ = try Query(request, allowed: [])
        let body = try await JSONBody(request, context: context, allowed: ["scope", "entity", "predicate", "sort", "fetchLimit"])
        guard let scopeJSON = body.fields["scope"], let entity = body.fields["entity"] as? String else {
            throw APIError.badRequest("scope and entity are required")
        }
        let scope = try ServedCollectionScope(scopeJSON, entity: entity)
        let options = session.fetchOptions()
        if let format = body.fields["predicate"] as? String, !format.isEmpty {
            guard format.utf8.count <= 1 << 20 else { throw APIError.badRequest("the predicate is longer than 1 MiB") }
            options.predicate = try NSPredicate(validatingFormat: format)
        }
        if let sort = body.fields["sort"] as? String, !sort.isEmpty {
            options.sortDescriptors = sort.split(separator: ",").map { term in
                let descending = term.hasPrefix("-")
                return NSSortDescriptor(key: String(descending ? term.dropFirst() : term), ascending: !descending)
            }
        }
        if let limit = body.fields["fetchLimit"] {
            guard let text = limit as? String, let value = Int(text), value >= 0 else { throw APIError.badRequest("fetchLimit must be a count") }
            options.fetchLimit = value
        }
        try options.validate(for: scope.objectClass)
        let library = session.library
        let data = try await offload { try library.servedCollectionRecords(scope, options: options) }
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
