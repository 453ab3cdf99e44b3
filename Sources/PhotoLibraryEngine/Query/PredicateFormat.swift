import Foundation

extension FetchPredicate {
    /// The predicate as an `NSPredicate` format string that ``PredicateParser`` reads back to the same predicate:
    /// what a remote library sends its server (`predicate=`), which compiles PhotoKit's format itself. Strings are
    /// escaped, dates are `CAST(seconds, "NSDate")`, an object argument is its local identifier.
    package var format: String {
        switch self {
        case .constant(let value): return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .comparison(let left, let operation, let right, let options):
            var text = operation.rawValue
            if !options.isEmpty {
                text += "[" + (options.contains(.caseInsensitive) ? "c" : "") + (options.contains(.diacriticInsensitive) ? "d" : "") + "]"
            }
            return "\(left.format) \(text) \(right.format)"
        case .and(let parts): return parts.isEmpty ? "TRUEPREDICATE" : "(" + parts.map(\.format).joined(separator: " AND ") + ")"
        case .or(let parts): return parts.isEmpty ? "FALSEPREDICATE" : "(" + parts.map(\.format).joined(separator: " OR ") + ")"
        case .not(let inner): return "NOT (\(inner.format))"
        }
    }
}

extension PredicateOperand {
    /// The operand in format syntax (see ``FetchPredicate/format``).
    package var format: String {
        switch self {
        case .key(let key): key
        case .value(let value): value.format
        case .bitwiseAnd(let left, let right): "(\(left.format) & \(right.format))"
        }
    }
}

extension PredicateValue {
    /// The value in format syntax (see ``FetchPredicate/format``).
    package var format: String {
        switch self {
        case .null: "nil"
        case .bool(let value): value ? "YES" : "NO"
        case .int(let value): String(value)
        case .double(let value): String(value)
        case .string(let value): Self.quoted(value)
        case .date(let date): "CAST(\(date.timeIntervalSinceReferenceDate), \"NSDate\")"
        case .object(let localIdentifier): Self.quoted(localIdentifier)
        case .array(let values): "{" + values.map(\.format).joined(separator: ", ") + "}"
        }
    }

    static func quoted(_ text: String) -> String {
        var result = "\""
        for character in text {
            switch character {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            default: result.append(character)
            }
        }
        return result + "\""
    }
}
