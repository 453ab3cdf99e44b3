import Foundation
import JSONWriting
import NIOHTTP1

/// Which objects a remote client's fetch draws from (``AssetScope``, ``CollectionScope``) as JSON — the `scope` of
/// `POST /v1/assets/ids` and `POST /v1/collections/records` — and stored collections as they travel back. One codec
/// for both sides; the server checks what it reads.
package enum FetchScopeWire {
    package static func encode(_ scope: AssetScope) -> [String: Any] {
        switch scope {
        case .library: return ["library": true]
        case .mediaType(let type): return ["mediaType": type]
        case .localIdentifiers(let identifiers): return ["localIdentifiers": identifiers]
        case .burst(let identifier): return ["burst": identifier]
        case .album(let id): return ["album": id]
        case .smartAlbum(let subtype): return ["smartAlbum": subtype]
        case .moment(let day, let place): return ["moment": ["day": day, "place": place]]
        case .ordered(let identifiers): return ["ordered": identifiers]
        }
    }

    package static func decodeAssetScope(_ value: Any?) throws(LibraryError) -> AssetScope {
        guard let object = value as? [String: Any], object.count == 1, let (key, item) = object.first else {
            throw .invalidResource("scope must be an object of one field")
        }
        switch key {
        case "library": return .library
        case "mediaType":
            guard let type = item as? Int, (0...3).contains(type) else { throw .invalidResource("scope.mediaType must be 0 to 3") }
            return .mediaType(type)
        case "localIdentifiers": return .localIdentifiers(try identifiers(item, "scope.localIdentifiers"))
        case "ordered": return .ordered(try identifiers(item, "scope.ordered"))
        case "burst": return .burst(try identifier(item, "scope.burst"))
        case "album": return .album(try handle(item, "scope.album"))
        case "smartAlbum":
            guard let subtype = item as? Int else { throw .invalidResource("scope.smartAlbum must be a PHAssetCollectionSubtype") }
            return .smartAlbum(subtype: subtype)
        case "moment":
            guard let moment = item as? [String: String], let day = moment["day"], let place = moment["place"], day.utf8.count <= 32,
                place.utf8.count <= 64
            else { throw .invalidResource("scope.moment must be {day, place}") }
            return .moment(day: day, place: place)
        default: throw .invalidResource("\(key.prefix(40).debugDescription) is not a scope of assets")
        }
    }

    package static func encode(_ scope: CollectionScope) -> [String: Any] {
        switch scope {
        case .assetCollections(let type, let subtype): ["assetCollections": ["type": type, "subtype": subtype.map { $0 as Any } ?? NSNull()]]
        case .collectionLists(let type, let subtype): ["collectionLists": ["type": type, "subtype": subtype.map { $0 as Any } ?? NSNull()]]
        case .localIdentifiers(let identifiers, let kind):
            ["localIdentifiers": ["identifiers": identifiers, "kind": kind.map { $0.rawValue as Any } ?? NSNull()]]
        case .children(let id): ["children": id.map { $0 as Any } ?? NSNull()]
        case .albumsContaining(let id): ["albumsContaining": id]
        case .parent(let id): ["parent": id]
        }
    }

    package static func decodeCollectionScope(_ value: Any?) throws(LibraryError) -> CollectionScope {
        guard let object = value as? [String: Any], object.count == 1, let (key, item) = object.first else {
            throw .invalidResource("scope must be an object of one field")
        }
        func typeAndSubtype() throws(LibraryError) -> (Int, Int?) {
            guard let fields = item as? [String: Any], let type = fields["type"] as? Int else {
                throw .invalidResource("scope.\(key) must be {type, subtype}")
            }
            return (type, fields["subtype"] as? Int)
        }
        switch key {
        case "assetCollections":
            let (type, subtype) = try typeAndSubtype()
            return .assetCollections(type: type, subtype: subtype)
        case "collectionLists":
            let (type, subtype) = try typeAndSubtype()
            return .collectionLists(type: type, subtype: subtype)
        case "localIdentifiers":
            guard let fields = item as? [String: Any] else { throw .invalidResource("scope.localIdentifiers must be {identifiers, kind}") }
            let kind = (fields["kind"] as? Int).flatMap(CollectionKind.init(rawValue:))
            return .localIdentifiers(try identifiers(fields["identifiers"], "scope.localIdentifiers.identifiers"), kind: kind)
        case "children": return .children(of: item is NSNull ? nil : try handle(item, "scope.children"))
        case "albumsContaining": return .albumsContaining(assetID: try handle(item, "scope.albumsContaining"))
        case "parent": return .parent(ofCollectionID: try handle(item, "scope.parent"))
        default: throw .invalidResource("\(key.prefix(40).debugDescription) is not a scope of collections")
        }
    }

    /// What `POST /v1/collections/records` fetches: stored collections, or moments (`{"moments": "all"}`,
    /// `{"moments": {"year": "2024"}}`, `{"moments": {"month": "2024-05"}}`, `{"moments": {"containingAsset": 42}}`),
    /// or moment lists (`{"momentLists": 2}`, null for both kinds), which the library computes from its assets.
    package enum CollectionFetch: Sendable, Equatable {
        case stored(CollectionScope)
        case moments(MomentFilter)
        case momentLists(subtype: Int?)
    }

    package static func encode(_ fetch: CollectionFetch) -> [String: Any] {
        switch fetch {
        case .stored(let scope): encode(scope)
        case .moments(.all): ["moments": "all"]
        case .moments(.year(let year)): ["moments": ["year": year]]
        case .moments(.month(let month)): ["moments": ["month": month]]
        case .moments(.containingAsset(let id)): ["moments": ["containingAsset": id]]
        case .momentLists(let subtype): ["momentLists": subtype.map { $0 as Any } ?? NSNull()]
        }
    }

    package static func decodeCollectionFetch(_ value: Any?) throws(LibraryError) -> CollectionFetch {
        guard let object = value as? [String: Any], object.count == 1, let (key, item) = object.first else {
            throw .invalidResource("scope must be an object of one field")
        }
        switch key {
        case "moments":
            if item as? String == "all" { return .moments(.all) }
            guard let fields = item as? [String: Any], fields.count == 1, let (filter, argument) = fields.first else {
                throw .invalidResource("scope.moments must be \"all\" or one of {year}, {month}, {containingAsset}")
            }
            func key(_ name: String) throws(LibraryError) -> String {
                guard let text = argument as? String, (1...16).contains(text.utf8.count) else {
                    throw .invalidResource("scope.moments.\(name) must be a short string")
                }
                return text
            }
            switch filter {
            case "year": return .moments(.year(try key("year")))
            case "month": return .moments(.month(try key("month")))
            case "containingAsset": return .moments(.containingAsset(try handle(argument, "scope.moments.containingAsset")))
            default: throw .invalidResource("scope.moments must be \"all\" or one of {year}, {month}, {containingAsset}")
            }
        case "momentLists":
            if item is NSNull { return .momentLists(subtype: nil) }
            guard let subtype = item as? Int, subtype == 1 || subtype == 2 else {
                throw .invalidResource("scope.momentLists must be 1 (months), 2 (years) or null")
            }
            return .momentLists(subtype: subtype)
        default: return .stored(try decodeCollectionScope(value))
        }
    }

    static func handle(_ value: Any?, _ name: String) throws(LibraryError) -> Int64 {
        guard let number = value as? NSNumber, let id = Int64(exactly: number.doubleValue) else { throw .invalidResource("\(name) must be a handle") }
        return id
    }

    static func identifier(_ value: Any?, _ name: String) throws(LibraryError) -> String {
        guard let text = value as? String, (1...255).contains(text.utf8.count) else { throw .invalidResource("\(name) must be an identifier") }
        return text
    }

    static func identifiers(_ value: Any?, _ name: String) throws(LibraryError) -> [String] {
        guard let list = value as? [Any], list.count <= ChangeRequestWire.maximumIdentifiers else {
            throw .invalidResource("\(name) must be a list of at most \(ChangeRequestWire.maximumIdentifiers) identifiers")
        }
        var result: [String] = []
        for item in list { result.append(try identifier(item, name)) }
        return result
    }
}

/// A stored collection as a served library sends it (`POST /v1/collections/records`): every field of
/// ``CollectionRecord``, dates as seconds since 1970.
package struct CollectionWireRecord: Codable, Sendable {
    var id: Int64?
    var localIdentifier: String
    var kind: Int
    var type: Int
    var subtype: Int
    var title: String?
    var parentID: Int64?
    var startDate: Double?
    var endDate: Double?
    var assetCount: Int?
    /// A moment's day and place (`["moment", day, place]`) or a moment list's year or month (`["year", y]`,
    /// `["cluster", m]`).
    var moment: [String]?
    var locationNames: [String]?
    var latitude: Double?
    var longitude: Double?

    package init(_ record: CollectionRecord) {
        (id, localIdentifier, kind, type, subtype, title) = (
            record.id, record.localIdentifier, record.kind.rawValue, record.type, record.subtype, record.title
        )
        (parentID, startDate, endDate, assetCount) = (
            record.parentID, record.startDate?.timeIntervalSince1970, record.endDate?.timeIntervalSince1970, record.assetCount
        )
        switch record.momentKey {
        case .moment(let day, let place): moment = ["moment", day, place]
        case .year(let year): moment = ["year", year]
        case .cluster(let month): moment = ["cluster", month]
        case nil: moment = nil
        }
        locationNames = record.locationNames.isEmpty ? nil : record.locationNames
        (latitude, longitude) = (record.approximateLocation?.latitude, record.approximateLocation?.longitude)
    }

    package var record: CollectionRecord {
        var record = CollectionRecord(
            localIdentifier: localIdentifier, kind: CollectionKind(rawValue: kind) ?? .assetCollection, type: type, subtype: subtype,
            title: title, startDate: startDate.map(Date.init(timeIntervalSince1970:)), endDate: endDate.map(Date.init(timeIntervalSince1970:)),
            assetCount: assetCount, momentKey: momentKey)
        record.id = id
        record.parentID = parentID
        record.locationNames = locationNames ?? []
        if let latitude, let longitude { record.approximateLocation = LocationRecord(latitude: latitude, longitude: longitude) }
        return record
    }

    var momentKey: MomentKey? {
        switch moment ?? [] {
        case let parts where parts.count == 3 && parts[0] == "moment": .moment(day: parts[1], place: parts[2])
        case let parts where parts.count == 2 && parts[0] == "year": .year(parts[1])
        case let parts where parts.count == 2 && parts[0] == "cluster": .cluster(parts[1])
        default: nil
        }
    }

    package static func encode(_ records: [CollectionWireRecord]) throws -> Data { try JSONEncoder().encode(["records": records]) }
    package static func decode(_ data: Data) throws -> [CollectionWireRecord] {
        try JSONDecoder().decode([String: [CollectionWireRecord]].self, from: data)["records"] ?? []
    }
}

extension RemoteLibrary {
    /// The fetch options a served fetch sends beside its scope: the predicate and sort keys as PhotoKit's format,
    /// the flags, the limit, the search.
    static func parameters(_ options: FetchOptionsSpec, searchText: String?) -> [String: Any] {
        var parameters: [String: Any] = [:]
        if let predicate = options.predicate { parameters["predicate"] = predicate.format }
        if !options.sortKeys.isEmpty {
            parameters["sort"] = options.sortKeys.map { ($0.ascending ? "" : "-") + $0.key }.joined(separator: ",")
        }
        if options.includeHiddenAssets { parameters["includeHidden"] = "true" }
        if options.includeAllBurstAssets { parameters["includeAllBurstAssets"] = "true" }
        if options.includeAssetSourceTypes != 0 { parameters["sourceTypes"] = String(options.includeAssetSourceTypes) }
        if options.fetchLimit > 0 { parameters["fetchLimit"] = String(options.fetchLimit) }
        if let searchText, !searchText.isEmpty { parameters["q"] = searchText }
        return parameters
    }

    /// Stored collections (albums, smart albums, folders) the server's fetch answers, in its order.
    package func fetchCollections(scope: CollectionScope, entity: FetchEntity, options: FetchOptionsSpec) throws(LibraryError) -> [CollectionRecord] {
        try fetchCollections(.stored(scope), entity: entity, options: options)
    }

    /// The moments the server's library computes, oldest first.
    package func fetchMoments(_ filter: MomentFilter, options: FetchOptionsSpec) throws(LibraryError) -> [CollectionRecord] {
        try fetchCollections(.moments(filter), entity: .assetCollection, options: options)
    }

    /// The moment lists (years, months) the server's library computes.
    package func fetchMomentLists(subtype: Int?) throws(LibraryError) -> [CollectionRecord] {
        try fetchCollections(.momentLists(subtype: subtype), entity: .collectionList, options: FetchOptionsSpec())
    }

    func fetchCollections(_ fetch: FetchScopeWire.CollectionFetch, entity: FetchEntity, options: FetchOptionsSpec) throws(LibraryError)
        -> [CollectionRecord]
    {
        var parameters = Self.parameters(options, searchText: nil)
        parameters["scope"] = FetchScopeWire.encode(fetch)
        parameters["entity"] = "\(entity)"
        let body: Data
        do { body = try JSONText.data(parameters) } catch { throw .internalError("cannot encode the fetch: \(error)") }
        let answer = try send(.POST, "/v1/collections/records", body: body)
        do { return try CollectionWireRecord.decode(answer.body).map(\.record) } catch {
            throw .networkError("POST /v1/collections/records answered something that is not collection records: \(error)")
        }
    }
}
