import Foundation

/// Counts from the tallies: `asset_tally` holds how many assets each combination of media type, hidden, burst
/// hidden, source type and trashed has, kept by the store's triggers in the transaction that changes the rows. A
/// fetch whose every condition is on those columns — the library, a media type, Videos, Hidden, Recently Deleted,
/// a predicate on `mediaType` or `hidden` — is counted by summing a few rows instead of stepping its matches (a
/// million-asset timeline: microseconds, not 70 ms), so its `count` is known before its ids are read, as Photos'
/// cached counts make it on Apple's devices.
extension FetchPlanner {
    /// The columns of `asset_tally` (alias `a`) that conditions may name.
    static let tallyColumns: Set<Substring> = ["media_type", "is_hidden", "burst_hidden", "source_type", "trashed"]

    /// `SELECT CAST(coalesce(sum(a.n), 0) AS BIGINT) FROM asset_tally a WHERE …`: how many assets the fetch matches before its fetch
    /// limit, or nil when the tallies cannot tell (the fetch filters on anything else, searches, draws from an album's
    /// rows, or the client sees only its selection).
    package func tallyCount(scope: AssetScope, options: FetchOptionsSpec) throws(FetchPredicateError) -> SQLFragment? {
        guard options.search == nil, accessCondition() == nil else { return nil }
        var planner = self
        planner.overTallies = true
        var unordered = options
        unordered.sortKeys = []
        unordered.fetchLimit = 0
        let query = try planner.assetQuery(scope: scope, options: unordered)
        guard query.from == "asset a", Self.namesOnlyTallyColumns(query.whereClause.sql) else { return nil }
        let sum = "SELECT CAST(coalesce(sum(a.n), 0) AS BIGINT) FROM asset_tally a"
        return SQLFragment("\(sum) WHERE \(query.whereClause.sql)", query.whereClause.arguments)
    }

    /// Whether every `table.column` a condition names is a column of the tallies (`a.` and one of them). Values are
    /// statement arguments, never in the text, so the text names only what the planner and compiler wrote.
    static func namesOnlyTallyColumns(_ sql: String) -> Bool {
        sql.matches(of: /([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)/).allSatisfy { match in
            match.output.1 == "a" && tallyColumns.contains(match.output.2)
        }
    }
}
