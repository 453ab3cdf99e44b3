import AsyncHTTPClient
import Foundation
import JSONWriting
import NIOCore
import NIOHTTP1
import Synchronization

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

    /// `{"resources": […]}`, as `JSONEncoder` writes the records, written by hand (a few times faster).
    package static func encode(_ records: [ResourceWireRecord]) throws -> Data {
        var out = JSONText.Writer()
        out.raw(#"{"resources":["#)
        for (index, record) in records.enumerated() {
            if index > 0 { out.raw(",") }
            record.write(to: &out)
        }
        out.raw("]}")
        return Data(out.bytes)
    }

    /// Writes the record as a JSON object, its fields as `JSONEncoder` names them.
    func write(to out: inout JSONText.Writer) {
        out.raw("{")
        out.field("id", id)
        out.field("assetID", assetID)
        out.field("assetLocalIdentifier", assetLocalIdentifier)
        out.field("type", type)
        out.field("originalFilename", originalFilename)
        out.field("uniformTypeIdentifier", uniformTypeIdentifier)
        out.field("fileSize", fileSize)
        out.field("sha256", sha256)
        out.field("pixelWidth", pixelWidth)
        out.field("pixelHeight", pixelHeight)
        out.raw("}")
    }

    package static func decode(_ data: Data) throws -> [ResourceWireRecord] {
        try JSONDecoder().decode([String: [ResourceWireRecord]].self, from: data)["resources"] ?? []
    }
}

extension LibraryEngine {
    /// The files of the assets `access` may read among `ids`, for a served library's remote clients.
    package func resources(ofAssets ids: [Int64], visibleTo access: AccessContext) throws(LibraryError) -> [ResourceWireRecord] {
        let visible = try loadAssets(ids, visibleTo: access, extendedMetadata: false)
        let files = try resources(assetIDs: visible.map(\.id))
        return visible.flatMap { (files[$0.id] ?? []).map(ResourceWireRecord.init) }
    }
}

extension RemoteLibrary {
    /// The files of an asset on the server (`POST /v1/assets/resources`). When the asset is one of the last batches
    /// of records loaded, the files of the assets of its batch not asked about yet are asked for together and kept
    /// for the next questions — a loop over a fetch result asking each asset's resources in turn costs a request per
    /// batch, not per asset. What is kept answers once, and a change block of this client forgets it.
    package func resources(assetID: Int64) throws(LibraryError) -> [ResourceRecord] {
        let (kept, batch) = resourcesAhead.withLock { ahead -> ([ResourceRecord]?, [Int64]?) in
            if let kept = ahead.fetched.removeValue(forKey: assetID) { return (kept, nil) }
            guard let index = ahead.batches.lastIndex(where: { $0.contains(assetID) }) else { return (nil, nil) }
            return (nil, ahead.batches.remove(at: index))
        }
        if let kept { return kept }
        let ids = batch ?? [assetID]
        let body: Data
        do { body = try JSONText.data(["ids": ids]) } catch { throw .internalError("\(error)") }
        resourceRequests.add(1, ordering: .relaxed)
        let answer = try send(.POST, "/v1/assets/resources", body: body)
        let records: [ResourceRecord]
        do { records = try ResourceWireRecord.decode(answer.body).map(\.record) } catch {
            throw .networkError("POST /v1/assets/resources answered something that is not resource records: \(error)")
        }
        var byAsset = Dictionary(grouping: records, by: \.assetID)
        let mine = byAsset.removeValue(forKey: assetID) ?? []
        if batch != nil {
            resourcesAhead.withLock { ahead in
                let others = ids.filter { $0 != assetID }
                let fetchedNow = Set(others)
                for id in others { ahead.fetched[id] = byAsset[id] ?? [] }
                ahead.fetchedOrder = ahead.fetchedOrder.filter { ahead.fetched[$0] != nil && !fetchedNow.contains($0) } + others
            }
        }
        return mine
    }

    /// Remembers a batch of records just loaded (their files are asked for together when one is asked for).
    func expectResourceQuestions(about ids: [Int64]) {
        guard ids.count > 1, ids.count <= Self.recordsPerRequest else { return }
        resourcesAhead.withLock { $0.expect(ids) }
    }

    /// Forgets the files kept ahead (a change block of this client may have changed them), not which assets are
    /// asked about together: the next question about one of them asks again for all those not asked about yet — a
    /// loop that commits a change block every few assets still costs a request per batch.
    func forgetResourcesAhead() {
        resourcesAhead.withLock { ahead in
            let unasked = ahead.fetchedOrder.filter { ahead.fetched[$0] != nil }
            ahead.fetched = [:]
            ahead.fetchedOrder = []
            if unasked.count > 1 { ahead.expect(unasked) }
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
