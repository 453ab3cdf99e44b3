import AsyncHTTPClient
import Foundation
import JSONWriting
import NIOCore
import NIOHTTP1
import NIOPosix

/// What a fetch result loads its objects from: the engine of a library of this process, or a served library.
package protocol AssetRecordSource: AnyObject, Sendable {
    /// Asset records by row id (ids with no row, or none the client may see, are absent), with their extended
    /// metadata when `extendedMetadata` is set.
    func loadAssets(_ ids: some Collection<Int64>, extendedMetadata: Bool) throws(LibraryError) -> (
        records: [Int64: AssetRecord], extended: [Int64: ExtendedMetadataRecord]
    )
    /// How many of the given assets have a media type.
    func countAssets(_ ids: ContiguousArray<Int64>, mediaType: Int) throws(LibraryError) -> Int
}

extension LibraryEngine: AssetRecordSource {
    package func loadAssets(_ ids: some Collection<Int64>, extendedMetadata: Bool) throws(LibraryError) -> (
        records: [Int64: AssetRecord], extended: [Int64: ExtendedMetadataRecord]
    ) {
        (try loadAssets(ids), extendedMetadata ? try self.extendedMetadata(ids) : [:])
    }
}

extension RemoteLibrary: AssetRecordSource {
    /// The header that carries the newest transaction a served fetch's membership reflects.
    package static let changeTokenHeader = "Photos-Change-Token"
    /// The header that tells how many handles a fetch's stream holds, before they arrive (where the server's
    /// tallies count the fetch).
    package static let countHeader = "Photos-Count"
    /// The header of a page of handles that gives the next page's cursor.
    package static let nextCursorHeader = "Photos-Next-Cursor"
    /// Ids per `POST /v1/assets/records` (the server's limit).
    package static let recordsPerRequest = 1000

    /// The row ids of the assets a fetch matches, in order, as they arrive from `GET {path}` (8 bytes each, little
    /// endian): returns once `firstPage` ids (or all) have arrived, the rest arriving in the background; and the
    /// transaction the membership reflects. The server reads the membership in one read transaction, so it is the
    /// state of one moment, frozen as PhotoKit's fetch results are.
    package func streamAssetIDs(_ path: String, parameters: [String: Any], firstPage: Int = 100) throws(LibraryError) -> (
        ids: AssetIDStream, version: Int64
    ) {
        // POST, the parameters in the body: a predicate of many identifiers does not fit a URL.
        let body: Data
        do { body = try JSONText.data(parameters) } catch { throw .internalError("cannot encode the fetch: \(error)") }
        var request = makeRequest(.POST, path, body: body)
        request.headers.replaceOrAdd(name: "Accept", value: "application/octet-stream")
        let stream = AssetIDStream.receiving()
        let head = Outcome<Int64>()
        let description = "GET \(path)"
        let loop = Self.group.next()
        precondition(!loop.inEventLoop, "a served library's thread waits for its own request")
        Task(executorPreference: LoopTaskExecutor(loop)) {
            do {
                let response = try await Self.http.execute(request, deadline: .now() + Self.requestDeadline)
                guard response.status.code < 400 else {
                    let body = try await response.body.collect(upTo: 1 << 20)
                    let answer = Answer(status: Int(response.status.code), headers: response.headers, body: Data(body.readableBytesView))
                    throw Self.error(answer, path: path)
                }
                guard let token = response.headers.first(name: Self.changeTokenHeader).flatMap(Int64.init),
                    response.headers.first(name: "Content-Type")?.hasPrefix("application/octet-stream") == true
                else { throw LibraryError.networkError("\(description) did not answer a list of asset ids") }
                // The count, known before the ids: the fetch result's `count` at once.
                let told = response.headers.first(name: Self.countHeader).flatMap(Int.init).flatMap { $0 >= 0 ? $0 : nil }
                if let told { stream.expect(told) }
                head.complete(.success(token))
                var carry: [UInt8] = []
                var ids: [Int64] = []
                var received = 0
                for try await buffer in response.body {
                    carry.append(contentsOf: buffer.readableBytesView)
                    let whole = carry.count / 8 * 8
                    guard whole > 0 else { continue }
                    ids.removeAll(keepingCapacity: true)
                    carry.withUnsafeBytes { raw in
                        for offset in stride(from: 0, to: whole, by: 8) {
                            ids.append(Int64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int64.self)))
                        }
                    }
                    carry.removeFirst(whole)
                    received += ids.count
                    ids.withUnsafeBufferPointer { stream.receive($0) }
                }
                guard carry.isEmpty else { throw LibraryError.networkError("\(description) ended inside an id") }
                if let told, told != received {
                    throw LibraryError.networkError("\(description) said \(told) assets match and sent \(received)")
                }
                stream.finish(nil)
            } catch {
                let failure = (error as? LibraryError) ?? LibraryError.networkError("\(description) failed: \(error)")
                head.complete(.failure(failure))
                stream.finish(failure)
            }
        }
        head.done.wait()
        let version: Int64
        switch head.result! {
        case .success(let value): version = value
        case .failure(let error as LibraryError): throw error
        case .failure(let error): throw .networkError("\(description) failed: \(error)")
        }
        do { try stream.waitForFirst(firstPage) } catch let error as LibraryError { throw error } catch {
            throw .networkError("\(description) failed: \(error)")
        }
        return (stream, version)
    }

    package func loadAssets(_ ids: some Collection<Int64>, extendedMetadata: Bool) throws(LibraryError) -> (
        records: [Int64: AssetRecord], extended: [Int64: ExtendedMetadataRecord]
    ) {
        var records: [Int64: AssetRecord] = [:]
        var extended: [Int64: ExtendedMetadataRecord] = [:]
        var remaining = ids[...]
        while !remaining.isEmpty {
            let chunk = Array(remaining.prefix(Self.recordsPerRequest))
            remaining = remaining.dropFirst(chunk.count)
            let body: Data
            do { body = try JSONText.data(["ids": chunk, "extendedMetadata": extendedMetadata]) } catch {
                throw .internalError("cannot encode the ids: \(error)")
            }
            // Binary records (an older server answers JSON).
            let answer = try send(.POST, "/v1/assets/records", body: body, accept: "\(AssetWireBinary.contentType), application/json;q=0.5")
            let wire: [AssetWireRecord]
            if answer.headers.first(name: "Content-Type")?.hasPrefix(AssetWireBinary.contentType) == true {
                wire = try AssetWireBinary.decode(answer.body)
            } else {
                do { wire = try AssetWireRecord.decode(answer.body) } catch {
                    throw .networkError("POST /v1/assets/records answered something that is not asset records: \(error)")
                }
            }
            for item in wire {
                records[item.id] = item.record
                if let metadata = item.extended { extended[item.id] = metadata }
            }
            expectResourceQuestions(about: chunk)
        }
        return (records, extended)
    }

    /// Handles per `POST /v1/assets/count` (its body, 8 bytes each, within the server's 1 MiB).
    package static let handlesPerCount = 100_000

    /// `POST /v1/assets/count?mediaType=N` with the handles as the body, 100,000 at a time: the server counts, no
    /// record is loaded.
    package func countAssets(_ ids: ContiguousArray<Int64>, mediaType: Int) throws(LibraryError) -> Int {
        var total = 0
        for start in stride(from: 0, to: ids.count, by: Self.handlesPerCount) {
            var body = Data(capacity: min(Self.handlesPerCount, ids.count - start) * 8)
            for id in ids[start..<min(start + Self.handlesPerCount, ids.count)] {
                withUnsafeBytes(of: id.littleEndian) { body.append(contentsOf: $0) }
            }
            let answer = try exchange(
                .POST, "/v1/assets/count", query: [URLQueryItem(name: "mediaType", value: String(mediaType))], body: body,
                contentType: "application/octet-stream")
            if answer.status >= 400 { throw Self.error(answer, path: "/v1/assets/count") }
            guard let object = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any], let count = object["count"] as? Int,
                count >= 0
            else { throw .networkError("POST /v1/assets/count answered no count") }
            total += count
        }
        return total
    }
}

extension RemoteLibrary {
    /// The row ids of the assets a fetch matches on the server, in order (see
    /// ``streamAssetIDs(_:parameters:firstPage:)``): the scope as it is, the predicate and sort keys as PhotoKit's
    /// format (the server compiles them as it does for any fetch).
    package func fetchAssetIDs(scope: AssetScope, options: FetchOptionsSpec, searchText: String?) throws(LibraryError) -> (
        ids: AssetIDStream, version: Int64
    ) {
        var parameters = Self.parameters(options, searchText: searchText)
        parameters["scope"] = FetchScopeWire.encode(scope)
        return try streamAssetIDs("/v1/assets/ids", parameters: parameters)
    }

    /// A keyset page of a fetch: at most `limit` handles after `cursor` (nil: from the start) and the next page's
    /// cursor (nil after the last page), as `POST /v1/assets/ids` with a `limit` answers them.
    package func fetchAssetPage(scope: AssetScope, options: FetchOptionsSpec, searchText: String?, cursor: String?, limit: Int) throws(LibraryError)
        -> (ids: [Int64], nextCursor: String?)
    {
        var parameters = Self.parameters(options, searchText: searchText)
        parameters["scope"] = FetchScopeWire.encode(scope)
        parameters["limit"] = String(limit)
        if let cursor { parameters["cursor"] = cursor }
        let body: Data
        do { body = try JSONText.data(parameters) } catch { throw .internalError("cannot encode the fetch: \(error)") }
        let answer = try send(.POST, "/v1/assets/ids", body: body, limit: limit * 8 + 64)
        guard answer.body.count % 8 == 0 else { throw .networkError("POST /v1/assets/ids did not answer a list of asset ids") }
        let ids = answer.body.withUnsafeBytes { bytes in
            (0..<bytes.count / 8).map { Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: $0 * 8, as: Int64.self)) }
        }
        return (ids, answer.headers.first(name: Self.nextCursorHeader))
    }

    /// The cloud identifiers of assets the client may see (`POST /v1/assets/cloud-identifiers`).
    package func cloudIdentifiers(forLocalIdentifiers localIdentifiers: [String]) throws(LibraryError) -> [String: String] {
        try mapIdentifiers(localIdentifiers, path: "/v1/assets/cloud-identifiers", sent: "localIdentifiers", answered: "cloudIdentifiers")
    }

    /// The assets the client may see that cloud identifiers name (`POST /v1/assets/local-identifiers`).
    package func localIdentifiers(forCloudIdentifiers cloudIdentifiers: [String]) throws(LibraryError) -> [String: [String]] {
        try mapIdentifiers(cloudIdentifiers, path: "/v1/assets/local-identifiers", sent: "cloudIdentifiers", answered: "localIdentifiers")
    }

    /// Asks `path` for the mapping of `identifiers`, a thousand at a time (the server's limit): `{sent: […]}` answered
    /// by `{answered: {identifier: value}}`.
    private func mapIdentifiers<Value>(_ identifiers: [String], path: String, sent: String, answered: String) throws(LibraryError) -> [String: Value]
    {
        var found: [String: Value] = [:]
        for start in stride(from: 0, to: identifiers.count, by: 1000) {
            let batch = Array(identifiers[start..<min(start + 1000, identifiers.count)])
            let body: Data
            do { body = try JSONText.data([sent: batch]) } catch { throw .internalError("cannot encode \(path): \(error)") }
            guard let map = try json(.POST, path, body: body)[answered] as? [String: Value] else {
                throw .networkError("POST \(path) answered no \(answered)")
            }
            found.merge(map) { first, _ in first }
        }
        return found
    }
}
