import Foundation

/// Compiles a ``FetchPredicate`` to a parameterized SQL condition against a ``KeyTable``.
///
/// String comparisons with options (`[c]`, `[d]`) and the string operators go through the `ph_compare` SQL
/// function, which applies Foundation's comparison rules exactly; everything else is plain SQL that indexes serve.
package struct PredicateCompiler: Sendable {
    package var table: KeyTable
    package var dialect: SQLDialect
    /// Above this many elements, `IN` binds one JSON array instead of one parameter per element.
    package var inlineListLimit = 64

    package init(table: KeyTable, dialect: SQLDialect) {
        self.table = table
        self.dialect = dialect
    }

    /// Compiles a predicate to a condition with NSPredicate's semantics for nil.
    ///
    /// `NOT` is pushed down to the comparisons (De Morgan), so `NOT NOT` disappears and no `NOT (…)` nests; chains
    /// of `AND` (or of `OR`) at any depth of parentheses become one flat list. A comparison with a nil key value is
    /// false, except `!=`, which is true (Core Data's `(col <> ? OR col IS NULL)`): so `burstIdentifier != "x"` and
    /// `NOT (burstIdentifier == "x")` both include the assets that have no burst identifier.
    package func compile(_ expression: FetchPredicate) throws(FetchPredicateError) -> SQLFragment {
        try compile(expression, negated: false)
    }

    private func compile(_ expression: FetchPredicate, negated: Bool) throws(FetchPredicateError) -> SQLFragment {
        switch expression {
        case .constant(let value):
            return SQLFragment(value != negated ? "TRUE" : "FALSE")
        case .and(let parts):
            return try group(parts, conjunction: !negated, negated: negated)
        case .or(let parts):
            return try group(parts, conjunction: negated, negated: negated)
        case .not(let inner):
            return try compile(inner, negated: !negated)
        case .comparison(let lhs, let op, let rhs, let options):
            return try comparison(lhs, op, rhs, options, negated: negated)
        }
    }

    /// Compiles sort keys to an ORDER BY list (without the keyword).
    package func orderBy(_ sorts: [SortKey]) throws(FetchPredicateError) -> [String] {
        var terms: [String] = []
        for sort in sorts {
            let column = try table.column(for: sort.key)
            terms.append("\(column.sql) \(sort.ascending ? "ASC" : "DESC")")
        }
        return terms
    }

    /// `parts` joined by AND (`conjunction`) or OR, each negated or not; nested groups of the same connective
    /// (after negation) are spliced into this one.
    private func group(_ parts: [FetchPredicate], conjunction: Bool, negated: Bool) throws(FetchPredicateError) -> SQLFragment {
        var compiled: [SQLFragment] = []
        var pending = parts.map { ($0, negated) }[...]
        while let (part, isNegated) = pending.popFirst() {
            switch part {
            case .and(let inner) where conjunction != isNegated, .or(let inner) where conjunction == isNegated:
                pending = (inner.map { ($0, isNegated) } + pending)[...]
            case .not(let inner):
                pending = ([(inner, !isNegated)] + pending)[...]
            default:
                compiled.append(try compile(part, negated: isNegated))
            }
        }
        if compiled.count == 1 { return compiled[0] }
        let joined = SQLFragment.joined(compiled, separator: conjunction ? " AND " : " OR ")
        return SQLFragment("(\(joined.sql))", joined.arguments)
    }

    private static let operatorCodes: [ComparisonOperator: Int64] = [
        .equal: 0, .contains: 1, .beginsWith: 2, .endsWith: 3, .like: 4, .notEqual: 5,
    ]

    private func comparison(
        _ lhs: PredicateOperand, _ op: ComparisonOperator, _ rhs: PredicateOperand, _ options: ComparisonOptions, negated: Bool
    ) throws(FetchPredicateError) -> SQLFragment {
        // Normalise `value op key` to `key op' value`.
        if case .value = lhs, !(rhs.isValue) {
            guard let flipped = op.flipped else {
                throw .unsupportedOperator(
                    operator: op.rawValue, key: rhs.keyName,
                    message: "the key must be on the left of \(op.rawValue)")
            }
            return try comparison(rhs, flipped, lhs, options, negated: negated)
        }
        let (positive, nullable) = try comparison(lhs, op, rhs, options)
        // SQL that is never NULL negates plainly.
        guard let nullable else { return negated ? SQLFragment("NOT (\(positive.sql))", positive.arguments) : positive }
        // A nil key value makes SQL's comparison NULL; NSPredicate's is false, except `!=`, which is true.
        if op == .notEqual {
            let value = positive.arguments.suffix(1)
            return negated
                ? SQLFragment("\(nullable.sql) = ?", nullable.arguments + value)
                : SQLFragment("(\(nullable.sql) != ? OR \(nullable.sql) IS NULL)", nullable.arguments + value)
        }
        if !negated { return positive }
        return SQLFragment("(NOT (\(positive.sql)) OR \(nullable.sql) IS NULL)", positive.arguments + nullable.arguments)
    }

    /// The comparison as SQL that is true where the predicate holds (NULL counting as false), and the nullable
    /// operand whose nil makes it NULL, if any.
    private func comparison(
        _ lhs: PredicateOperand, _ op: ComparisonOperator, _ rhs: PredicateOperand, _ options: ComparisonOptions
    ) throws(FetchPredicateError) -> (SQLFragment, nullable: SQLFragment?) {
        let (left, kind) = try operand(lhs)
        let keyName = lhs.keyName
        let leftNullable = try isNullable(lhs) ? left : nil

        if case .value(let value) = rhs {
            switch op {
            case .in:
                guard case .array(let values) = value else {
                    throw .badArgument(format: "\(lhs) IN \(value)", message: "IN needs a collection of values")
                }
                if values.isEmpty { return (SQLFragment("FALSE"), nil) }
                let bound = try values.map { v throws(FetchPredicateError) in try bind(v, kind: kind, key: keyName) }
                if bound.count <= inlineListLimit {
                    return (
                        SQLFragment(
                            "\(left.sql) IN (\(Array(repeating: "?", count: bound.count).joined(separator: ", ")))",
                            left.arguments + bound), leftNullable
                    )
                }
                let list = dialect.isIn(left.sql, bound)
                return (SQLFragment(list.sql, left.arguments + list.arguments), leftNullable)
            case .between:
                guard case .array(let values) = value, values.count == 2 else {
                    throw .badArgument(format: "\(lhs) BETWEEN \(value)", message: "BETWEEN needs exactly two values")
                }
                return (
                    SQLFragment(
                        "\(left.sql) BETWEEN ? AND ?",
                        left.arguments + [try bind(values[0], kind: kind, key: keyName), try bind(values[1], kind: kind, key: keyName)]), leftNullable
                )
            case .contains, .beginsWith, .endsWith, .like:
                guard kind == .string || kind == .identifier else {
                    throw .unsupportedOperator(operator: op.rawValue, key: keyName, message: "string operators apply to string keys only")
                }
                guard case .string(let text) = value else {
                    throw .badArgument(format: "\(lhs) \(op.rawValue) \(value)", message: "\(op.rawValue) needs a string")
                }
                return (
                    SQLFragment(
                        "ph_compare(\(left.sql), ?, \(Self.operatorCodes[op]!), \(options.rawValue))",
                        left.arguments + [.text(text)]), nil
                )
            case .equal, .notEqual:
                if case .null = value {
                    return (SQLFragment("\(left.sql) IS \(op == .equal ? "" : "NOT ")NULL", left.arguments), nil)
                }
                if !options.isEmpty, case .string(let text) = value {
                    return (
                        SQLFragment(
                            "ph_compare(\(left.sql), ?, \(Self.operatorCodes[op]!), \(options.rawValue))",
                            left.arguments + [.text(text)]), nil
                    )
                }
                let bound = try bind(value, kind: kind, key: keyName)
                return (SQLFragment("\(left.sql) \(op == .equal ? "=" : "!=") ?", left.arguments + [bound]), leftNullable)
            case .less, .lessOrEqual, .greater, .greaterOrEqual:
                if kind == .identifier || kind == .bool {
                    throw .unsupportedOperator(operator: op.rawValue, key: keyName, message: "ordering comparisons need a number or a date")
                }
                let bound = try bind(value, kind: kind, key: keyName)
                return (SQLFragment("\(left.sql) \(op.rawValue) ?", left.arguments + [bound]), leftNullable)
            }
        }

        // key op key
        let (right, _) = try operand(rhs)
        switch op {
        // `IS` compares nil as a value (nil == nil), and coalesce makes a comparison with nil false: never NULL.
        case .equal: return (SQLFragment("\(left.sql) IS \(right.sql)", left.arguments + right.arguments), nil)
        case .notEqual: return (SQLFragment("\(left.sql) IS NOT \(right.sql)", left.arguments + right.arguments), nil)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            return (SQLFragment("coalesce(\(left.sql) \(op.rawValue) \(right.sql), 0)", left.arguments + right.arguments), nil)
        default:
            throw .unsupportedOperator(operator: op.rawValue, key: keyName, message: "the right-hand side must be a value")
        }
    }

    private func isNullable(_ operand: PredicateOperand) throws(FetchPredicateError) -> Bool {
        if case .key(let key) = operand { return try table.column(for: key).nullable }
        return false
    }

    private func operand(_ operand: PredicateOperand) throws(FetchPredicateError) -> (SQLFragment, KeyKind) {
        switch operand {
        case .key(let key):
            let column = try table.column(for: key)
            return (SQLFragment(column.sql), column.kind)
        case .value(let value):
            return (SQLFragment("?", [try bind(value, kind: nil, key: nil)]), .integer)
        case .bitwiseAnd(let l, let r):
            let (left, leftKind) = try self.operand(l)
            let (right, rightKind) = try self.operand(r)
            guard leftKind == .integer, rightKind == .integer else {
                throw .unsupportedOperator(operator: "&", key: l.keyName ?? r.keyName, message: "bitwise and needs integer operands")
            }
            return (SQLFragment("(\(left.sql) & \(right.sql))", left.arguments + right.arguments), .integer)
        }
    }

    private func bind(_ value: PredicateValue, kind: KeyKind?, key: String?) throws(FetchPredicateError) -> SQLValue {
        func mismatch(_ expected: String) -> FetchPredicateError {
            .badArgument(format: key ?? "value", message: "'\(key ?? "value")' compares with \(expected), got \(value)")
        }
        switch value {
        case .null: return .null
        case .bool(let b):
            return .integer(b ? 1 : 0)
        case .int(let i):
            if kind == .date { throw mismatch("a date") }
            if kind == .string || kind == .identifier { throw mismatch("a string") }
            return .integer(i)
        case .double(let d):
            if kind == .date { throw mismatch("a date") }
            if kind == .string || kind == .identifier { throw mismatch("a string") }
            return .real(d)
        case .string(let s):
            if kind == .date { throw mismatch("a date") }
            if kind == .integer || kind == .real || kind == .bool { throw mismatch("a number") }
            return .text(s)
        case .date(let d):
            if let kind, kind != .date { throw mismatch("a \(kind)") }
            return .real(d.timeIntervalSince1970)
        case .object(let identifier):
            if let kind, kind != .identifier { throw mismatch("a \(kind)") }
            return .text(identifier)
        case .array:
            throw mismatch("a single value")
        }
    }
}

extension ComparisonOperator {
    var flipped: ComparisonOperator? {
        switch self {
        case .equal: .equal
        case .notEqual: .notEqual
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        default: nil
        }
    }
}

extension PredicateOperand {
    var isValue: Bool {
        if case .value = self { return true }
        return false
    }

    var isNullValue: Bool {
        if case .value(.null) = self { return true }
        return false
    }

    var keyName: String? {
        switch self {
        case .key(let k): k
        case .value: nil
        case .bitwiseAnd(let l, let r): l.keyName ?? r.keyName
        }
    }
}

/// The `ph_compare(lhs, rhs, op, options)` SQL function: NSPredicate string comparison semantics.
package enum StringComparison {
    package static func evaluate(_ lhs: String?, _ rhs: String?, operation: Int, options: Int) -> Bool {
        guard let lhs, let rhs else { return operation == 5 ? (lhs != rhs) : false }
        var compareOptions: String.CompareOptions = []
        if options & ComparisonOptions.caseInsensitive.rawValue != 0 { compareOptions.insert(.caseInsensitive) }
        if options & ComparisonOptions.diacriticInsensitive.rawValue != 0 { compareOptions.insert(.diacriticInsensitive) }
        let l = compareOptions.isEmpty ? lhs : lhs.folding(options: compareOptions, locale: nil)
        let r = compareOptions.isEmpty ? rhs : rhs.folding(options: compareOptions, locale: nil)
        switch operation {
        case 0: return l == r
        case 1: return r.isEmpty ? true : l.contains(r)
        case 2: return l.hasPrefix(r)
        case 3: return l.hasSuffix(r)
        case 4: return like(Array(l), Array(r))
        case 5: return l != r
        default: return false
        }
    }

    /// NSPredicate LIKE: `*` matches any run of characters, `?` exactly one, `\` escapes.
    static func like(_ s: [Character], _ p: [Character]) -> Bool {
        var memo: [Int: Bool] = [:]
        func match(_ i: Int, _ j: Int) -> Bool {
            let k = i * (p.count + 1) + j
            if let m = memo[k] { return m }
            let result: Bool
            if j == p.count {
                result = i == s.count
            } else if p[j] == "*" {
                result = match(i, j + 1) || (i < s.count && match(i + 1, j))
            } else if p[j] == "?" {
                result = i < s.count && match(i + 1, j + 1)
            } else if p[j] == "\\", j + 1 < p.count {
                result = i < s.count && s[i] == p[j + 1] && match(i + 1, j + 2)
            } else {
                result = i < s.count && s[i] == p[j] && match(i + 1, j + 1)
            }
            memo[k] = result
            return result
        }
        return match(0, 0)
    }
}
