import Foundation

/// Keyset pagination of asset fetches: a page is the rows after the last one the client saw, in the fetch's total
/// order, so pages stay exact while other clients insert and delete (an offset would skip or repeat rows).
extension FetchPlanner {
    /// `SELECT a.id, <sort values…> FROM … WHERE … AND (after the key) ORDER BY … LIMIT ?`, as one statement or
    /// two run one after the other (the rows of the second follow those of the first).
    ///
    /// The key is the previous page's last row's sort values, which the statement selects after the id. When every
    /// term sorts the same way and no value can be NULL the condition is one row-value comparison, which SQLite answers
    /// with a range scan of an index in that order (the timeline's `asset_timeline`). Descending, rows whose first
    /// term is NULL sort after every other one (SQLite's NULL order): they are the second statement, because an `OR`
    /// in the first would turn its range scan into a scan from the top of the index — a page 100 pages deep read
    /// 50,000 rows. Otherwise the condition is the expanded lexicographic form.
    package func assetPage(scope: AssetScope, options: FetchOptionsSpec, after key: [SQLValue]?, limit: Int) throws(FetchPredicateError)
        -> (statements: [SQLFragment], keyCount: Int)
    {
        var unlimited = options
        unlimited.fetchLimit = 0
        // A search in the search index's timeline order (SQLite): its words become a condition of each statement,
        // which the page's other conditions (and the cursor's) are part of; the rest of the search stays.
        var timeline: (words: [[String]], window: SearchQuery.DateWindow)?
        if let search = options.search, search.plan == .timeline, let window = search.window, !search.words.isEmpty {
            timeline = (search.words, window)
            var rest = search
            rest.words = []
            unlimited.search = rest.matchesNothing ? nil : rest
        }
        var query = try assetQuery(scope: scope, options: unlimited)
        let terms = query.order
        if timeline != nil, terms.first?.expression != "a.creation_date" || terms.first?.ascending != timeline?.window.ascending {
            // Not the timeline's order: the search walks the fetch's order (as `.orderFirst`).
            timeline = nil
            unlimited.search = options.search
            query = try assetQuery(scope: scope, options: unlimited)
        }
        let selected = (["a.id"] + terms.map(\.expression)).joined(separator: ", ")
        let order = terms.map { dialect.orderTerm($0.expression, ascending: $0.ascending) }.joined(separator: ", ")
        func statement(_ condition: SQLFragment?) -> SQLFragment {
            var parts = [query.whereClause] + (condition.map { [$0] } ?? [])
            if let timeline {
                parts.append(
                    dialect.timelineSearchCondition(
                        timeline.words, ascending: timeline.window.ascending, after: timeline.window.after, limit: limit,
                        from: SQLFragment(query.from, query.fromArguments), conditions: SQLFragment.joined(parts, separator: " AND ")))
            }
            let whereClause = SQLFragment.joined(parts, separator: " AND ")
            let sql = "SELECT \(selected) FROM \(query.from) WHERE \(whereClause.sql) ORDER BY \(order) LIMIT ?"
            return SQLFragment(sql, query.fromArguments + whereClause.arguments + [.integer(Int64(limit))])
        }
        guard let key else { return ([statement(nil)], terms.count) }
        guard key.count == terms.count else {
            throw .badArgument(format: "cursor", message: "the cursor was made for a fetch with another sort order")
        }
        // Two terms (one sort key, then the row id, never NULL): a NULL can only be in the first. With more, a row
        // whose middle term is NULL fails a row-value comparison it should pass, so those take the expanded form.
        if terms.count <= 2, Set(terms.map(\.ascending)).count == 1, !key.contains(.null) {
            let rowValue = SQLFragment(
                "(\(terms.map(\.expression).joined(separator: ", "))) \(terms[0].ascending ? ">" : "<") (\(terms.map { _ in "?" }.joined(separator: ", ")))",
                key)
            if terms[0].ascending { return ([statement(rowValue)], terms.count) }
            return ([statement(rowValue), statement(SQLFragment("\(terms[0].expression) IS NULL"))], terms.count)
        }
        return ([statement(Self.keysetCondition(terms, key, dialect: dialect))], terms.count)
    }

    /// The window of dates a page of the search in `options` looks in (see ``SearchQuery/DateWindow``), oriented as
    /// the page's order from the cursor's date, its bound yet to read; nil when there is none, when the page is not
    /// sorted by creation date first, or when it follows a row of no date.
    package func searchWindow(scope: AssetScope, options: FetchOptionsSpec, after key: [SQLValue]?) throws(FetchPredicateError)
        -> SearchQuery.DateWindow?
    {
        guard var window = options.search?.window else { return nil }
        let terms = try assetQuery(scope: scope, options: options).order
        guard terms.first?.expression == "a.creation_date" else { return nil }
        window.ascending = terms[0].ascending
        switch key?.first {
        case nil: window.after = nil
        case .real(let date): window.after = date
        default: return nil
        }
        window.bound = nil
        return window
    }

    /// The lexicographic "after the key" condition, term by term, with SQLite's NULL order (NULLs first ascending,
    /// last descending).
    static func keysetCondition(_ terms: [AssetQuery.SortTerm], _ key: [SQLValue], dialect: SQLDialect) -> SQLFragment {
        var alternatives: [SQLFragment] = []
        for index in terms.indices {
            var parts: [SQLFragment] = terms[..<index].enumerated().map { offset, term in
                dialect.isSame(term.expression, as: key[offset])
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
        if alternatives.isEmpty { return SQLFragment("FALSE") }
        let joined = SQLFragment.joined(alternatives.map { SQLFragment("(\($0.sql))", $0.arguments) }, separator: " OR ")
        return SQLFragment("(\(joined.sql))", joined.arguments)
    }
}
