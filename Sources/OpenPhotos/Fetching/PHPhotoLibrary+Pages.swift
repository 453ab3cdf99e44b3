import Foundation
import PhotoLibraryEngine

/// Keyset pages of asset fetches, for `photos serve` (package API: PhotoKit has no pages, a fetch result is
/// already lazy in process). A page is the assets after the last one of the page before in the fetch's total order
/// (its sort keys, then the asset's row), so paging stays exact while assets are added and removed meanwhile.
extension PHPhotoLibrary {
    /// The first `limit` assets of a fetch after `cursor` (nil: from the start), and the cursor of the next page
    /// (nil after the last one). `collection` scopes the fetch as `fetchAssets(in:options:)` does.
    /// - throws: ``FetchOptionsError`` for unsupported options or a cursor that is not one of this fetch's;
    ///   ``PHPhotosError`` when the library cannot be read.
    package func fetchAssetPage(
        in collection: PHAssetCollection? = nil, options: PHFetchOptions, cursor: String?, limit: Int
    ) throws -> (assets: PHFetchResult<PHAsset>, nextCursor: String?) {
        let scope = collection.map(assetScope(of:)) ?? .library
        if let remote {
            let spec: FetchOptionsSpec
            do { spec = try PHFetchOptions.spec(from: options) } catch { throw FetchOptionsError(error) }
            do {
                let (ids, next) = try remote.fetchAssetPage(scope: scope, options: spec, searchText: options.searchText, cursor: cursor, limit: limit)
                return (PHFetchResult(storage: .assets(remote, AssetIDStream(ContiguousArray(ids))), library: self, options: options), next)
            } catch {
                // The server refused the options or the cursor: as a local fetch says it.
                if error.code == PHPhotosError.Code.invalidResource.rawValue { throw FetchOptionsError(message: error.message, key: nil) }
                throw PHPhotosError(error)
            }
        }
        let engine: LibraryEngine
        do { engine = try self.engine() } catch { throw PHPhotosError(error) }
        let (ids, next) = try assetPage(scope: scope, options: options, cursor: cursor, limit: limit)
        return (PHFetchResult<PHAsset>(storage: .assets(engine, AssetIDStream(ContiguousArray(ids))), library: self, options: options), next)
    }

    /// The handles of a page of a fetch in `scope` (what `POST /v1/assets/ids` answers with a `limit`), and the
    /// cursor of the next page.
    package func servedAssetPage(options: PHFetchOptions, scope: ServedAssetScope, cursor: String?, limit: Int) throws -> (
        ids: [Int64], nextCursor: String?
    ) {
        try assetPage(scope: scope.scope, options: options, cursor: cursor, limit: limit)
    }

    private func assetPage(scope: AssetScope, options: PHFetchOptions, cursor: String?, limit: Int) throws -> (ids: [Int64], nextCursor: String?) {
        let spec: FetchOptionsSpec
        do { spec = try PHFetchOptions.spec(from: options) } catch { throw FetchOptionsError(error) }
        let after = try cursor.map { text in
            guard let cursor = PageCursor(encoded: text, scope: scope, options: spec) else {
                throw FetchOptionsError(message: "the cursor is not one this fetch gave (the filters or the order changed?)", key: "cursor")
            }
            return cursor
        }
        do {
            let (ids, next) = try engine().fetchAssetPage(scope: scope, options: spec, access: access, after: after, limit: limit)
            return (ids, next?.encoded)
        } catch let error as FetchPredicateError {
            throw FetchOptionsError(error)
        } catch let error as LibraryError {
            throw PHPhotosError(error)
        }
    }
}
