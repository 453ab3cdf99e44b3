import Foundation

/// A value inside a predicate: a literal from the format string or an argument, converted to a Sendable form
/// when the predicate is made (so predicates cross threads and never carry caller objects).
package enum PredicateValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case date(Date)
    /// A PhotoKit object passed as an argument (`SELF == %@`), by local identifier.
    case object(localIdentifier: String)
    case array([PredicateValue])

    package var description: String {
        switch self {
        case .null: "nil"
        case .bool(let b): b ? "YES" : "NO"
        case .int(let i): "\(i)"
        case .double(let d): "\(d)"
        case .string(let s): "\"\(s)\""
        case .date(let d): "CAST(\(d.timeIntervalSinceReferenceDate), \"NSDate\")"
        case .object(let id): "<\(id)>"
        case .array(let values): "{" + values.map(\.description).joined(separator: ", ") + "}"
        }
    }
}

/// Comparison operators of the NSPredicate format language that PhotoKit fetches accept.
package enum ComparisonOperator: String, Sendable, Hashable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case between = "BETWEEN"
    case `in` = "IN"
    case contains = "CONTAINS"
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case like = "LIKE"

    var isStringOperator: Bool {
        switch self {
        case .contains, .beginsWith, .endsWith, .like: true
        default: false
        }
    }
}

/// `[c]`, `[d]` and `[cd]` options of string comparisons.
package struct ComparisonOptions: OptionSet, Sendable, Hashable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }
    package static let caseInsensitive = ComparisonOptions(rawValue: 1)
    package static let diacriticInsensitive = ComparisonOptions(rawValue: 2)
}

/// One side of a comparison.
package indirect enum PredicateOperand: Sendable, Hashable, CustomStringConvertible {
    case key(String)
    case value(PredicateValue)
    /// `key & mask`, as in PhotoKit's documented `(mediaSubtypes & %d) != 0`.
    case bitwiseAnd(PredicateOperand, PredicateOperand)

    package var description: String {
        switch self {
        case .key(let k): k
        case .value(let v): v.description
        case .bitwiseAnd(let l, let r): "(\(l) & \(r))"
        }
    }
}

/// The parsed form of an `NSPredicate` format string (or a compiled `#Predicate`), independent of SQL.
package indirect enum FetchPredicate: Sendable, Hashable, CustomStringConvertible {
    case constant(Bool)
    case comparison(PredicateOperand, ComparisonOperator, PredicateOperand, ComparisonOptions)
    case and([FetchPredicate])
    case or([FetchPredicate])
    case not(FetchPredicate)

    package var description: String {
        switch self {
        case .constant(let b): return b ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .comparison(let l, let op, let r, let options):
            var opText = op.rawValue
            if !options.isEmpty {
                opText += "[" + (options.contains(.caseInsensitive) ? "c" : "") + (options.contains(.diacriticInsensitive) ? "d" : "") + "]"
            }
            return "\(l) \(opText) \(r)"
        case .and(let parts): return "(" + parts.map(\.description).joined(separator: " AND ") + ")"
        case .or(let parts): return "(" + parts.map(\.description).joined(separator: " OR ") + ")"
        case .not(let inner): return "NOT \(inner)"
        }
    }

    /// Levels of alternating AND and OR once chains of one connective are flattened and NOT is pushed down to
    /// the comparisons (as the compiler emits it): `a AND (b AND c)` is 1, `a AND (b OR c)` is 2.
    package var logicalDepth: Int {
        func depth(_ node: FetchPredicate, under parent: Bool?, negated: Bool) -> Int {
            switch node {
            case .constant, .comparison: return 0
            case .not(let inner): return depth(inner, under: parent, negated: !negated)
            case .and(let parts), .or(let parts):
                var isAnd = true
                if case .or = node { isAnd = false }
                let connective = isAnd != negated  // after De Morgan
                let children = parts.map { depth($0, under: connective, negated: negated) }.max() ?? 0
                return children + (parent == connective ? 0 : 1)
            }
        }
        return depth(self, under: nil, negated: false)
    }

    /// Every key the expression names, in order of appearance.
    package var keys: [String] {
        func keys(_ operand: PredicateOperand) -> [String] {
            switch operand {
            case .key(let k): [k]
            case .value: []
            case .bitwiseAnd(let l, let r): keys(l) + keys(r)
            }
        }
        switch self {
        case .constant: return []
        case .comparison(let l, _, let r, _): return keys(l) + keys(r)
        case .and(let parts), .or(let parts): return parts.flatMap(\.keys)
        case .not(let inner): return inner.keys
        }
    }
}

/// A sort key with its direction.
package struct SortKey: Sendable, Hashable {
    package var key: String
    package var ascending: Bool
    package init(key: String, ascending: Bool) {
        self.key = key
        self.ascending = ascending
    }
}
