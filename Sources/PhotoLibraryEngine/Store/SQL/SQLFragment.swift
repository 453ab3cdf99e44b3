import Foundation

/// SQL text with its parameters.
package struct SQLFragment: Sendable, Hashable, CustomStringConvertible {
    package var sql: String
    package var arguments: [SQLValue]

    package init(_ sql: String, _ arguments: [SQLValue] = []) {
        self.sql = sql
        self.arguments = arguments
    }

    package var description: String { "\(sql) \(arguments)" }

    package var statementArguments: SQLArguments { SQLArguments(arguments) }

    static func joined(_ parts: [SQLFragment], separator: String) -> SQLFragment {
        SQLFragment(parts.map(\.sql).joined(separator: separator), parts.flatMap(\.arguments))
    }
}
