import Foundation
import PhotoLibraryEngine

/// OpenPhotoKit: the row ids of a fetch as a served library streams them to a remote PhotoKit client
/// (`GET /v1/assets/ids`). Package API: the server's.
package struct ServedAssetIDs: Sendable {
    let stream: AssetIDStream

    /// The ids from `start` on that have arrived (at most `limit`), waiting until one has; empty at the end.
    package func arrived(from start: Int, limit: Int) -> ArraySlice<Int64> { stream.arrived(from: start, limit: limit) }

    /// How many ids the membership has, when the library counted them in the read that steps them (its tallies);
    /// nil when only the ids tell.
    package var count: Int? { stream.expectedCount }

    /// Why the membership could not be read to its end (the server must not answer it as whole), once all ids have
    /// arrived.
    package var failure: PHPhotosError? {
        guard let error = stream.failureReason else { return nil }
        return (error as? LibraryError).map(PHPhotosError.init) ?? PHPhotosError(.internalError, userInfo: [NSLocalizedDescriptionKey: "\(error)"])
    }
}

/// OpenPhotoKit: which assets a remote client's fetch draws from (its `scope`), read and checked. Package API.
package struct ServedAssetScope: Sendable {
    let scope: AssetScope

    /// The library's assets (`fetchAssets(with:)`).
    package static let library = ServedAssetScope(scope: .library)

    private init(scope: AssetScope) { self.scope = scope }

    /// Reads a request's `scope` object.
    /// - throws: ``PHPhotosError`` `invalidResource`, saying what is wrong.
    package init(_ json: Any) throws {
        do { scope = try FetchScopeWire.decodeAssetScope(json) } catch { throw PHPhotosError(error) }
    }
}

/// OpenPhotoKit: which collections a remote client's fetch draws from, and of which kind. Package API.
package struct ServedCollectionScope: Sendable {
    let scope: FetchScopeWire.CollectionFetch
    let entity: FetchEntity
    /// The class the fetch's options are checked against.
    package let objectClass: PHObject.Type

    /// Reads a request's `scope` object and `entity` (`assetCollection`, `collectionList` or `collection`).
    /// - throws: ``PHPhotosError`` `invalidResource`, saying what is wrong.
    package init(_ json: Any, entity: String) throws {
        do { scope = try FetchScopeWire.decodeCollectionFetch(json) } catch { throw PHPhotosError(error) }
        switch entity {
        case "assetCollection": (self.entity, objectClass) = (.assetCollection, PHAssetCollection.self)
        case "collectionList": (self.entity, objectClass) = (.collectionList, PHCollectionList.self)
        case "collection": (self.entity, objectClass) = (.collection, PHCollection.self)
        default:
            throw PHPhotosError(
                .invalidResource, userInfo: [NSLocalizedDescriptionKey: "entity must be assetCollection, collectionList or collection"])
        }
    }
}

extension PHPhotoLibrary {
    /// The wire form of the stored collections a remote client's fetch answers, in order.
    package func servedCollectionRecords(_ scope: ServedCollectionScope, options: PHFetchOptions) throws -> Data {
        let spec: FetchOptionsSpec
        do { spec = try PHFetchOptions.spec(from: options) } catch { throw FetchOptionsError(error) }
        do {
            let engine = try engine()
            let records: [CollectionRecord]
            switch scope.scope {
            case .stored(let stored): records = try engine.fetchCollections(scope: stored, entity: scope.entity, options: spec, access: access)
            case .moments(let filter): records = try engine.fetchMoments(filter, options: spec, access: access)
            case .momentLists(let subtype): records = try engine.fetchMomentLists(subtype: subtype, access: access)
            }
            return try CollectionWireRecord.encode(records.map(CollectionWireRecord.init))
        } catch let error as LibraryError {
            throw PHPhotosError(error)
        } catch let error as FetchPredicateError {
            throw FetchOptionsError(error)
        }
    }

    /// The row ids of the assets `options` fetch in `scope`, in order, as one read transaction reads them, and the
    /// newest transaction that state reflects: what a remote client's `PHFetchResult` holds. Unusable options
    /// throw instead of trapping (they come from a request).
    package func servedAssetIDs(options: PHFetchOptions, scope: ServedAssetScope = .library) throws -> (ids: ServedAssetIDs, changeToken: Int64) {
        let spec: FetchOptionsSpec
        do { spec = try PHFetchOptions.spec(from: options) } catch { throw FetchOptionsError(error) }
        do {
            let (stream, version) = try engine().streamAssetIDs(scope: scope.scope, options: spec, access: access)
            return (ServedAssetIDs(stream: stream), version)
        } catch let error as LibraryError {
            throw PHPhotosError(error)
        } catch let error as FetchPredicateError {
            throw FetchOptionsError(error)
        }
    }

    /// The wire form of what a remote client makes an editing input of (`GET /v1/assets/{id}/editing-state`), checked
    /// as a local request for an editing input is.
    package func servedEditingState(localIdentifier: String, rawChosen: Bool) throws -> Data {
        do { return try engine().servedEditingState(localIdentifier: localIdentifier, access: access, rawChosen: rawChosen) } catch {
            throw PHPhotosError(error)
        }
    }

    /// The wire form of the files of the assets among `ids` the client may see (`POST /v1/assets/resources`).
    package func servedResourceRecords(_ ids: [Int64]) throws -> Data {
        do { return try ResourceWireRecord.encode(try engine().resources(ofAssets: ids, visibleTo: access)) } catch let error as LibraryError {
            throw PHPhotosError(error)
        }
    }

    /// The wire form of assets by row id (those the client may see, in the order asked; unknown ids left out), with
    /// their extended metadata when asked: the body of `POST /v1/assets/records`' answer — JSON columns, or with
    /// `binary` the remote client's compact form (``binaryAssetRecordsType``).
    /// The content type of the binary form of asset records.
    package static let binaryAssetRecordsType = AssetWireBinary.contentType

    /// How many of the assets of some handles the client may see have a media type (a remote result's
    /// `countOfAssets(with:)`).
    package func servedCount(_ ids: ContiguousArray<Int64>, mediaType: Int) throws -> Int {
        do { return try engine().countAssets(ids, mediaType: mediaType, visibleTo: access) } catch { throw PHPhotosError(error) }
    }

    package func servedAssetRecords(_ ids: [Int64], extendedMetadata: Bool, binary: Bool = false) throws -> Data {
        do {
            let records = try engine().loadAssets(ids, visibleTo: access, extendedMetadata: extendedMetadata)
            return binary ? AssetWireBinary.encode(records) : try AssetWireRecord.encode(records)
        } catch let error as LibraryError {
            throw PHPhotosError(error)
        }
    }
}

/// OpenPhotoKit: the change requests of one remote client's change block, read and checked (package API: the
/// server's).
package struct ServedChangeBlock: Sendable {
    let intents: [ChangeIntent]

    /// Reads the requests of `POST /v1/changes` `{"requests": […]}`; `upload` answers the file of an upload id a
    /// created asset's resource names (the library moves it in).
    /// - throws: ``PHPhotosError`` `invalidResource`, saying what does not read as PhotoKit's change requests, or
    ///   what `upload` threw.
    package init(_ requests: [Any], upload: (String) throws -> URL) throws {
        var failure: (any Error)?
        do {
            intents = try ChangeRequestWire.decode(requests) { id throws(LibraryError) in
                do { return try upload(id) } catch {
                    failure = error
                    throw .identifierNotFound("no upload \(id)")
                }
            }
        } catch {
            if let failure { throw failure }
            throw PHPhotosError(error)
        }
    }
}

extension PHPhotoLibrary {
    /// Applies a remote client's change block, all or nothing, with this handle's access.
    /// - throws: ``PHPhotosError``: what the library refuses.
    package func applyServedChangeBlock(_ block: ServedChangeBlock) throws {
        if block.intents.isEmpty { return }
        do { _ = try engine().apply(block.intents, access: access) } catch { throw PHPhotosError(error) }
    }
}

extension PHPhotoLibrary {
    /// For a served library: how many times this handle asked its server for the files of assets (what the
    /// batching of `PHAssetResource.assetResources(for:)` in a loop saves); 0 for a library on this machine.
    package var servedResourceRequests: Int { remote?.resourceRequestCount ?? 0 }
}
