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
        // A search whose words become a statement of their own around the page's other conditions (the rest of the
        // search stays among those): SQLite's in the search index's timeline order, PostgreSQL's few matches (or a
        // window's) sorted by the documents' copy of the date before any asset is read.
        let words = options.search?.words ?? []
        var ordered: SearchQuery?
        if let search = options.search, !words.isEmpty,
            search.plan == .timeline && search.window != nil || dialect.kind == .postgreSQL && search.plan == .matchesFirst
        {
            ordered = search
            var rest = search
            rest.words = []
            unlimited.search = rest.matchesNothing ? nil : rest
        }
        var query = try assetQuery(scope: scope, options: unlimited)
        let terms = query.order
        if let search = ordered {
            let dated = terms.first?.expression == "a.creation_date"
            let inTimeline = dated && terms.first?.ascending == search.window?.ascending
            let byDateAndID =
                dated && terms.count == 2 && terms[1].expression == "a.id" && terms[0].ascending == terms[1].ascending && query.from == "asset a"
            if search.plan == .timeline ? !inTimeline : !byDateAndID {
                // Not that order: the search is one of the page's conditions.
                ordered = nil
                unlimited.search = options.search
                query = try assetQuery(scope: scope, options: unlimited)
            }
        }
        let selected = (["a.id"] + terms.map(\.expression)).joined(separator: ", ")
        let order = terms.map { dialect.orderTerm($0.expression, ascending: $0.ascending) }.joined(separator: ", ")
        func statement(_ condition: SQLFragment?, documents documentCondition: SQLFragment?) -> SQLFragment {
            var parts = [query.whereClause] + (condition.map { [$0] } ?? [])
            var from = SQLFragment(query.from, query.fromArguments)
            var order = order
            if let search = ordered, let window = search.window, search.plan == .timeline {
                parts.append(
                    dialect.timelineSearchCondition(
                        words, ascending: window.ascending, after: window.after, limit: limit, from: from,
                        conditions: SQLFragment.joined(parts, separator: " AND ")))
            } else if let search = ordered {
                // The matching documents after the cursor, sorted; their assets read in that order until the page is full.
                let documents = SQLFragment.joined(
                    [SQLDialect.searchDocumentCondition(words, window: search.window, drivingWord: search.drivingWord)]
                        + (documentCondition.map { [$0] } ?? []), separator: " AND ")
                let documentOrder = [("s.creation_date", terms[0].ascending), ("s.asset_id", terms[1].ascending)]
                    .map { dialect.orderTerm($0.0, ascending: $0.1) }.joined(separator: ", ")
                from = SQLFragment(
                    "(SELECT s.asset_id, s.creation_date FROM asset_search s WHERE \(documents.sql) ORDER BY \(documentOrder)) s "
                        + "JOIN asset a ON a.id = s.asset_id", documents.arguments)
                order = documentOrder
            }
            let whereClause = SQLFragment.joined(parts, separator: " AND ")
            let sql = "SELECT \(selected) FROM \(from.sql) WHERE \(whereClause.sql) ORDER BY \(order) LIMIT ?"
            return SQLFragment(sql, from.arguments + whereClause.arguments + [.integer(Int64(limit))])
        }
        let conditions = try keysetConditions(terms, after: key)
        var documentConditions = conditions.map { _ in SQLFragment?.none }
        if let search = ordered, search.plan != .timeline {
            // The documents' copies of the two terms (PostgreSQL's sorted matches): the same conditions on them.
            let documentTerms = [("s.creation_date", terms[0].ascending), ("s.asset_id", terms[1].ascending)]
                .map { AssetQuery.SortTerm(expression: $0.0, ascending: $0.1) }
            documentConditions = try keysetConditions(documentTerms, after: key)
        }
        return (zip(conditions, documentConditions).map { statement($0, documents: $1) }, terms.count)
    }

    /// The conditions of the statements of a page after `key` in the order of `terms`, run one after the other: one
    /// nil condition for the first page.
    ///
    /// Two terms (one sort key, then the row id, never NULL): a NULL can only be in the first. With more, a row whose
    /// middle term is NULL fails a row-value comparison it should pass, so those take the expanded form.
    private func keysetConditions(_ terms: [AssetQuery.SortTerm], after key: [SQLValue]?) throws(FetchPredicateError) -> [SQLFragment?] {
        guard let key else { return [nil] }
        guard key.count == terms.count else {
            throw .badArgument(format: "cursor", message: "the cursor was made for a fetch with another sort order")
        }
        if terms.count <= 2, Set(terms.map(\.ascending)).count == 1, !key.contains(.null) {
            let rowValue = SQLFragment(
                "(\(terms.map(\.expression).joined(separator: ", "))) \(terms[0].ascending ? ">" : "<") (\(terms.map { _ in "?" }.joined(separator: ", ")))",
                key)
            if terms[0].ascending { return [rowValue] }
            return [rowValue, SQLFragment("\(terms[0].expression) IS NULL")]
        }
        return [Self.keysetCondition(terms, key, dialect: dialect)]
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
        window.start = nil
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
