import Foundation

/// Keyset pagination of asset fetches: a page is the rows after the last one the client saw, in the fetch's total
/// order, so pages stay exact while other clients insert and delete (an offset would skip or repeat rows).
extension FetchPlanner {
    /// `SELECT a.id, <sort values…> FROM … WHERE … AND (after the key) ORDER BY … LIMIT ?`.
    ///
    /// The key is the previous page's last row's sort values, which the statement selects after the id. When every
    /// term sorts the same way and no value is NULL the condition is one row-value comparison, which SQLite answers
    /// with a range scan of an index in that order (the timeline's `asset_timeline`); otherwise it is the expanded
    /// lexicographic form, with SQLite's NULL order (NULLs first ascending, last descending).
    package func assetPage(scope: AssetScope, options: FetchOptionsSpec, after key: [SQLArgument]?, limit: Int) throws(FetchPredicateError)
        -> (statement: SQLFragment, keyCount: Int)
    {
        var unlimited = options
        unlimited.fetchLimit = 0
        let query = try assetQuery(scope: scope, options: unlimited)
        let terms = query.order
        var conditions = [query.whereClause]
        if let key {
            guard key.count == terms.count else {
                throw .badArgument(format: "cursor", message: "the cursor was made for a fetch with another sort order")
            }
            conditions.append(Self.keysetCondition(terms, key))
        }
        let whereClause = SQLFragment.joined(conditions, separator: " AND ")
        let selected = (["a.id"] + terms.map(\.expression)).joined(separator: ", ")
        let order = terms.map { "\($0.expression) \($0.ascending ? "ASC" : "DESC")" }.joined(separator: ", ")
        let sql = "SELECT \(selected) FROM \(query.from) WHERE \(whereClause.sql) ORDER BY \(order) LIMIT ?"
        return (SQLFragment(sql, query.fromArguments + whereClause.arguments + [.integer(Int64(limit))]), terms.count)
    }

    static func keysetCondition(_ terms: [AssetQuery.SortTerm], _ key: [SQLArgument]) -> SQLFragment {
        if Set(terms.map(\.ascending)).count == 1, !key.contains(.null) {
            let ascending = terms[0].ascending
            var fragment = SQLFragment(
                "(\(terms.map(\.expression).joined(separator: ", "))) \(ascending ? ">" : "<") (\(terms.map { _ in "?" }.joined(separator: ", ")))",
                key)
            // Descending, NULLs come last: rows whose first term is NULL follow every non-NULL key.
            if !ascending { fragment = SQLFragment("(\(fragment.sql) OR \(terms[0].expression) IS NULL)", fragment.arguments) }
            return fragment
        }
        var alternatives: [SQLFragment] = []
        for index in terms.indices {
            var parts: [SQLFragment] = terms[..<index].enumerated().map { offset, term in
                SQLFragment("\(term.expression) IS ?", [key[offset]])
            }
            let term = terms[index]
            let value = key[index]
            switch (term.ascending, value) {
            case (true, .null): parts.append(SQLFragment("\(term.expression) IS NOT NULL"))
            case (false, .null): continue  // nothing sorts after NULL when descending
            case (true, _): parts.append(SQLFragment("\(term.expression) > ?", [value]))
            case (false, _): parts.append(SQLFragment("(\(term.expression) < ? OR \(term.expression) IS NULL)", [value]))
            }
            alternatives.append(SQLFragment.joined(parts, separator: " AND "))
        }
        if alternatives.isEmpty { return SQLFragment("0") }
        let joined = SQLFragment.joined(alternatives.map { SQLFragment("(\($0.sql))", $0.arguments) }, separator: " OR ")
        return SQLFragment("(\(joined.sql))", joined.arguments)
    }
}
