import Foundation

/// A value of a statement's parameter or result column, as any SQL database the engine runs on stores it.
/// Predicate text never becomes SQL text: every value is a parameter.
package enum SQLValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    package var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let i): "\(i)"
        case .real(let d): "\(d)"
        case .text(let s): "'\(s)'"
        case .blob(let d): "<\(d.count) bytes>"
        }
    }
}

/// A Swift type the engine binds to a statement and reads from a row. A conversion that cannot hold the stored
/// value (text read as an integer, NULL read as a non-optional) is a programming error, and traps.
package protocol SQLValueConvertible {
    var sqlValue: SQLValue { get }
    /// The value `stored` holds, or nil when it cannot be read as this type.
    static func fromSQLValue(_ stored: SQLValue) -> Self?
}

extension Int64: SQLValueConvertible {
    package var sqlValue: SQLValue { .integer(self) }
    package static func fromSQLValue(_ stored: SQLValue) -> Int64? {
        switch stored {
        case .integer(let i): i
        case .real(let d): Int64(exactly: d)
        default: nil
        }
    }
}

extension Int: SQLValueConvertible {
    package var sqlValue: SQLValue { .integer(Int64(self)) }
    package static func fromSQLValue(_ stored: SQLValue) -> Int? { Int64.fromSQLValue(stored).flatMap { Int(exactly: $0) } }
}

extension Int32: SQLValueConvertible {
    package var sqlValue: SQLValue { .integer(Int64(self)) }
    package static func fromSQLValue(_ stored: SQLValue) -> Int32? { Int64.fromSQLValue(stored).flatMap { Int32(exactly: $0) } }
}

extension UInt: SQLValueConvertible {
    package var sqlValue: SQLValue { .integer(Int64(bitPattern: UInt64(self))) }
    package static func fromSQLValue(_ stored: SQLValue) -> UInt? { Int64.fromSQLValue(stored).map { UInt(UInt64(bitPattern: $0)) } }
}

extension Bool: SQLValueConvertible {
    package var sqlValue: SQLValue { .integer(self ? 1 : 0) }
    package static func fromSQLValue(_ stored: SQLValue) -> Bool? { Int64.fromSQLValue(stored).map { $0 != 0 } }
}

extension Double: SQLValueConvertible {
    package var sqlValue: SQLValue { .real(self) }
    package static func fromSQLValue(_ stored: SQLValue) -> Double? {
        switch stored {
        case .integer(let i): Double(i)
        case .real(let d): d
        default: nil
        }
    }
}

extension String: SQLValueConvertible {
    package var sqlValue: SQLValue { .text(self) }
    package static func fromSQLValue(_ stored: SQLValue) -> String? {
        switch stored {
        case .text(let s): s
        case .blob(let d): String(decoding: d, as: UTF8.self)
        default: nil
        }
    }
}

extension Data: SQLValueConvertible {
    package var sqlValue: SQLValue { .blob(self) }
    package static func fromSQLValue(_ stored: SQLValue) -> Data? {
        switch stored {
        case .blob(let d): d
        case .text(let s): Data(s.utf8)
        default: nil
        }
    }
}

extension SQLValue: SQLValueConvertible {
    package var sqlValue: SQLValue { self }
    package static func fromSQLValue(_ stored: SQLValue) -> SQLValue? { stored }
}

extension Optional: SQLValueConvertible where Wrapped: SQLValueConvertible {
    package var sqlValue: SQLValue { self?.sqlValue ?? .null }
    /// NULL reads as `.some(nil)`: an optional column's value, not a failed conversion.
    package static func fromSQLValue(_ stored: SQLValue) -> Wrapped?? {
        if case .null = stored { return .some(nil) }
        return Wrapped.fromSQLValue(stored).map { .some($0) }
    }
}

/// The engine's stored enums are their raw values.
extension SQLValueConvertible where Self: RawRepresentable, RawValue: SQLValueConvertible {
    package var sqlValue: SQLValue { rawValue.sqlValue }
    package static func fromSQLValue(_ stored: SQLValue) -> Self? { RawValue.fromSQLValue(stored).flatMap(Self.init(rawValue:)) }
}

/// The parameters of a statement, in placeholder order.
package struct SQLArguments: Sendable, Hashable, ExpressibleByArrayLiteral, CustomStringConvertible {
    package var values: [SQLValue]

    package init(_ values: [SQLValue]) { self.values = values }

    package init(arrayLiteral elements: (any SQLValueConvertible)?...) {
        values = elements.map { $0?.sqlValue ?? .null }
    }

    package var description: String { "\(values)" }

    package static func + (lhs: SQLArguments, rhs: SQLArguments) -> SQLArguments { SQLArguments(lhs.values + rhs.values) }
}
