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
        let spec: FetchOptionsSpec
        do { spec = try PHFetchOptions.spec(from: options) } catch { throw FetchOptionsError(error) }
        let scope = collection.map(assetScope(of:)) ?? .library
        let after = try cursor.map { text in
            guard let cursor = PageCursor(encoded: text, scope: scope, options: spec) else {
                throw FetchOptionsError(message: "the cursor is not one this fetch gave (the filters or the order changed?)", key: "cursor")
            }
            return cursor
        }
        let engine: LibraryEngine
        do { engine = try self.engine() } catch { throw PHPhotosError(error) }
        do {
            let (ids, next) = try engine.fetchAssetPage(scope: scope, options: spec, access: access, after: after, limit: limit)
            let result = PHFetchResult<PHAsset>(storage: .assets(engine, AssetIDStream(ContiguousArray(ids))), library: self, options: options)
            return (result, next?.encoded)
        } catch let error as FetchPredicateError {
            throw FetchOptionsError(error)
        } catch let error as LibraryError {
            throw PHPhotosError(error)
        }
    }
}
