import Foundation

/// PostgreSQL's histogram of the search documents' creation dates (`pg_stats`, which `ANALYZE` keeps): bounds that
/// split the dated documents into buckets of equal counts. A window of dates (see ``SearchQuery/DateWindow``) takes
/// its bound from it — the date about `documents` documents away from the cursor's, interpolated within a bucket —
/// instead of counting that many entries of the dates' index (5–10 ms for the 30,000–90,000 documents of a window at
/// a million assets). An estimate is enough: a window that holds less than a page is looked for again without it.
package struct DateHistogram: Sendable, Hashable {
    /// The bounds in ascending order (at least two).
    package var bounds: [Double]
    /// How many dated documents each bucket holds.
    package var perBucket: Double

    /// From `pg_stats`' text form of the bounds (`{1500000227,1500095000,…}`), the share of undated documents and
    /// about how many documents there are; nil without a histogram (a table not analyzed yet) or documents.
    package init?(bounds text: String?, nullFraction: Double, documents: Double) {
        guard let text, documents > 0 else { return nil }
        let bounds = text.trimmingCharacters(in: CharacterSet(charactersIn: "{}")).split(separator: ",").compactMap { Double($0) }
        guard bounds.count >= 2, zip(bounds, bounds.dropFirst()).allSatisfy({ $0 <= $1 }) else { return nil }
        self.bounds = bounds
        self.perBucket = documents * max(0, 1 - nullFraction) / Double(bounds.count - 1)
    }

    /// About how many dated documents come before `date`.
    func position(of date: Double) -> Double {
        guard date > bounds[0] else { return 0 }
        guard let upper = bounds.firstIndex(where: { $0 > date }) else { return Double(bounds.count - 1) * perBucket }
        let (low, high) = (bounds[upper - 1], bounds[upper])
        return (Double(upper - 1) + (high > low ? (date - low) / (high - low) : 0)) * perBucket
    }

    /// The date about `position` dated documents from the first.
    func date(at position: Double) -> Double {
        let bucket = min(Double(bounds.count - 2), max(0, (position / perBucket).rounded(.down)))
        let index = Int(bucket)
        return bounds[index] + (bounds[index + 1] - bounds[index]) * min(1, max(0, position / perBucket - bucket))
    }

    /// The bound of a window of `window.documents` dated documents from `window.after` (or the first or last date) in
    /// the window's order; nil when the window reaches past the last (or first) date: it holds everything.
    package func bound(of window: SearchQuery.DateWindow) -> Double? {
        guard perBucket > 0 else { return nil }
        let end = Double(bounds.count - 1) * perBucket
        let documents = Double(max(0, window.documents))
        if window.ascending {
            let target = window.after.map(position(of:)).map { $0 + documents } ?? documents
            return target < end ? date(at: target) : nil
        }
        let target = (window.after.map(position(of:)) ?? end) - documents
        return target > 0 ? date(at: target) : nil
    }
}
