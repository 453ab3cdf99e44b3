import Foundation

/// Where the SQL of the databases the engine runs on differs, asked by the planner and the few hand-written
/// statements so that the engine keeps one body of SQL. Placeholders are always `?` (a store that numbers them
/// rewrites the text); upserts use `ON CONFLICT`, new row ids `RETURNING`, both of which SQLite and PostgreSQL
/// share. What is left is here.
package struct SQLDialect: Sendable, Hashable {
    package enum Kind: Sendable, Hashable {
        case sqlite
        case postgreSQL
    }

    package let kind: Kind

    /// SQLite 3.35 or later (`RETURNING`), with JSON functions.
    package static let sqlite = SQLDialect(kind: .sqlite)
    /// PostgreSQL 15.
    package static let postgreSQL = SQLDialect(kind: .postgreSQL)

    /// A table expression of `values` in order, aliased `alias`, with columns `value` and `key` (the position): a
    /// list of any length in one parameter.
    package func list(_ values: [SQLValue], as alias: String) -> SQLFragment {
        switch kind {
        case .sqlite: SQLFragment("json_each(?) \(alias)", [.text(Self.jsonArray(values))])
        case .postgreSQL:
            SQLFragment(
                "(SELECT \(Self.element(of: values)) AS value, t.key FROM jsonb_array_elements_text(?::jsonb) WITH ORDINALITY AS t(value, key)) \(alias)",
                [.text(Self.jsonArray(values))])
        }
    }

    /// `expression IN values`, for a list of any length in one parameter.
    ///
    /// On PostgreSQL an array (`= ANY`), which the planner reads as a list of keys (an index scan where there is an
    /// index) whatever its statistics say: an `IN (subquery)` over a function's rows, planned before the table was
    /// analyzed, can be run as a subplan per row — a thousand ids against a million rows took half a minute.
    package func isIn(_ expression: String, _ values: [SQLValue]) -> SQLFragment {
        switch kind {
        case .sqlite: SQLFragment("\(expression) IN (SELECT value FROM json_each(?))", [.text(Self.jsonArray(values))])
        case .postgreSQL:
            if values.allSatisfy({ if case .integer = $0 { true } else { false } }) {
                SQLFragment(
                    "\(expression) = ANY(?::bigint[])",
                    [.text("{" + values.map { if case .integer(let i) = $0 { String(i) } else { "" } }.joined(separator: ",") + "}")])
            } else {
                SQLFragment(
                    "\(expression) = ANY(ARRAY(SELECT t.value FROM jsonb_array_elements_text(?::jsonb) AS t(value)))",
                    [.text(Self.jsonArray(values))])
            }
        }
    }

    /// A query of one row and column: the last row id `table`'s `AUTOINCREMENT` handed out (0: none yet), which
    /// deleting rows does not lower.
    package func lastIssuedID(of table: String) -> SQLFragment {
        switch kind {
        case .sqlite: SQLFragment("SELECT seq FROM sqlite_sequence WHERE name = ?", [.text(table)])
        case .postgreSQL:
            // NULL (none issued yet) reads as nil, which callers take as 0.
            SQLFragment("SELECT pg_sequence_last_value(pg_get_serial_sequence(?, 'id'))", [.text(table)])
        }
    }

    /// What a `SELECT` that picks a row to claim ends with: PostgreSQL locks the row and skips rows other
    /// transactions hold (`FOR UPDATE SKIP LOCKED`), so that claimers never wait for each other; SQLite's writers are
    /// one at a time already.
    package var claimingRows: String {
        switch kind {
        case .sqlite: ""
        case .postgreSQL: " FOR UPDATE SKIP LOCKED"
        }
    }

    /// Statements that set assets' search documents: each `tokens`, folded tokens separated by spaces (see
    /// ``SearchQuery``). SQLite's FTS5 table splits them with its `ascii` tokenizer (ASCII punctuation and spaces
    /// separate, every other character is part of a token): exactly these tokens, each document under the asset's
    /// timeline key (see ``timelineKey(date:id:)``). PostgreSQL gets them as `tsvector` literals with positions, which
    /// no text parser or dictionary touches (its parser's idea of a letter depends on the database's locale), all in
    /// one statement, with each asset's creation date (see ``dateWindowCondition(_:)``).
    package func setSearchDocuments(_ documents: [(assetID: Int64, tokens: String)]) -> [SQLFragment] {
        if documents.isEmpty { return [] }
        switch kind {
        case .sqlite:
            // One document (an asset created or changed alone) in statements of fixed text, which stay prepared.
            let key = Self.timelineKey(date: "a.creation_date", id: "a.id")
            let removal =
                documents.count == 1
                ? SQLFragment("DELETE FROM asset_search WHERE rowid = (SELECT \(key) FROM asset a WHERE a.id = ?)", [.integer(documents[0].assetID)])
                : SQLFragment(
                    "DELETE FROM asset_search WHERE rowid IN (SELECT \(key) FROM asset a WHERE a.id IN (\(documents.map { String($0.assetID) }.joined(separator: ","))))"
                )
            return [removal]
                + documents.map {
                    SQLFragment(
                        "INSERT INTO asset_search (rowid, document) SELECT \(key), ? FROM asset a WHERE a.id = ?",
                        [.text($0.tokens), .integer($0.assetID)])
                }
        case .postgreSQL:
            let rows = documents.map { [$0.assetID as Any, Self.tsvectorLiteral($0.tokens)] }
            let json = (try? JSONSerialization.data(withJSONObject: rows)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
            return [
                SQLFragment(
                    """
                    INSERT INTO asset_search (asset_id, document, creation_date)
                    SELECT (e->>0)::bigint, (e->>1)::tsvector, a.creation_date
                    FROM jsonb_array_elements(?::jsonb) AS e JOIN asset a ON a.id = (e->>0)::bigint
                    ON CONFLICT (asset_id) DO UPDATE SET document = excluded.document, creation_date = excluded.creation_date
                    """,
                    [.text(json)])
            ]
        }
    }

    /// One row and column: whether the asset's search document is exactly `tokens` (``setSearchDocuments(_:)``'s
    /// form; PostgreSQL compares the `tsvector`s).
    package func searchDocumentIs(assetID: Int64, tokens: String) -> SQLFragment {
        switch kind {
        case .sqlite:
            SQLFragment(
                "SELECT EXISTS (SELECT 1 FROM asset_search WHERE rowid = (SELECT \(Self.timelineKey(date: "a.creation_date", id: "a.id")) FROM asset a WHERE a.id = ?) AND document = ?)",
                [.integer(assetID), .text(tokens)])
        case .postgreSQL:
            SQLFragment(
                """
                SELECT EXISTS (SELECT 1 FROM asset_search s JOIN asset a ON a.id = s.asset_id
                WHERE s.asset_id = ? AND s.document = ?::tsvector AND s.creation_date IS NOT DISTINCT FROM a.creation_date)
                """,
                [.integer(assetID), .text(Self.tsvectorLiteral(tokens))])
        }
    }

    /// One row and column: how many search documents there are.
    package var searchDocumentCount: String { "SELECT count(*) FROM asset_search" }

    /// One row and column (PostgreSQL): about how many search documents there are, as its statistics say (0 before
    /// the table was first analyzed).
    package var searchDocumentEstimate: String {
        "SELECT greatest(reltuples, 0)::float8 FROM pg_class WHERE oid = to_regclass('asset_search')"
    }

    /// `a.id` is an asset whose search document matches every word (each a list of folded tokens: in order, the
    /// last one a prefix), found as `plan` says. SQLite drives an `IN` list from the matches unless `+a.id` keeps it
    /// from using the key (it then walks the fetch's order); PostgreSQL runs `IN` as a semi-join either way as its
    /// planner decides, and an array of the matches (computed once, looked up by key) from the matches — which its
    /// planner, misjudging the cost of checking documents row by row, does not choose itself for a page.
    ///
    /// A `window` (PostgreSQL, matches first) keeps the matches to documents of the window's dates, which
    /// `asset_search.creation_date` (the asset's, kept by a trigger) and its index find: the GIN index's matches and
    /// the dates' range are intersected as bitmaps before any row is read. A `drivingWord` is the one word the GIN
    /// index is asked for; the whole search is checked on the rows it finds.
    package func searchCondition(
        _ words: [[String]], plan: SearchQuery.Plan = .database, window: SearchQuery.DateWindow? = nil, drivingWord: Int? = nil
    ) -> SQLFragment {
        switch (kind, plan) {
        case (.sqlite, .orderFirst), (.sqlite, .timeline):
            return SQLFragment(
                "+a.id IN (SELECT \(Self.assetOfTimelineKey("rowid")) FROM asset_search WHERE asset_search MATCH ?)", [.text(Self.ftsQuery(words))])
        case (.sqlite, _):
            return SQLFragment(
                "a.id IN (SELECT \(Self.assetOfTimelineKey("rowid")) FROM asset_search WHERE asset_search MATCH ?)", [.text(Self.ftsQuery(words))])
        case (.postgreSQL, .matchesFirst):
            let inner = Self.searchDocumentCondition(words, window: window, drivingWord: drivingWord)
            return SQLFragment("a.id = ANY(ARRAY(SELECT asset_id FROM asset_search WHERE \(inner.sql)))", inner.arguments)
        case (.postgreSQL, _):
            return SQLFragment("a.id IN (SELECT asset_id FROM asset_search WHERE document @@ ?::tsquery)", [.text(Self.tsquery(words))])
        }
    }

    /// SQLite's key of an asset's search document (the FTS5 table's row id): the minute of its creation date
    /// (counted from the year 1, clamped to the years 1–4083; no date is minute 0) in the high 32 bits, its row id in
    /// the low ones — so FTS5, which yields a search's matches in row id order, yields them in timeline order to the
    /// minute, and a page of the timeline is a few hundred postings, not every match (see
    /// ``timelineSearchCondition(_:ascending:after:limit:from:conditions:)``). The asset's row id is the key's low
    /// bits (``assetOfTimelineKey(_:)``), which holds for row ids below 2³², and triggers move the document when the
    /// date's minute changes (see `Schema`).
    package static func timelineKey(date: String, id: String) -> String {
        "(CASE WHEN \(date) IS NULL THEN 0 ELSE CAST(min(max((\(date) + 62135596800.0) / 60.0, 1.0), 2147483646.0) AS INTEGER) END * 4294967296 + \(id))"
    }

    /// The asset row id of a timeline key (see ``timelineKey(date:id:)``).
    package static func assetOfTimelineKey(_ key: String) -> String { "(\(key) & 4294967295)" }

    /// SQLite: `a.id` is one of the matches of `words` among which the next `limit` rows of a page sorted by creation
    /// date first lie (after a cursor of date `after`, with the page's other `conditions` on `from`'s rows): the matches
    /// from the one where the page starts to the end of the minute of the `limit`-th that passes the conditions, read
    /// in FTS5's own order of timeline keys (see ``timelineKey(date:id:)``).
    ///
    /// Exact: a row of a later minute (ascending) than the `limit`-th row in key order follows all `limit` of those
    /// rows in the page's order too, so it is not on the page; the page is among the candidates, which the statement
    /// sorts in its own order — `limit` matches and the rest of that minute's, not the hundreds of thousands a common
    /// word has. Fewer than `limit` matches after the start: all of them.
    package func timelineSearchCondition(
        _ words: [[String]], ascending: Bool, after: Double?, limit: Int, from: SQLFragment, conditions: SQLFragment
    ) -> SQLFragment {
        let query = SQLValue.text(Self.ftsQuery(words))
        // The cursor's minute's first key (ascending), or the next minute's (descending); the key names the date twice.
        let start: SQLFragment? = after.map { date in
            ascending
                ? SQLFragment("rowid >= \(Self.timelineKey(date: "?", id: "0"))", [.real(date), .real(date)])
                : SQLFragment("rowid < \(Self.timelineKey(date: "?", id: "4294967296"))", [.real(date), .real(date)])
        }
        func started(_ table: String) -> SQLFragment {
            guard let start else { return SQLFragment("") }
            return SQLFragment(" AND \(table)\(start.sql)", start.arguments)
        }
        let inner = started("s.")
        let outer = started("")
        // The edge of the limit-th candidate's minute, and how far the candidates go without one.
        let (edge, compare, fallback) =
            ascending
            ? ("((s.rowid >> 32) + 1) << 32", "<", "9223372036854775807")
            : ("(s.rowid >> 32) << 32", ">=", "0")
        let sql = """
            a.id IN (SELECT \(Self.assetOfTimelineKey("rowid")) FROM asset_search WHERE asset_search MATCH ?\(outer.sql) \
            AND rowid \(compare) coalesce((SELECT \(edge) FROM asset_search s, \(from.sql) \
            WHERE a.id = \(Self.assetOfTimelineKey("s.rowid")) AND s.asset_search MATCH ?\(inner.sql) AND \(conditions.sql) \
            ORDER BY s.rowid\(ascending ? "" : " DESC") LIMIT 1 OFFSET ?), \(fallback)))
            """
        return SQLFragment(
            sql, [query] + outer.arguments + from.arguments + [query] + inner.arguments + conditions.arguments + [.integer(Int64(max(0, limit - 1)))])
    }

    /// PostgreSQL: the documents (`asset_search`'s rows) that match every word, within the `window` of dates, asking
    /// the GIN index for the `drivingWord` alone (see ``searchCondition(_:plan:window:drivingWord:)``).
    ///
    /// A window whose dates lie in at most ``maximumSearchBuckets`` buckets (see ``searchBucket(of:)``) asks the
    /// index of the documents' bucketed words (``bucketedDocument``) for the words within those buckets only — posting lists of a few weeks'
    /// documents, not of every one (a common word's 100,000, or every word a prefix begins) — and reads only the
    /// rows that match; the window's exact dates are then checked on them.
    static func searchDocumentCondition(_ words: [[String]], window: SearchQuery.DateWindow?, drivingWord: Int?) -> SQLFragment {
        if let window, let range = Self.dateWindowCondition(window), let buckets = Self.searchBuckets(of: window) {
            let query = buckets.map { "(\(Self.tsquery(words, bucket: $0)))" }.joined(separator: " | ")
            return SQLFragment.joined([SQLFragment("\(Self.bucketedDocument) @@ ?::tsquery", [.text(query)]), range], separator: " AND ")
        }
        // `ts_match_vq` is `@@` as a function: the planner checks it on the rows, never in the index.
        var conditions = [SQLFragment("document @@ ?::tsquery", [.text(Self.tsquery(words))])]
        if let index = drivingWord, words.indices.contains(index), words.count > 1 {
            conditions = [
                SQLFragment("document @@ ?::tsquery", [.text(Self.tsquery([words[index]], lastIsPrefix: index == words.count - 1))]),
                SQLFragment("ts_match_vq(document, ?::tsquery)", [.text(Self.tsquery(words))]),
            ]
        }
        if let window, let range = Self.dateWindowCondition(window) { conditions.append(range) }
        return SQLFragment.joined(conditions, separator: " AND ")
    }

    /// `asset_search.creation_date` within the window: from its start (the cursor's date, or the first date; NULL
    /// dates sort first ascending, so a first page ascending takes them all) to its bound (every document of that
    /// date too). Nil without a bound.
    static func dateWindowCondition(_ window: SearchQuery.DateWindow) -> SQLFragment? {
        guard let bound = window.bound else { return nil }
        let (toward, from) = window.ascending ? ("<=", ">=") : (">=", "<=")
        if let after = window.after {
            return SQLFragment("creation_date \(from) ? AND creation_date \(toward) ?", [.real(after), .real(bound)])
        }
        if window.ascending { return SQLFragment("(creation_date <= ? OR creation_date IS NULL)", [.real(bound)]) }
        return SQLFragment("creation_date >= ?", [.real(bound)])
    }

    /// PostgreSQL: a search document's words within its date's bucket (`bucket#word`; see ``searchBucket(of:)``), the
    /// expression `asset_search_bucketed`, a GIN index, has.
    package static let bucketedDocument = "asset_search_bucketed(document, creation_date)"

    /// How many seconds of creation dates one bucket of the documents' bucketed words spans: 2²² s, about 48.5 days.
    package static let searchBucketSeconds = 4_194_304.0

    /// A window spanning more buckets than this is looked for without them (its dates' range and the plain index):
    /// each bucket's words are entries of their own in the index's scan, and a prefix that begins a common word
    /// (`vatu`, in a million assets of `photos-bench search`) costs about 3 ms a bucket: 23 buckets took 69–105 ms
    /// where the plain index took 20.
    package static let maximumSearchBuckets = 16

    /// The bucket of a creation date as the function `asset_search_bucketed` names it (PostgreSQL): the date's 2²²-second span
    /// since 1970 (clamped to ±10¹⁵ s), or `u` for no date. The function and this must agree to the bit: both floor
    /// the same IEEE quotient.
    package static func searchBucket(of date: Double?) -> String {
        guard let date, !date.isNaN else { return "u" }
        return String(bucketNumber(date))
    }

    /// A date's bucket as a number: the floor of the clamped date over the span, as `asset_search_bucketed` computes it.
    private static func bucketNumber(_ date: Double) -> Int64 {
        Int64((min(max(date, -1e15), 1e15) / searchBucketSeconds).rounded(.down))
    }

    /// The buckets a window's documents lie in, from its start (the cursor's date, or the first date) to its bound, and
    /// the undated documents' when an ascending first page takes them; nil without a start or a bound, or when they
    /// are more than ``maximumSearchBuckets``.
    package static func searchBuckets(of window: SearchQuery.DateWindow) -> [String]? {
        guard let bound = window.bound, let start = window.after ?? window.start, start.isFinite, bound.isFinite else { return nil }
        let ends = [start, bound].map(bucketNumber)
        let (first, last) = (ends.min()!, ends.max()!)
        guard last - first < Int64(maximumSearchBuckets) else { return nil }
        return (first...last).map(String.init) + (window.ascending && window.after == nil ? ["u"] : [])
    }

    /// One row and column: the first date of a window with no cursor — the earliest dated document's (ascending) or
    /// the latest's — from the dates' index; NULL when no document has a date.
    package func dateWindowStart(ascending: Bool) -> String {
        "SELECT \(ascending ? "min" : "max")(creation_date) FROM asset_search"
    }

    /// One row and column, or none: the date of the document `documents` places on from the window's start in its
    /// order (dated documents only) — the window's bound; no row when there are fewer (the window is everything).
    package func dateWindowBound(_ window: SearchQuery.DateWindow) -> SQLFragment {
        let from = window.ascending ? ">=" : "<="
        return SQLFragment(
            "SELECT creation_date FROM asset_search WHERE creation_date IS NOT NULL"
                + (window.after == nil ? "" : " AND creation_date \(from) ?")
                + " ORDER BY creation_date\(window.ascending ? "" : " DESC") OFFSET ? LIMIT 1",
            (window.after.map { [SQLValue.real($0)] } ?? []) + [.integer(Int64(max(0, window.documents)))])
    }

    /// PostgreSQL: one row (none before the documents were analyzed): the histogram of the documents' creation dates
    /// as text and the share of undated documents (see ``DateHistogram``).
    package var searchDateHistogram: String {
        """
        SELECT histogram_bounds::text, null_frac::float8 FROM pg_stats
        WHERE schemaname = current_schema() AND tablename = 'asset_search' AND attname = 'creation_date'
        """
    }

    /// A statement of one row and column: whether the search matches at least `many` assets (SQLite counts up to
    /// that many; PostgreSQL's planner estimates from its statistics of the documents' words, without running it).
    package func searchMatchesMany(_ words: [[String]], many: Int) -> SQLFragment {
        switch kind {
        case .sqlite:
            SQLFragment(
                "SELECT count(*) >= ? FROM (SELECT rowid FROM asset_search WHERE asset_search MATCH ? LIMIT ?)",
                [.integer(Int64(many)), .text(Self.ftsQuery(words)), .integer(Int64(many))])
        case .postgreSQL:
            SQLFragment("EXPLAIN (FORMAT JSON) SELECT 1 FROM asset_search WHERE document @@ ?::tsquery", [.text(Self.tsquery(words))])
        }
    }

    /// PostgreSQL: a statement whose plan estimates how many documents match the search's word `index` alone (as
    /// the whole search has it: a prefix if it is the last).
    package func searchWordEstimate(_ words: [[String]], index: Int) -> SQLFragment {
        SQLFragment(
            "EXPLAIN (FORMAT JSON) SELECT 1 FROM asset_search WHERE document @@ ?::tsquery",
            [.text(Self.tsquery([words[index]], lastIsPrefix: index == words.count - 1))])
    }

    /// FTS5's query: each word a phrase of its tokens; the last word's last token a prefix (unless it is one
    /// character, which would begin a good part of every word); all of them.
    static func ftsQuery(_ words: [[String]]) -> String {
        words.enumerated().map { index, tokens in
            "\"\(tokens.joined(separator: " "))\"" + (index == words.count - 1 && tokens.last!.count > 1 ? "*" : "")
        }.joined(separator: " AND ")
    }

    /// A `tsquery` literal: each word its tokens in order (`<->`); the last word's last token a prefix (`:*`); all of
    /// them (`&`). With a `bucket`, each token as ``bucketedDocument`` has it in that bucket (`bucket#token`).
    static func tsquery(_ words: [[String]], lastIsPrefix: Bool = true, bucket: String? = nil) -> String {
        let prefix = bucket.map { "\($0)#" } ?? ""
        return words.enumerated().map { wordIndex, tokens in
            "("
                + tokens.enumerated().map { index, token in
                    "'\(prefix)\(token)'" + (lastIsPrefix && wordIndex == words.count - 1 && index == tokens.count - 1 && token.count > 1 ? ":*" : "")
                }.joined(separator: " <-> ") + ")"
        }.joined(separator: " & ")
    }

    /// `'token':position …` (positions from 1, at most PostgreSQL's 16383).
    package static func tsvectorLiteral(_ tokens: String) -> String {
        tokens.split(separator: " ").enumerated().map { "'\($1)':\(min($0 + 1, 16383))" }.joined(separator: " ")
    }

    /// A query of the library's own tables' columns, one row per column in the table's order: `table`, `column`.
    package var columnsQuery: String {
        switch kind {
        case .sqlite:
            """
            SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p
            WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND m.name NOT LIKE 'asset\\_search%' ESCAPE '\\'
            ORDER BY m.name, p.cid
            """
        case .postgreSQL:
            """
            SELECT table_name::text, column_name::text FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name NOT LIKE 'asset\\_search%' ORDER BY table_name, ordinal_position
            """
        }
    }

    /// Statements that raise the last row id `table`'s numbering handed out (see ``lastIssuedID(of:)``) to at least
    /// `value` (> 0), so the next row is numbered after it: a copy of a library keeps its numbers and never hands out
    /// one the original had issued (a change token names a journal row for good). Rows inserted with their ids do not
    /// move PostgreSQL's sequences; SQLite numbers only `AUTOINCREMENT` tables this way (the others take the largest
    /// row id plus one).
    package func raiseLastIssuedID(of table: String, to value: Int64) -> [SQLFragment] {
        switch kind {
        case .sqlite:
            [
                SQLFragment("UPDATE sqlite_sequence SET seq = ? WHERE name = ? AND seq < ?", [.integer(value), .text(table), .integer(value)]),
                SQLFragment(
                    """
                    INSERT INTO sqlite_sequence (name, seq) SELECT ?, ?
                    WHERE EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ? AND sql LIKE '%AUTOINCREMENT%')
                    AND NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?)
                    """, [.text(table), .integer(value), .text(table), .text(table)]),
            ]
        case .postgreSQL:
            [
                SQLFragment(
                    """
                    SELECT setval(pg_get_serial_sequence(?, 'id'),
                        greatest(?::bigint, coalesce(pg_sequence_last_value(pg_get_serial_sequence(?, 'id')), 0)), true)
                    """, [.text(table), .integer(value), .text(table)])
            ]
        }
    }

    /// `expression` equals the bound value, NULL equal to NULL: SQLite's `IS ?`, which PostgreSQL does not read (its
    /// `IS` takes only NULL, TRUE, FALSE), so there the standard's `IS NOT DISTINCT FROM ?`.
    package func isSame(_ expression: String, as value: SQLValue) -> SQLFragment {
        switch kind {
        case .sqlite: SQLFragment("\(expression) IS ?", [value])
        case .postgreSQL: SQLFragment("\(expression) IS NOT DISTINCT FROM ?", [value])
        }
    }

    /// An ORDER BY term (`expression ASC` or `expression DESC`) ordering NULL as SQLite does — first when ascending,
    /// last when descending — so that every store gives a fetch the same order (PostgreSQL's default is the reverse).
    package func orderTerm(_ term: String) -> String {
        switch kind {
        case .sqlite: term
        case .postgreSQL:
            if term.hasSuffix(" DESC") {
                term + " NULLS LAST"
            } else if term.hasSuffix(" ASC") {
                term + " NULLS FIRST"
            } else {
                term + " NULLS FIRST"
            }
        }
    }

    /// An ORDER BY term for `expression` in the direction given (see ``orderTerm(_:)``).
    package func orderTerm(_ expression: String, ascending: Bool) -> String {
        orderTerm("\(expression) \(ascending ? "ASC" : "DESC")")
    }

    /// How `ORDER BY … ASC` orders two values of a column (-1, 0, 1): what the engine's incremental change details
    /// place rows by, so it must agree with the database exactly. SQLite (BINARY collation): NULL first, then numbers,
    /// text by bytes, blobs by bytes.
    package func compare(_ a: SQLValue, _ b: SQLValue) -> Int {
        switch kind {
        case .sqlite:
            func rank(_ value: SQLValue) -> Int {
                switch value {
                case .null: 0
                case .integer, .real: 1
                case .text: 2
                case .blob: 3
                }
            }
            let (ra, rb) = (rank(a), rank(b))
            if ra != rb { return ra < rb ? -1 : 1 }
            switch (a, b) {
            case (.integer(let x), .integer(let y)): return x == y ? 0 : (x < y ? -1 : 1)
            case (.text(let x), .text(let y)):
                if x.utf8.elementsEqual(y.utf8) { return 0 }
                return x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1
            case (.blob(let x), .blob(let y)):
                if x == y { return 0 }
                return x.lexicographicallyPrecedes(y) ? -1 : 1
            default:
                let x = Double.fromSQLValue(a) ?? 0
                let y = Double.fromSQLValue(b) ?? 0
                return x == y ? 0 : (x < y ? -1 : 1)
            }
        case .postgreSQL:
            // The engine's terms put NULL first when ascending (``orderTerm(_:)``), as SQLite does; a column has one
            // type, and the library's text columns compare by bytes (`COLLATE "C"`, as SQLite's BINARY).
            return SQLDialect.sqlite.compare(a, b)
        }
    }

    /// The element of a JSON list as SQL: integers when every value is one, else text.
    private static func element(of values: [SQLValue]) -> String {
        values.allSatisfy({ if case .integer = $0 { true } else { false } }) ? "t.value::bigint" : "t.value"
    }

    /// A JSON array of the values: text as JSON strings, numbers as numbers (a non-finite one as null).
    static func jsonArray(_ values: [SQLValue]) -> String {
        let items = values.map { value -> String in
            switch value {
            case .null: return "null"
            case .integer(let i): return "\(i)"
            case .real(let d): return d.isFinite ? "\(d)" : "null"
            case .text(let s): return jsonString(s)
            case .blob(let d): return jsonString(String(decoding: d, as: UTF8.self))
            }
        }
        return "[" + items.joined(separator: ",") + "]"
    }

    /// `s` as a JSON string literal (quotes, backslashes and control characters escaped).
    static func jsonString(_ s: String) -> String {
        var out = "\""
        out.reserveCapacity(s.utf8.count + 2)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
