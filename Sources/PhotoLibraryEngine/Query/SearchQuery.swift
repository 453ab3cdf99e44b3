import Foundation

/// Full-text search of assets by caption, keyword, file name and date: what the search box of the gallery, `GET
/// /v1/assets?q=` and `photos ls --search` send, in engine terms.
///
/// Text is folded the same way on both sides — lower case, diacritics removed, every run of letters and digits a
/// token ("IMG_4547.JPG" is `img 4547 jpg`) — so the stores' indexes (SQLite FTS5, PostgreSQL `tsvector`) see
/// identical token lists and answer alike. Each word of a query must match (AND), the last word also the words it
/// begins, as a search box is typed (`beach sun` finds "Sunset at the beach"), and a word of several tokens matches
/// them in order (`IMG_45` finds IMG_4547.JPG). Words
/// that are dates filter by the day the asset was taken (its local day): `2019`, `2019-07`, `2019-07-14`, and month
/// names in English (`july`), any year. A query of only white space is no query; one of only punctuation matches
/// nothing.
package struct SearchQuery: Sendable, Hashable, CustomStringConvertible {
    /// Each word's tokens.
    package var words: [[String]] = []
    /// A prefix of the local day (`YYYY`, `YYYY-MM`, `YYYY-MM-DD`) the asset must have, one per date word.
    package var dayPrefixes: [String] = []
    /// Months (1–12) the asset must have been taken in, one per month-name word.
    package var months: [Int] = []
    /// How the database is to find the matches in the fetch's order.
    package enum Plan: Sendable, Hashable {
        /// As its planner decides (a whole result: every match is needed anyway).
        case database
        /// The matches first, from the search index, then sorted: a page of a search that matches few assets.
        case matchesFirst
        /// The fetch's order first (an index walk), each asset checked against the matches until the page is full: a
        /// page of a search that matches many.
        case orderFirst
        /// SQLite, a page sorted by creation date first: the search index's own order, the timeline's to the minute
        /// (see `SQLDialect.timelineSearchCondition`), from the page's start (`window`'s `after`, in its order).
        case timeline
    }

    /// Set by the engine for pages (see `LibraryEngine.fetchAssetPage`).
    package var plan = Plan.database

    /// Where a page sorted by creation date looks for its matches (PostgreSQL): among the next `documents` search
    /// documents in the page's date order (after the cursor's date, `after`), with every document of the same dates,
    /// not among all of them — so that a page of a search with thousands of matches visits a few hundred rows, not
    /// every match. A window that holds fewer matches than the page is looked for again without it.
    package struct DateWindow: Sendable, Hashable {
        /// How many dated documents the window spans, from its start.
        package var documents: Int
        /// The page's date order: the window starts at the earliest date (or `after`) and ends later, or the reverse.
        package var ascending = true
        /// The cursor's date: the window starts there (documents of this date included); nil for the first page.
        package var after: Double?
        /// The window's last date (its documents included), read before the page's statement
        /// (`SQLDialect.dateWindowBound`) so that the database's planner sizes the range from its statistics; no
        /// window applies without it.
        package var bound: Double?
        /// Where a window with no cursor starts: the earliest dated document's date (ascending) or the latest's, read
        /// with the bound (`SQLDialect.dateWindowStart`), so that the buckets of dates the window spans can be named
        /// (`SQLDialect.searchBuckets`); without it the window is looked for by its range of dates alone.
        package var start: Double?

        package init(documents: Int, ascending: Bool = true, after: Double? = nil, bound: Double? = nil, start: Double? = nil) {
            (self.documents, self.ascending, self.after, self.bound, self.start) = (documents, ascending, after, bound, start)
        }
    }

    /// Set by the engine for a page (see `LibraryEngine.fetchAssetPage`), oriented by the fetch planner
    /// (`FetchPlanner.searchWindow`).
    package var window: DateWindow?

    /// The word whose matches PostgreSQL's GIN index is asked for, the whole search then checked on the rows it
    /// finds: the rarest word, when its matches (within the window) are few — so that a common word, or a prefix that
    /// begins many, is never intersected in the index. Nil: every word from the index. Set by the engine for a page.
    package var drivingWord: Int?

    /// Words beyond this are ignored (a query is typed, not pasted).
    package static let maximumWords = 16

    package init?(_ text: String) {
        for word in text.split(whereSeparator: \.isWhitespace).prefix(Self.maximumWords) {
            let word = String(word)
            if let prefix = Self.dayPrefix(word) {
                dayPrefixes.append(prefix)
            } else if let month = Self.month(word) {
                months.append(month)
            } else {
                let tokens = Self.tokens(word)
                if !tokens.isEmpty { words.append(tokens) }
            }
        }
        if text.allSatisfy(\.isWhitespace) { return nil }
    }

    /// A query with nothing to search for (only punctuation, say): it matches no asset.
    package var matchesNothing: Bool { words.isEmpty && dayPrefixes.isEmpty && months.isEmpty }

    package var description: String { "search(\(words) \(dayPrefixes) \(months))" }

    /// The document an asset is found by: its caption, keywords and the names of its original files, folded.
    package static func document(caption: String?, keywords: [String], filenames: [String]) -> String {
        ([caption ?? ""] + keywords + filenames).flatMap(tokens).joined(separator: " ")
    }

    /// Folded tokens: runs of letters and digits, lower case, without diacritics.
    package static func tokens(_ text: String) -> [String] {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil).lowercased()
        var tokens: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in folded.unicodeScalars {
            if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                current.append(scalar)
            } else if !current.isEmpty {
                tokens.append(String(current))
                current = String.UnicodeScalarView()
            }
        }
        if !current.isEmpty { tokens.append(String(current)) }
        // A token is at most 64 characters (FTS5 and PostgreSQL would index longer ones, but nobody types them).
        return tokens.map { String($0.prefix(64)) }
    }

    private static func dayPrefix(_ word: String) -> String? {
        let parts = word.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            parts[0].count == 4, let year = Int(parts[0]), (1800...2200).contains(year)
        else { return nil }
        if parts.count >= 2 { guard parts[1].count == 2, let month = Int(parts[1]), (1...12).contains(month) else { return nil } }
        if parts.count == 3 { guard parts[2].count == 2, let day = Int(parts[2]), (1...31).contains(day) else { return nil } }
        return word
    }

    private static let monthNames = [
        "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december",
    ]

    private static func month(_ word: String) -> Int? {
        monthNames.firstIndex(of: word.lowercased()).map { $0 + 1 }
    }
}
