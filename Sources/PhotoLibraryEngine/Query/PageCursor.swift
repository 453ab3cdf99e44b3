import Foundation

/// Where the next keyset page of an asset fetch starts: the sort values of the last row of the page before, bound
/// to the fetch it came from (its scope, filters and order, not its limit). Clients hold it as opaque text.
package struct PageCursor: Sendable, Equatable {
    /// The sort values of the last row, then its row id.
    let key: [SQLValue]
    /// What the cursor is valid for.
    let fingerprint: String

    init(key: [SQLValue], scope: AssetScope, options: FetchOptionsSpec) {
        self.key = key
        self.fingerprint = Self.fingerprint(scope: scope, options: options)
    }

    /// Reads a cursor a client sent back; nil when it is not one of this fetch's (the filters or the order changed,
    /// or it was never one at all).
    package init?(encoded: String, scope: AssetScope, options: FetchOptionsSpec) {
        let fingerprint = Self.fingerprint(scope: scope, options: options)
        guard encoded.utf8.count <= 4096, let data = Data(base64URLEncoded: encoded),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], object["f"] as? String == fingerprint,
            let values = object["k"] as? [Any]
        else { return nil }
        var key: [SQLValue] = []
        for value in values {
            if value is NSNull {
                key.append(.null)
                continue
            }
            guard let tagged = value as? [String: Any], tagged.count == 1 else { return nil }
            if let text = tagged["i"] as? String, let integer = Int64(text) {
                key.append(.integer(integer))
            } else if let bits = tagged["d"] as? String, let pattern = UInt64(bits, radix: 16) {
                key.append(.real(Double(bitPattern: pattern)))
            } else if let text = tagged["t"] as? String {
                key.append(.text(text))
            } else {
                return nil
            }
        }
        self.key = key
        self.fingerprint = fingerprint
    }

    /// The cursor as text a client can hold (URL-safe base64 of a small JSON object).
    package var encoded: String {
        let values: [Any] = key.map {
            switch $0 {
            case .null, .blob: NSNull()  // no sort key is a blob
            case .integer(let value): ["i": String(value)]
            // The exact double (its bits): a decimal rounding of a date made pages skip or repeat assets that share it.
            case .real(let value): ["d": String(value.bitPattern, radix: 16)]
            case .text(let value): ["t": value]
            }
        }
        let data = (try? JSONSerialization.data(withJSONObject: ["f": fingerprint, "k": values], options: [.sortedKeys])) ?? Data()
        return data.base64URLEncoded
    }

    /// What a cursor is valid for: the scope, filters and order it was made with (not the limit), as a hash that
    /// stays the same across runs and processes (FNV-1a, 64 bits; `Hasher` is seeded per process).
    private static func fingerprint(scope: AssetScope, options: FetchOptionsSpec) -> String {
        var options = options
        options.fetchLimit = 0
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(scope)|\(options)".utf8 {
            value ^= UInt64(byte)
            value &*= 0x100_0000_01b3
        }
        return String(value, radix: 36)
    }
}
