import Foundation

/// The library's string comparison in PostgreSQL: `ph_compare(lhs, rhs, operation, options)`, the same function the
/// SQLite store registers in Swift (``StringComparison``), so that `title CONTAINS[cd] "é"` matches the same rows in
/// both stores.
///
/// Foundation folds case by Unicode's full case folding (`ß` → `ss`, `ﬁ` → `fi`, `ς` → `σ`) and diacritics by
/// decomposing and dropping marks; PostgreSQL's `lower()` does neither. So the folding is written into SQL from
/// Foundation itself: every scalar that a folding changes becomes an entry of a `translate()` (one scalar to one or
/// none) or a `replace()` (to several), per option set. Results are compared in NFC, as Swift compares strings by
/// canonical equivalence. `LIKE` takes NSPredicate's pattern (`*`, `?`, `\` escapes) turned into SQL's.
enum PostgreSQLStringFunctions {
    /// Raised when the functions' text changes; a library whose functions are older gets them again on open.
    static let revision = "2"

    /// The statements that (re)define the functions.
    static var statements: [String] {
        [foldFunction, likePatternFunction, compareFunction]
    }

    private static let foldFunction: String = {
        let cases = [1, 2, 3].map { options in "WHEN \(options) THEN \(foldExpression(options: options))" }
        // PL/pgSQL: parsed and planned once per session (an SQL function this size would be, per query).
        return """
            CREATE OR REPLACE FUNCTION ph_fold(s text, options bigint) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fold$
            BEGIN
                RETURN normalize(CASE options & 3 \(cases.joined(separator: " ")) ELSE s END, NFC);
            END
            $fold$
            """
    }()

    private static let likePatternFunction = """
        CREATE OR REPLACE FUNCTION ph_like_pattern(p text) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $like$
        DECLARE
            pattern text := '';
            i integer := 1;
            n integer := length(p);
            c text;
        BEGIN
            WHILE i <= n LOOP
                c := substr(p, i, 1);
                IF c = '*' THEN
                    pattern := pattern || '%';
                ELSIF c = chr(63) THEN
                    pattern := pattern || '_';
                ELSIF c = chr(92) AND i < n THEN
                    i := i + 1;
                    pattern := pattern || chr(92) || substr(p, i, 1);
                ELSIF c = '%' OR c = '_' OR c = chr(92) THEN
                    pattern := pattern || chr(92) || c;
                ELSE
                    pattern := pattern || c;
                END IF;
                i := i + 1;
            END LOOP;
            RETURN pattern;
        END
        $like$
        """

    private static let compareFunction = """
        CREATE OR REPLACE FUNCTION ph_compare(l text, r text, operation bigint, options bigint) RETURNS boolean
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $compare$
            SELECT CASE
                WHEN l IS NULL OR r IS NULL THEN operation = 5 AND (l IS NULL) <> (r IS NULL)
                ELSE (
                    SELECT CASE operation
                        WHEN 0 THEN a = b
                        WHEN 1 THEN b = '' OR strpos(a, b) > 0
                        WHEN 2 THEN starts_with(a, b)
                        WHEN 3 THEN right(a, length(b)) = b
                        WHEN 4 THEN a LIKE ph_like_pattern(b) ESCAPE E'\\\\'
                        WHEN 5 THEN a <> b
                        ELSE false
                    END
                    FROM (SELECT ph_fold(l, options) AS a, ph_fold(r, options) AS b) AS folded)
            END
        $compare$
        """

    /// `s` folded as Foundation folds with `options` (1 case, 2 diacritics, 3 both), as SQL. Folding diacritics
    /// decomposes first (NFD) and drops the marks Foundation drops after a letter, as it does.
    private static func foldExpression(options: Int) -> String {
        var compareOptions: String.CompareOptions = []
        if options & 1 != 0 { compareOptions.insert(.caseInsensitive) }
        if options & 2 != 0 { compareOptions.insert(.diacriticInsensitive) }
        var from = ""
        var to = ""
        var deleted = ""
        var expanded: [(Unicode.Scalar, String)] = []
        // Every scalar PostgreSQL's text can hold (not NUL, not surrogates), through the planes that have letters.
        for value in UInt32(1)...0x2FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let original = String(Character(scalar))
            var folded = original.folding(options: compareOptions, locale: nil)
            if options & 2 != 0, scalar.properties.canonicalCombiningClass != .notReordered || scalar.properties.generalCategory == .nonspacingMark,
                ("a" + original).folding(options: compareOptions, locale: nil) == "a"
            {
                folded = ""  // a mark Foundation drops from the letter it follows
            }
            let scalars = Array(folded.unicodeScalars)
            if scalars == [scalar] { continue }
            switch scalars.count {
            case 0: deleted.unicodeScalars.append(scalar)
            case 1:
                from.unicodeScalars.append(scalar)
                to.unicodeScalars.append(scalars[0])
            default: expanded.append((scalar, folded))
            }
        }
        // translate() maps `from` to `to` position by position and deletes what lies beyond `to`.
        var expression = options & 2 != 0 ? "normalize(s, NFD)" : "s"
        for (scalar, folded) in expanded {
            expression = "replace(\(expression), \(literal(String(Character(scalar)))), \(literal(folded)))"
        }
        return "translate(\(expression), \(literal(from + deleted)), \(literal(to)))"
    }

    /// `text` as an SQL string literal.
    private static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
