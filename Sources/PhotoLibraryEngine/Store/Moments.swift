import Crypto
import Foundation

/// What a computed moment or moment list groups.
package enum MomentKey: Sendable, Hashable {
    /// Assets of one local day at one place (a 0.25° cell, or no location).
    case moment(day: String, place: String)
    /// Moments of one year (`PHCollectionListSubtype.momentListYear`).
    case year(String)
    /// Moments of one month (`PHCollectionListSubtype.momentListCluster`).
    case cluster(String)
}

/// Moments are not stored: they are derived from the assets' local capture day and place, so they can never
/// disagree with the assets. Their identifiers are derived from what they group, so they are stable.
package enum Moments {
    /// The local calendar day of a capture instant in its original UTC offset (`yyyy-MM-dd`).
    package static func localDay(of date: Date?, offsetSeconds: Int?) -> String? {
        guard let date else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: offsetSeconds ?? 0) ?? TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
    }

    /// The place cell of a location: 0.25° squares (about 28 km), or "" without a location.
    package static func placeCell(_ location: LocationRecord?) -> String {
        guard let location else { return "" }
        let lat = Int((location.latitude * 4).rounded(.down))
        let lon = Int((location.longitude * 4).rounded(.down))
        return "\(lat),\(lon)"
    }

    /// A UUID-shaped local identifier derived from a moment key.
    package static func localIdentifier(kind: String, key: String) -> String {
        let digest = Array(SHA256.hash(data: Data("\(kind):\(key)".utf8)))
        let hex = digest.prefix(16).map { String(format: "%02X", $0) }.joined()
        let chars = Array(hex)
        let uuid = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(chars[$0]) }.joined(separator: "-")
        return "\(uuid)/L0/\(kind == "moment" ? "060" : "070")"
    }
}
