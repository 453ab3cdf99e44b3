import Foundation
import HTTPTypes

/// Local identifiers in URLs. PhotoKit's identifiers contain slashes (`UUID/L0/001`), which proxies treat
/// inconsistently when percent-encoded, so paths use the identifier with `/` written as `_` (`UUID_L0_001`); the
/// percent-encoded identifier and, for assets, the bare UUID are accepted too. Responses give both forms (`id`,
/// `localIdentifier`).
enum ObjectID {
    /// The URL form of a local identifier.
    static func urlForm(_ localIdentifier: String) -> String {
        // Byte by byte: Foundation's `replacingOccurrences` costs more than the rest of an asset's JSON.
        String(decoding: localIdentifier.utf8.map { $0 == UInt8(ascii: "/") ? UInt8(ascii: "_") : $0 }, as: UTF8.self)
    }

    /// The local identifier a path component names.
    static func localIdentifier(_ component: String) throws -> String {
        guard let decoded = component.removingPercentEncoding, !decoded.isEmpty, decoded.utf8.count <= 200 else {
            throw APIError.badRequest("\(component.debugDescription) is not an identifier")
        }
        if decoded.contains("/") { return decoded }
        return decoded.replacingOccurrences(of: "_", with: "/")
    }

    /// The asset local identifier a path component names (a bare UUID gets the asset suffix).
    static func assetIdentifier(_ component: String) throws -> String {
        let identifier = try localIdentifier(component)
        return UUID(uuidString: identifier) != nil ? "\(identifier.uppercased())/L0/001" : identifier
    }
}
