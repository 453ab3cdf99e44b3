import Foundation
import PhotoLibraryEngine

extension NSPredicate {
    /// Creates a predicate for PhotoKit fetches from a Swift `#Predicate`, compiled to the same SQL as the
    /// equivalent format string. Returns nil when the predicate uses an expression PhotoKit fetches cannot
    /// express (use ``init(validating:)`` to learn which).
    ///
    /// ```swift
    /// let image = PHAssetMediaType.image          // enum cases must be captured outside the closure on Linux
    /// options.predicate = NSPredicate(#Predicate<PHAsset> { $0.mediaType == image && $0.pixelWidth >= 1000 })
    /// ```
    public convenience init?(_ predicate: Predicate<PHAsset>) {
        guard let expression = try? SwiftPredicateCompiler.compile(predicate.expression) else { return nil }
        self.init(compiled: expression)
    }

    /// Creates a predicate from a Swift `#Predicate`, throwing ``FetchOptionsError`` naming the expression
    /// that PhotoKit fetches cannot express.
    public convenience init(validating predicate: Predicate<PHAsset>) throws {
        do {
            self.init(compiled: try SwiftPredicateCompiler.compile(predicate.expression))
        } catch {
            throw FetchOptionsError(error)
        }
    }

    convenience init(compiled expression: FetchPredicate) {
        self.init(block: { _, _ in
            photoKitMisuse("PhotoKit predicates are evaluated by the library's query engine, not in memory")
        })
        predicateTable.set(PredicateRecord(object: self, format: expression.description, parsed: .success(expression)), for: self)
    }
}

/// Walks a Foundation `Predicate` expression tree into the engine's predicate form.
enum SwiftPredicateCompiler {
    enum Node {
        case predicate(FetchPredicate)
        case operand(PredicateOperand)
    }

    static func compile(_ expression: Any) throws(FetchPredicateError) -> FetchPredicate {
        switch try node(expression) {
        case .predicate(let predicate): return predicate
        case .operand(.key(let key)): return .comparison(.key(key), .equal, .value(.bool(true)), [])
        case .operand(let operand): throw .unsupportedExpression("\(operand) used as a condition")
        }
    }

    static func node(_ expression: Any) throws(FetchPredicateError) -> Node {
        guard let convertible = expression as? any FetchPredicateNode else {
            throw .unsupportedExpression(String(describing: type(of: expression)))
        }
        return try convertible.fetchPredicateNode()
    }

    static func operand(_ expression: Any) throws(FetchPredicateError) -> PredicateOperand {
        switch try node(expression) {
        case .operand(let operand): return operand
        case .predicate(let predicate): throw .unsupportedExpression("\(predicate) used as a value")
        }
    }

    static func comparison(_ lhs: Any, _ op: ComparisonOperator, _ rhs: Any) throws(FetchPredicateError) -> Node {
        .predicate(.comparison(try operand(lhs), op, try operand(rhs), []))
    }
}

protocol FetchPredicateNode {
    func fetchPredicateNode() throws(FetchPredicateError) -> SwiftPredicateCompiler.Node
}

extension PredicateExpressions.Conjunction: FetchPredicateNode {
    func fetchPredicateNode() throws(FetchPredicateError) -> SwiftPredicateCompiler.Node {
        .predicate(.and([try SwiftPredicateCompiler.compile(lhs), try SwiftPredicateCompiler.compile(rhs)]))
    }
}

extension PredicateExpressions.Disjunction: FetchPredicateNode {
    func fetchPredicateNode() throws(FetchPredicateError) -> SwiftPredicateCompiler.Node {
        .predicate(.or([try SwiftPredicateCompiler.compile(lhs), try SwiftPredicateCompiler.compile(rhs)]))
    }
}

extension PredicateExpressions.Negation: FetchPredicateNode {
    func fetchPredicateNode() throws(FetchPredicateError) -> SwiftPredicateCompiler.Node {
        .predicate(.not(try SwiftPredicateCompiler.compile(wrapped)))
    }
}

extension PredicateExpressions.Equal: FetchPredicateNode {
    func fetchPredicateNode() throws(FetchPredicateError) -> SwiftPredicateCompiler.Node {
        try SwiftPredicateCompiler.comparison(lhs, .equal, rhs)
    }
}

extension PredicateExpressions.NotEqual: FetchPredicateNode {
    func fetchPredicateNode() throws(FetchPredicateError) -> SwiftPredicateCompiler.Node {
        try SwiftPredicateCompiler.comparison(lhs, .notEqual, rhs)
    }
}

extension PredicateExpressions.Comparison: FetchPredicateNode {
    func fetchPredicateNode() throws(FetchPredicateError) -> SwiftPredicateCompiler.Node {
        let mapped: ComparisonOperator
        switch op {
        case .lessThan: mapped = .less
        case .lessThanOrEqual: mapped = .lessOrEqual
        case .greaterThan: mapped = .greater
        case .greaterThanOrEqual: mapped = .greaterOrEqual
        }
        return try SwiftPredicateCompiler.comparison(lhs, mapped, rhs)
    }
}

extension PredicateExpressions.SequenceContains: FetchPredicateNode {
    func fetchPredicateNode() throws(FetchPredicateError) -> SwiftPredicateCompiler.Node {
        try SwiftPredicateCompiler.comparison(element, .in, sequence)
    }
}

extension PredicateExpressions.ForcedUnwrap: FetchPredicateNode {
    func fetchPredicateNode() throws(FetchPredicateError) -> SwiftPredicateCompiler.Node {
        try SwiftPredicateCompiler.node(inner)
    }
}

extension PredicateExpressions.KeyPath: FetchPredicateNode {
    func fetchPredicateNode() throws(FetchPredicateError) -> SwiftPredicateCompiler.Node {
        guard let name = PhotosKeyPaths.name(of: keyPath) else {
            throw .unsupportedExpression("the key path \(keyPath), which is not one of PhotoKit's fetch keys")
        }
        return .operand(.key(name))
    }
}

extension PredicateExpressions.Value: FetchPredicateNode {
    func fetchPredicateNode() throws(FetchPredicateError) -> SwiftPredicateCompiler.Node {
        if let optional = value as Any? as? any OptionalProtocol, optional.isNone { return .operand(.value(.null)) }
        return .operand(.value(try PredicateArguments.convert(value)))
    }
}

/// Lets a generic value be checked for `nil` without knowing its wrapped type.
protocol OptionalProtocol {
    var isNone: Bool { get }
}

extension Optional: OptionalProtocol {
    var isNone: Bool { self == nil }
}
