import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// An asset's stored file as a served library describes it (`POST /v1/assets/resources`): every field of
/// ``ResourceRecord`` but where the server keeps it.
package struct ResourceWireRecord: Codable, Sendable {
    var id: Int64
    var assetID: Int64
    var assetLocalIdentifier: String
    var type: Int
    var originalFilename: String
    var uniformTypeIdentifier: String
    var fileSize: Int64
    var sha256: String
    var pixelWidth: Int
    var pixelHeight: Int

    package init(_ record: ResourceRecord) {
        (id, assetID, assetLocalIdentifier, type) = (record.id, record.assetID, record.assetLocalIdentifier, record.typeRawValue)
        (originalFilename, uniformTypeIdentifier, fileSize) = (record.originalFilename, record.uniformTypeIdentifier, record.fileSize)
        (sha256, pixelWidth, pixelHeight) = (record.sha256, record.pixelWidth, record.pixelHeight)
    }

    /// The record; its `path` is empty (the server's business).
    package var record: ResourceRecord {
        ResourceRecord(
            id: id, assetID: assetID, assetLocalIdentifier: assetLocalIdentifier, type: ResourceType(rawValue: type) ?? .unknown,
            typeRawValue: type, path: "", originalFilename: originalFilename, uniformTypeIdentifier: uniformTypeIdentifier,
            fileSize: fileSize, sha256: sha256, pixelWidth: pixelWidth, pixelHeight: pixelHeight)
    }

    package static func encode(_ records: [ResourceWireRecord]) throws -> Data { try JSONEncoder().encode(["resources": records]) }
    package static func decode(_ data: Data) throws -> [ResourceWireRecord] {
        try JSONDecoder().decode([String: [ResourceWireRecord]].self, from: data)["resources"] ?? []
    }
}

extension LibraryEngine {
    /// The files of the assets `access` may read among `ids`, for a served library's remote clients.
    package func resources(ofAssets ids: [Int64], visibleTo access: AccessContext) throws(LibraryError) -> [ResourceWireRecord] {
        let visible = try loadAssets(ids, visibleTo: access, extendedMetadata: false)
        var result: [ResourceWireRecord] = []
        for asset in visible { result += try resources(assetID: asset.id).map(ResourceWireRecord.init) }
        return result
    }
}

extension RemoteLibrary {
    /// The files of an asset on the server (`POST /v1/assets/resources`).
    package func resources(assetID: Int64) throws(LibraryError) -> [ResourceRecord] {
        let body: Data
        do { body = try JSONSerialization.data(withJSONObject: ["ids": [assetID]]) } catch { throw .internalError("\(error)") }
        let answer = try send(.POST, "/v1/assets/resources", body: body)
        do { return try ResourceWireRecord.decode(answer.body).map(\.record) } catch {
            throw .networkError("POST /v1/assets/resources answered something that is not resource records: \(error)")
        }
    }

    /// A reader of a resource's bytes on the server, by ranges (`GET /v1/assets/{id}/resources/{type}`).
    package func openResource(_ record: ResourceRecord) -> any BlobReader {
        RemoteResourceReader(library: self, record: record)
    }
}

/// A resource's bytes read from the server in ranges, as the engine's blob readers read stored files.
final class RemoteResourceReader: BlobReader {
    let library: RemoteLibrary
    let record: ResourceRecord
    var size: Int64 { record.fileSize }

    init(library: RemoteLibrary, record: ResourceRecord) {
        self.library = library
        self.record = record
    }

    func read(at offset: Int64, count: Int) throws(LibraryError) -> Data {
        guard offset < record.fileSize, count > 0 else { return Data() }
        let last = min(record.fileSize, offset + Int64(count)) - 1
        let id = record.assetLocalIdentifier.replacingOccurrences(of: "/", with: "_")
        let path = "/v1/assets/\(id)/resources/\(record.typeRawValue)"
        var request = library.makeRequest(.GET, path)
        request.headers.replaceOrAdd(name: "Accept", value: "*/*")
        request.headers.replaceOrAdd(name: "Range", value: "bytes=\(offset)-\(last)")
        let prepared = request
        let expected = Int(last - offset + 1)
        let answer = try RemoteLibrary.run(description: "GET \(path)") {
            let response = try await RemoteLibrary.http.execute(prepared, deadline: .now() + RemoteLibrary.requestDeadline)
            let body = try await response.body.collect(upTo: max(expected, 1 << 20))
            return RemoteLibrary.Answer(status: Int(response.status.code), headers: response.headers, body: Data(body.readableBytesView))
        }
        if answer.status >= 400 { throw RemoteLibrary.error(answer, path: path) }
        guard answer.status == 206 || (answer.status == 200 && offset == 0), answer.body.count <= expected || answer.status == 200 else {
            throw .networkError("\(path) answered \(answer.status) to a range request")
        }
        return answer.status == 200 ? answer.body.prefix(expected) : answer.body
    }
}
