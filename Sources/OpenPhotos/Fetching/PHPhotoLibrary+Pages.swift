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
        let fingerprint = Self.cursorFingerprint(scope: scope, spec: spec)
        let key = try cursor.map { try Self.decodeCursor($0, fingerprint: fingerprint) }
        let engine: LibraryEngine
        do { engine = try self.engine() } catch { throw PHPhotosError(error) }
        do {
            let (ids, next) = try engine.fetchAssetPage(scope: scope, options: spec, access: access, after: key, limit: limit)
            let result = PHFetchResult<PHAsset>(storage: .assets(engine, AssetIDStream(ContiguousArray(ids))), library: self, options: options)
            return (result, next.map { Self.encodeCursor($0, fingerprint: fingerprint) })
        } catch let error as FetchPredicateError {
            throw FetchOptionsError(error)
        } catch let error as LibraryError {
            throw PHPhotosError(error)
        }
    }

    /// What a cursor is valid for: the scope, filters and order it was made with (not the limit).
    private static func cursorFingerprint(scope: AssetScope, spec: FetchOptionsSpec) -> String {
        var spec = spec
        spec.fetchLimit = 0
        var hasher = Insecure.FNV1a()
        hasher.combine("\(scope)|\(spec)")
        return String(hasher.value, radix: 36)
    }

    private static func encodeCursor(_ key: [SQLArgument], fingerprint: String) -> String {
        let values: [Any] = key.map {
            switch $0 {
            case .null: NSNull()
            case .integer(let value): ["i": String(value)]
            // The exact double (its bits): a decimal rounding of a date made pages skip or repeat assets that share it.
            case .real(let value): ["d": String(value.bitPattern, radix: 16)]
            case .text(let value): ["t": value]
            }
        }
        let data = (try? JSONSerialization.data(withJSONObject: ["f": fingerprint, "k": values], options: [.sortedKeys])) ?? Data()
        return data.base64URLEncoded
    }

    private static func decodeCursor(_ cursor: String, fingerprint: String) throws -> [SQLArgument] {
        let invalid = FetchOptionsError(message: "the cursor is not one this fetch gave (the filters or the order changed?)", key: "cursor")
        guard cursor.utf8.count <= 4096, let data = Data(base64URLEncoded: cursor),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], object["f"] as? String == fingerprint,
            let values = object["k"] as? [Any]
        else { throw invalid }
        return try values.map { value -> SQLArgument in
            if value is NSNull { return .null }
            guard let tagged = value as? [String: Any], tagged.count == 1 else { throw invalid }
            if let text = tagged["i"] as? String, let integer = Int64(text) { return .integer(integer) }
            if let bits = tagged["d"] as? String, let pattern = UInt64(bits, radix: 16) { return .real(Double(bitPattern: pattern)) }
            if let text = tagged["t"] as? String { return .text(text) }
            throw invalid
        }
    }
}

/// A small stable hash (FNV-1a, 64 bits) for fingerprints that must not change between runs, unlike `Hasher`.
private enum Insecure {
    struct FNV1a {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        mutating func combine(_ text: String) {
            for byte in text.utf8 {
                value ^= UInt64(byte)
                value &*= 0x100_0000_01b3
            }
        }
    }
}
