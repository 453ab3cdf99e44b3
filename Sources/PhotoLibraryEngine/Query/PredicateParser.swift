import Foundation

/// Why a predicate or sort descriptor cannot be used for a fetch.
package enum FetchPredicateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The format string does not parse.
    case syntax(format: String, offset: Int, message: String)
    /// A `%` specifier has no argument, or the argument has the wrong type.
    case badArgument(format: String, message: String)
    /// The key is not one PhotoKit supports for this kind of object.
    case unsupportedKey(key: String, entity: String, supportedKeys: [String])
    /// The operator cannot be used with that key (or at all).
    case unsupportedOperator(operator: String, key: String?, message: String)
    /// A block predicate or an unknown `NSPredicate` subclass.
    case unsupportedPredicate(String)
    /// A `#Predicate` node that has no equivalent in a PhotoKit fetch.
    case unsupportedExpression(String)

    package var description: String {
        switch self {
        case .syntax(let format, let offset, let message):
            "Unable to parse the format string \"\(format)\" at offset \(offset): \(message)"
        case .badArgument(let format, let message):
            "Bad argument for the format string \"\(format)\": \(message)"
        case .unsupportedKey(let key, let entity, let supported):
            "Unsupported predicate key '\(key)' in a fetch of \(entity). Supported keys: \(supported.joined(separator: ", "))"
        case .unsupportedOperator(let op, let key, let message):
            "Unsupported operator \(op)\(key.map { " on key '\($0)'" } ?? ""): \(message)"
        case .unsupportedPredicate(let what):
            "Unsupported predicate in fetch options: \(what). Use NSPredicate(format:) with PhotoKit's keys."
        case .unsupportedExpression(let what):
            "Unsupported #Predicate expression \(what): PhotoKit fetches accept comparisons of supported keys with values."
        }
    }
}

/// Parses NSPredicate format strings — the subset PhotoKit fetches accept, with the same syntax as Foundation.
///
/// Supported: `== = != <> < <= =< > >= => BETWEEN IN CONTAINS BEGINSWITH ENDSWITH LIKE` with `[c]`, `[d]`, `[cd]`,
/// `AND && OR || NOT !`, parentheses, `&` (bitwise and), `TRUEPREDICATE`, `FALSEPREDICATE`, literals (numbers,
/// quoted strings, `YES NO TRUE FALSE NIL NULL`, `{…}` aggregates, `CAST(seconds, "NSDate")`) and the specifiers `%@ %d %i %ld %lld %li %u %lu
/// %f %lf %g %K %%`.
package struct PredicateParser {
    private enum Token: Equatable {
        case identifier(String)
        case number(PredicateValue)
        case string(String)
        case argument(Character)  // '@', 'd', 'f', 'K'
        case symbol(String)
        case end
    }

    private let format: String
    private var arguments: [PredicateValue]
    private var tokens: [(token: Token, offset: Int)] = []
    private var position = 0
    /// How deep the parentheses nest here (each level costs stack; hostile input nests thousands).
    private var depth = 0
    /// Token positions of `(` where reading a predicate failed: the operand reading is taken at once when
    /// backtracking reaches them again (without it, nested parentheses around an operand cost 2^depth).
    private var notAPredicateAt = Set<Int>()

    /// The most parentheses and braces (aggregates) a predicate may nest.
    package static let maximumNesting = 64
    /// The most levels of alternating AND and OR (after flattening chains of one of them): each level is one
    /// parenthesised group in SQL, and SQLite's parser has a fixed stack.
    package static let maximumLogicalDepth = 16

    /// Parses `format` with its arguments.
    package static func parse(_ format: String, arguments: [PredicateValue]) throws(FetchPredicateError) -> FetchPredicate {
        var parser = PredicateParser(format: format, arguments: arguments)
        try parser.tokenize()
        let expression = try parser.parsePredicate()
        guard case .end = parser.current else {
            throw parser.syntaxError("unexpected \(parser.describe(parser.current)) after the end of the predicate")
        }
        if expression.logicalDepth > maximumLogicalDepth {
            throw FetchPredicateError.syntax(
                format: format, offset: 0,
                message: "AND and OR alternate more than \(maximumLogicalDepth) levels deep; simplify the predicate")
        }
        if !parser.arguments.isEmpty {
            // Foundation ignores extra arguments; so do we.
        }
        return expression
    }

    private init(format: String, arguments: [PredicateValue]) {
        self.format = format
        self.arguments = arguments
    }

    // MARK: - Lexer

    private mutating func tokenize() throws(FetchPredicateError) {
        let chars = Array(format)
        var i = 0
        func peek(_ k: Int) -> Character? { i + k < chars.count ? chars[i + k] : nil }
        while i < chars.count {
            let c = chars[i]
            let start = i
            if c.isWhitespace {
                i += 1
                continue
            }
            if c == "%" {
                var j = i + 1
                while j < chars.count, "lqh".contains(chars[j]) { j += 1 }
                guard j < chars.count else { throw syntaxError("incomplete format specifier", offset: i) }
                let spec = chars[j]
                switch spec {
                case "@": tokens.append((.argument("@"), start))
                case "d", "i", "u", "D", "U", "x", "X", "o", "c": tokens.append((.argument("d"), start))
                case "f", "g", "e", "F", "G", "E": tokens.append((.argument("f"), start))
                case "K": tokens.append((.argument("K"), start))
                case "%": throw syntaxError("a literal % is not valid here", offset: i)
                default: throw syntaxError("unsupported format specifier %\(spec)", offset: i)
                }
                i = j + 1
                continue
            }
            if c == "\"" || c == "'" {
                var j = i + 1
                var text = ""
                var closed = false
                while j < chars.count {
                    let ch = chars[j]
                    if ch == "\\", j + 1 < chars.count {
                        let next = chars[j + 1]
                        switch next {
                        case "n": text.append("\n")
                        case "t": text.append("\t")
                        default: text.append(next)
                        }
                        j += 2
                        continue
                    }
                    if ch == c {
                        closed = true
                        break
                    }
                    text.append(ch)
                    j += 1
                }
                guard closed else { throw syntaxError("unterminated string", offset: i) }
                tokens.append((.string(text), start))
                i = j + 1
                continue
            }
            if c.isNumber || (c == "." && (peek(1)?.isNumber ?? false))
                || (c == "-" && (peek(1)?.isNumber ?? false) && Self.minusStartsNumber(after: tokens.last?.token))
            {
                var j = i + 1
                if c == "0", let x = peek(1), x == "x" || x == "X" {
                    j = i + 2
                    while j < chars.count, chars[j].isHexDigit { j += 1 }
                    let text = String(chars[(i + 2)..<j])
                    guard let value = Int64(text, radix: 16) else { throw syntaxError("bad hexadecimal number", offset: i) }
                    tokens.append((.number(.int(value)), start))
                    i = j
                    continue
                }
                var isFloat = c == "."
                while j < chars.count {
                    let ch = chars[j]
                    if ch.isNumber {
                        j += 1
                    } else if ch == ".", !isFloat {
                        isFloat = true
                        j += 1
                    } else if ch == "e" || ch == "E" {
                        isFloat = true
                        j += 1
                        if j < chars.count, chars[j] == "-" || chars[j] == "+" { j += 1 }
                    } else {
                        break
                    }
                }
                let text = String(chars[i..<j])
                if !isFloat, let value = Int64(text) {
                    tokens.append((.number(.int(value)), start))
                } else if let value = Double(text) {
                    tokens.append((.number(.double(value)), start))
                } else {
                    throw syntaxError("bad number \(text)", offset: i)
                }
                i = j
                continue
            }
            if c.isLetter || c == "_" || c == "$" || c == "#" || c == "@" {
                var j = i + 1
                while j < chars.count, chars[j].isLetter || chars[j].isNumber || chars[j] == "_" || chars[j] == "." || chars[j] == "@" {
                    j += 1
                }
                tokens.append((.identifier(String(chars[i..<j])), start))
                i = j
                continue
            }
            let two = peek(1).map { String([c, $0]) } ?? ""
            if ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||"].contains(two) {
                tokens.append((.symbol(two), start))
                i += 2
                continue
            }
            if "=<>!&(){},[]".contains(c) {
                tokens.append((.symbol(String(c)), start))
                i += 1
                continue
            }
            throw syntaxError("unexpected character '\(c)'", offset: i)
        }
        tokens.append((.end, chars.count))
    }

    private static func minusStartsNumber(after previous: Token?) -> Bool {
        switch previous {
        case .none, .symbol: true
        case .identifier(let word): Self.keyword(word) != nil
        default: false
        }
    }

    // MARK: - Parser

    private var current: Token { tokens[position].token }
    private var currentOffset: Int { tokens[position].offset }

    private mutating func advance() { if position < tokens.count - 1 { position += 1 } }

    private static let keywords: Set<String> = [
        "AND", "OR", "NOT", "IN", "BETWEEN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES", "TRUEPREDICATE",
        "FALSEPREDICATE", "YES", "NO", "TRUE", "FALSE", "NIL", "NULL", "ANY", "ALL", "SOME", "NONE", "SELF",
    ]

    private static func keyword(_ word: String) -> String? {
        let upper = word.uppercased()
        return keywords.contains(upper) ? upper : nil
    }

    private func isKeyword(_ word: String) -> Bool {
        if case .identifier(let w) = current, Self.keyword(w) == word { return true }
        return false
    }

    private func isSymbol(_ s: String) -> Bool { current == .symbol(s) }

    private func syntaxError(_ message: String, offset: Int? = nil) -> FetchPredicateError {
        .syntax(format: format, offset: offset ?? (tokens.isEmpty ? 0 : currentOffset), message: message)
    }

    private func describe(_ token: Token) -> String {
        switch token {
        case .identifier(let s): "'\(s)'"
        case .number(let v): "\(v)"
        case .string(let s): "\"\(s)\""
        case .argument(let c): "%\(c)"
        case .symbol(let s): "'\(s)'"
        case .end: "end of string"
        }
    }

    private mutating func parsePredicate() throws(FetchPredicateError) -> FetchPredicate {
        var parts = [try parseAnd()]
        while isKeyword("OR") || isSymbol("||") {
            advance()
            parts.append(try parseAnd())
        }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    private mutating func parseAnd() throws(FetchPredicateError) -> FetchPredicate {
        var parts = [try parseNot()]
        while isKeyword("AND") || isSymbol("&&") {
            advance()
            parts.append(try parseNot())
        }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    private mutating func parseNot() throws(FetchPredicateError) -> FetchPredicate {
        // A loop, not recursion: any number of NOTs costs no stack, and an even number cancels out.
        var negations = 0
        while isKeyword("NOT") || isSymbol("!") {
            advance()
            negations += 1
        }
        let primary = try parsePrimary()
        return negations % 2 == 1 ? .not(primary) : primary
    }

    /// Enters one level of parentheses, refusing to nest deeper than ``maximumNesting``.
    private mutating func enterNesting() throws(FetchPredicateError) {
        depth += 1
        if depth > Self.maximumNesting {
            throw syntaxError("parentheses and braces nest more than \(Self.maximumNesting) levels deep")
        }
    }

    private mutating func parsePrimary() throws(FetchPredicateError) -> FetchPredicate {
        if isKeyword("TRUEPREDICATE") {
            advance()
            return .constant(true)
        }
        if isKeyword("FALSEPREDICATE") {
            advance()
            return .constant(false)
        }
        if isSymbol("("), !notAPredicateAt.contains(position) {
            // Either a parenthesised predicate, or a parenthesised operand such as `(mediaSubtypes & %d) != 0`.
            let saved = (position, arguments, depth)
            try enterNesting()
            advance()
            do {
                let inner = try parsePredicate()
                if isSymbol(")") {
                    advance()
                    depth -= 1
                    if !isComparisonOperatorAhead() { return inner }
                }
            } catch {
                if case .syntax(_, _, let message) = error, message.hasPrefix("parentheses and braces nest") { throw error }
            }
            notAPredicateAt.insert(saved.0)
            (position, arguments, depth) = saved
        }
        if isKeyword("ANY") || isKeyword("ALL") || isKeyword("SOME") || isKeyword("NONE") {
            throw FetchPredicateError.unsupportedOperator(
                operator: Self.keyword(identifierText ?? "") ?? "ANY", key: nil,
                message: "aggregate qualifiers do not apply to PhotoKit's keys")
        }
        return try parseComparison()
    }

    private var identifierText: String? {
        if case .identifier(let w) = current { return w }
        return nil
    }

    private func isComparisonOperatorAhead() -> Bool {
        switch current {
        case .symbol(let s): return ["==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "&"].contains(s)
        case .identifier(let w):
            return ["IN", "BETWEEN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES"].contains(Self.keyword(w) ?? "")
        default: return false
        }
    }

    private mutating func parseComparison() throws(FetchPredicateError) -> FetchPredicate {
        let lhs = try parseOperand()
        let opOffset = currentOffset
        var negateIn = false
        if isKeyword("NOT") {
            // `key NOT IN {…}` is not NSPredicate syntax, but `NOT key IN {…}` is; reject clearly.
            negateIn = true
            advance()
        }
        let op: ComparisonOperator
        switch current {
        case .symbol("=="), .symbol("="): op = .equal
        case .symbol("!="), .symbol("<>"): op = .notEqual
        case .symbol("<"): op = .less
        case .symbol("<="), .symbol("=<"): op = .lessOrEqual
        case .symbol(">"): op = .greater
        case .symbol(">="), .symbol("=>"): op = .greaterOrEqual
        case .identifier(let word):
            switch Self.keyword(word) {
            case "IN": op = .in
            case "BETWEEN": op = .between
            case "CONTAINS": op = .contains
            case "BEGINSWITH": op = .beginsWith
            case "ENDSWITH": op = .endsWith
            case "LIKE": op = .like
            case "MATCHES":
                throw FetchPredicateError.unsupportedOperator(
                    operator: "MATCHES", key: Self.keyName(lhs), message: "regular expressions are not supported in fetches")
            default: throw syntaxError("expected a comparison operator, found \(describe(current))", offset: opOffset)
            }
        default: throw syntaxError("expected a comparison operator, found \(describe(current))", offset: opOffset)
        }
        if negateIn { throw syntaxError("NOT must precede the comparison (NOT key IN {...})", offset: opOffset) }
        advance()
        var options: ComparisonOptions = []
        if isSymbol("[") {
            advance()
            guard case .identifier(let flags) = current, flags.allSatisfy({ "cdnlCDNL".contains($0) }) else {
                throw syntaxError("expected comparison options such as [c], [d] or [cd]")
            }
            if flags.lowercased().contains("c") { options.insert(.caseInsensitive) }
            if flags.lowercased().contains("d") { options.insert(.diacriticInsensitive) }
            advance()
            guard isSymbol("]") else { throw syntaxError("expected ']' after comparison options") }
            advance()
        }
        let rhs = try parseOperand()
        return .comparison(lhs, op, rhs, options)
    }

    private static func keyName(_ operand: PredicateOperand) -> String? {
        if case .key(let k) = operand { return k }
        return nil
    }

    private mutating func parseOperand() throws(FetchPredicateError) -> PredicateOperand {
        var operand = try parseTerm()
        while isSymbol("&") {
            advance()
            operand = .bitwiseAnd(operand, try parseTerm())
        }
        return operand
    }

    private mutating func parseTerm() throws(FetchPredicateError) -> PredicateOperand {
        switch current {
        case .symbol("("):
            try enterNesting()
            advance()
            let inner = try parseOperand()
            guard isSymbol(")") else { throw syntaxError("expected ')'") }
            advance()
            depth -= 1
            return inner
        case .symbol("{"):
            try enterNesting()
            advance()
            var values: [PredicateValue] = []
            if !isSymbol("}") {
                while true {
                    guard case .value(let v) = try parseTerm() else { throw syntaxError("aggregates may hold values only") }
                    values.append(v)
                    if isSymbol(",") {
                        advance()
                        continue
                    }
                    break
                }
            }
            guard isSymbol("}") else { throw syntaxError("expected '}' to close the aggregate") }
            advance()
            depth -= 1
            return .value(.array(values))
        case .number(let value):
            advance()
            return .value(value)
        case .string(let text):
            advance()
            return .value(.string(text))
        case .argument(let kind):
            let offset = currentOffset
            advance()
            return try takeArgument(kind, offset: offset)
        case .identifier(let word):
            advance()
            if word.uppercased() == "CAST", isSymbol("(") {
                return try parseCast()
            }
            switch Self.keyword(word) {
            case "YES", "TRUE": return .value(.bool(true))
            case "NO", "FALSE": return .value(.bool(false))
            case "NIL", "NULL": return .value(.null)
            case "SELF": return .key("SELF")
            case .some(let kw): throw syntaxError("unexpected keyword \(kw)", offset: currentOffset)
            case .none:
                let key = word.hasPrefix("SELF.") || word.hasPrefix("self.") ? String(word.dropFirst(5)) : word
                return .key(key)
            }
        default:
            throw syntaxError("expected a key, a value or an argument, found \(describe(current))")
        }
    }

    /// `CAST(seconds, "NSDate")`: a date as seconds since 2001-01-01 UTC, as Foundation writes dates in formats
    /// (what a client without `%@` arguments, such as the HTTP API, compares dates with).
    private mutating func parseCast() throws(FetchPredicateError) -> PredicateOperand {
        try enterNesting()
        advance()
        guard case .value(let seconds) = try parseTerm() else { throw syntaxError("CAST takes a number of seconds") }
        guard isSymbol(",") else { throw syntaxError("expected ',' in CAST") }
        advance()
        guard case .string(let type) = current, type == "NSDate" else { throw syntaxError("only CAST(…, \"NSDate\") is supported") }
        advance()
        guard isSymbol(")") else { throw syntaxError("expected ')' to close CAST") }
        advance()
        depth -= 1
        switch seconds {
        case .int(let value): return .value(.date(Date(timeIntervalSinceReferenceDate: Double(value))))
        case .double(let value): return .value(.date(Date(timeIntervalSinceReferenceDate: value)))
        default: throw syntaxError("CAST takes a number of seconds since 2001-01-01")
        }
    }

    private mutating func takeArgument(_ kind: Character, offset: Int) throws(FetchPredicateError) -> PredicateOperand {
        guard !arguments.isEmpty else {
            throw FetchPredicateError.badArgument(format: format, message: "no argument for the specifier at offset \(offset)")
        }
        let value = arguments.removeFirst()
        switch kind {
        case "K":
            guard case .string(let key) = value else {
                throw FetchPredicateError.badArgument(format: format, message: "%K needs a key path string, got \(value)")
            }
            return .key(key)
        case "d":
            switch value {
            case .int, .bool: return .value(value)
            case .double(let d) where d == d.rounded(): return .value(.int(Int64(d)))
            default: throw FetchPredicateError.badArgument(format: format, message: "%d needs an integer, got \(value)")
            }
        case "f":
            switch value {
            case .int(let i): return .value(.double(Double(i)))
            case .double: return .value(value)
            default: throw FetchPredicateError.badArgument(format: format, message: "%f needs a number, got \(value)")
            }
        default:
            return .value(value)
        }
    }
}
