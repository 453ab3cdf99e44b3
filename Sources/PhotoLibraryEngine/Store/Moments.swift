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
        let seconds = (date.timeIntervalSince1970 + Double(offsetSeconds ?? 0)).rounded(.down)
        guard seconds.isFinite, abs(seconds) < 1e15 else { return nil }
        let days = Int((seconds / 86_400).rounded(.down))
        let (y, m, d) = civilDate(daysSince1970: days)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
    }

    /// The proleptic Gregorian date of a day number (Howard Hinnant's `civil_from_days`): exact, and far cheaper
    /// than a `Calendar` per asset when importing or building moments.
    static func civilDate(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
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
