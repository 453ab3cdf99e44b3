import Foundation
import GRDB

/// A bound value of a statement. Predicate text never becomes SQL text: every value is a parameter.
package enum SQLArgument: Sendable, Hashable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    package var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let i): "\(i)"
        case .real(let d): "\(d)"
        case .text(let s): "'\(s)'"
        }
    }

    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let i): i.databaseValue
        case .real(let d): d.databaseValue
        case .text(let s): s.databaseValue
        }
    }
}

/// SQL text with its parameters.
package struct SQLFragment: Sendable, Hashable, CustomStringConvertible {
    package var sql: String
    package var arguments: [SQLArgument]

    package init(_ sql: String, _ arguments: [SQLArgument] = []) {
        self.sql = sql
        self.arguments = arguments
    }

    package var description: String { "\(sql) \(arguments)" }

    package var statementArguments: StatementArguments {
        StatementArguments(arguments.map(\.databaseValue))
    }

    static func joined(_ parts: [SQLFragment], separator: String) -> SQLFragment {
        SQLFragment(parts.map(\.sql).joined(separator: separator), parts.flatMap(\.arguments))
    }
}
