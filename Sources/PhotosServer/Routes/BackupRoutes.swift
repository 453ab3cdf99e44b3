import Foundation
import HTTPTypes
import Hummingbird
import OpenPhotos
import Synchronization

/// The destination of devices' background upload jobs (iOS 26.1's `PHAssetResourceUploadJob`, OpenPhotoKit's own):
/// `POST /v1/backup` takes one resource of one asset per request — the resource's bytes as the body, what it is in
/// headers — and commits the asset, with all its resources, when the last of them arrives. A job's request is
/// built once and sent again as it is after a failure, so everything is in the request itself and sending it twice
/// stores nothing twice.
///
/// Request headers (names case-insensitive):
/// - `Photos-Asset-Identifier` (required): the device's identifier of the asset (its local identifier there).
/// - `Photos-Resource-Type` (required): the resource's `PHAssetResourceType` raw value.
/// - `Photos-Asset-Resources` (required): the raw values of every resource the asset has, comma-separated.
/// - `Photos-Resource-Filename`: the resource's file name, percent-encoded UTF-8.
/// - `Photos-Cloud-Identifier`: the asset's cloud identifier (what `cloudIdentifierMappings` answers on the device).
/// - `Photos-Creation-Date`: ISO 8601. `Photos-Location`: `latitude,longitude[,altitude]`. `Photos-Favorite`: `1`.
/// - `Photos-Content-SHA256`: the body's SHA-256 in hex; a body that differs is refused and nothing is kept.
///
/// Answers: `202` stored, the asset waits for the types in `Photos-Missing-Resources`; `201` this resource completed
/// the asset; `200` the asset was committed before with these bytes. The last two name the asset in
/// `Photos-Library-Asset` (as `/v1/assets/{id}` takes it).
struct BackupRoutes {
    let services: ServerServices

    /// How long resources of an asset never completed are kept (its device stopped sending the rest).
    static let incompleteLifetime: TimeInterval = 7 * 86_400
    /// When this process last forgot such resources (once an hour at most).
    private static let lastExpiry = Mutex(Date.distantPast)

    static let assetIdentifier = HTTPField.Name("Photos-Asset-Identifier")!
    static let resourceType = HTTPField.Name("Photos-Resource-Type")!
    static let assetResources = HTTPField.Name("Photos-Asset-Resources")!
    static let filename = HTTPField.Name("Photos-Resource-Filename")!
    static let cloudIdentifier = HTTPField.Name("Photos-Cloud-Identifier")!
    static let creationDate = HTTPField.Name("Photos-Creation-Date")!
    static let location = HTTPField.Name("Photos-Location")!
    static let favorite = HTTPField.Name("Photos-Favorite")!
    static let contentSHA256 = HTTPField.Name("Photos-Content-SHA256")!
    static let libraryAsset = HTTPField.Name("Photos-Library-Asset")!
    static let missingResources = HTTPField.Name("Photos-Missing-Resources")!

    func register(on group: RouterGroup<PhotosRequestContext>) {
        group.post("backup") { request, context in try await backup(request, context: context) }
    }

    func backup(_ request: Request, context: PhotosRequestContext) async throws -> Response {
        let session = try context.client()
        try session.requireAdd()
        _ = try Query(request, allowed: [])
        var resource = try Self.describe(request.headers, client: session.identifier)
        let expected = request.headers[Self.contentSHA256]?.lowercased()
        if let expected, expected.count != 64 || !expected.allSatisfy(\.isHexDigit) {
            throw APIError.badRequest("Photos-Content-SHA256 must be 64 hexadecimal digits")
        }
        let name = (try? Uploads.safeName(resource.filename)) ?? "resource"
        resource.filename = name
        let uploads = UploadRoutes(services: services)
        let (id, file, size, sha256) = try await uploads.receiveBody(request, name: name, client: session.identifier)
        defer { services.uploads.discard(id) }
        if let expected, expected != sha256 {
            throw APIError(
                status: .unprocessableContent, domain: APIError.httpDomain, code: 422,
                message: "the body's SHA-256 is \(sha256), not the \(expected) Photos-Content-SHA256 says: nothing was kept")
        }
        guard size > 0 else { throw APIError.badRequest("the resource is empty") }
        let due = Self.lastExpiry.withLock { last in
            guard Date().timeIntervalSince(last) > 3600 else { return false }
            last = Date()
            return true
        }
        if due {
            let owner = services.owner
            _ = try? await offload { try owner.expireIncomingBackups(olderThan: Self.incompleteLifetime) }
        }
        let library = session.library
        let received = resource
        let outcome: BackupOutcome
        do {
            outcome = try await offload { try library.receiveBackupResource(received, file: file, size: Int64(size), sha256: sha256) }
        } catch let error as PHPhotosError where error.code == .changeNotSupported {
            throw APIError(status: .conflict, domain: PHPhotosErrorDomain, code: error.code.rawValue, message: error.localizedDescription)
        }
        var answer = Answer(sha256: sha256, size: size)
        let status: HTTPResponse.Status
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"]
        switch outcome {
        case .waiting(let missing):
            status = .accepted
            answer.missing = missing
            headers[Self.missingResources] = missing.map(String.init).joined(separator: ",")
        case .committed(let local):
            status = .created
            answer.asset = ObjectID.urlForm(local)
            headers[Self.libraryAsset] = ObjectID.urlForm(local)
        case .alreadyBackedUp(let local):
            status = .ok
            answer.asset = ObjectID.urlForm(local)
            headers[Self.libraryAsset] = ObjectID.urlForm(local)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(answer)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The answer's body: `{"asset"?, "missing"?, "sha256", "size"}`.
    private struct Answer: Encodable {
        var asset: String?
        var missing: [Int]?
        let sha256: String
        let size: Int
    }

    /// What the headers say of the resource and its asset.
    static func describe(_ headers: HTTPFields, client: String) throws -> BackupResource {
        func required(_ name: HTTPField.Name) throws -> String {
            guard let value = headers[name], !value.isEmpty else { throw APIError.badRequest("the \(name) header is required") }
            return value
        }
        let source = try required(assetIdentifier)
        guard let type = Int(try required(resourceType)) else { throw APIError.badRequest("Photos-Resource-Type must be a number") }
        let types = try required(assetResources).split(separator: ",").map { part -> Int in
            guard let value = Int(part.trimmingCharacters(in: .whitespaces)) else {
                throw APIError.badRequest("Photos-Asset-Resources must be numbers separated by commas")
            }
            return value
        }
        let filename = headers[filename].map { $0.removingPercentEncoding ?? $0 } ?? "resource"
        var date: Date?
        if let text = headers[creationDate] {
            date = parseDate(text)
            guard date != nil else { throw APIError.badRequest("Photos-Creation-Date must be an ISO 8601 date and time") }
        }
        var place: (latitude: Double, longitude: Double, altitude: Double?)?
        if let text = headers[location] {
            let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard (2...3).contains(parts.count), let latitude = parts[0], let longitude = parts[1], abs(latitude) <= 90,
                abs(longitude) <= 180, parts.count == 2 || parts[2] != nil
            else { throw APIError.badRequest("Photos-Location must be latitude,longitude[,altitude] in degrees and meters") }
            place = (latitude, longitude, parts.count == 3 ? parts[2] : nil)
        }
        let cloud = headers[cloudIdentifier].flatMap { $0.isEmpty ? nil : $0 }
        if let cloud, cloud.utf8.count > 255 { throw APIError.badRequest("Photos-Cloud-Identifier is at most 255 bytes") }
        return BackupResource(
            client: client, source: source, type: type, resourceTypes: types, filename: filename, cloudIdentifier: cloud,
            creationDate: date, location: place, isFavorite: headers[favorite] == "1")
    }

    /// An ISO 8601 date and time with any number of fractional digits (a photo's date to the microsecond).
    static func parseDate(_ text: String) -> Date? {
        guard let dot = text.firstIndex(of: ".") else { return ISO8601.parseWhole(text) }
        let digits = text[text.index(after: dot)...].prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 9, let whole = ISO8601.parseWhole(String(text[..<dot]) + text[digits.endIndex...]),
            let fraction = Double("0." + digits)
        else { return nil }
        return whole.addingTimeInterval(fraction)
    }
}
