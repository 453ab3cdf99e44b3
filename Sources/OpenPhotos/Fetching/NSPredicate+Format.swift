import Foundation
import PhotoLibraryEngine
import Synchronization

/// What a predicate made by ``Foundation/NSPredicate/init(format:_:)`` holds, kept beside the object
/// (extensions cannot add stored properties and Linux has no associated objects).
final class PredicateRecord: @unchecked Sendable {
    weak var object: NSObject?
    let format: String
    let parsed: Result<FetchPredicate, FetchPredicateError>

    init(object: NSObject, format: String, parsed: Result<FetchPredicate, FetchPredicateError>) {
        self.object = object
        self.format = format
        self.parsed = parsed
    }
}

/// Side tables keyed by object identity. An entry is used only while its object is alive and is the very
/// object asked about, so a reused address never reads a dead object's entry.
struct SideTable<Entry: AnyObject & Sendable>: ~Copyable {
    private let storage = Mutex<[ObjectIdentifier: Entry]>([:])
    private let objectOf: @Sendable (Entry) -> NSObject?

    init(objectOf: @escaping @Sendable (Entry) -> NSObject?) {
        self.objectOf = objectOf
    }

    func set(_ entry: Entry, for object: NSObject) {
        storage.withLock { table in
            if table.count > 256, table.count.isMultiple(of: 256) {
                table = table.filter { objectOf($0.value) != nil }
            }
            table[ObjectIdentifier(object)] = entry
        }
    }

    func get(_ object: NSObject) -> Entry? {
        storage.withLock { table in
            guard let entry = table[ObjectIdentifier(object)], objectOf(entry) === object else { return nil }
            return entry
        }
    }
}

let predicateTable = SideTable<PredicateRecord>(objectOf: { $0.object })

extension NSPredicate {
    /// Creates a predicate from an NSPredicate format string, as on Apple platforms, for PhotoKit fetches.
    ///
    /// swift-corelibs-foundation has no format-string predicates; OpenPhotos parses the PhotoKit subset
    /// (comparisons, `AND OR NOT`, `IN`, `BETWEEN`, string operators, `&` on `mediaSubtypes`, `%@ %d %K`).
    /// A malformed format traps, as Foundation raises; use ``init(validatingFormat:argumentArray:)`` to recover.
    public convenience init(format predicateFormat: String, _ args: Any...) {
        self.init(format: predicateFormat, argumentArray: args)
    }

    /// Creates a predicate from a format string and an array of arguments.
    public convenience init(format predicateFormat: String, argumentArray arguments: [Any]?) {
        let parsed = Result { () throws(FetchPredicateError) -> FetchPredicate in
            try PredicateParser.parse(predicateFormat, arguments: try PredicateArguments.convert(arguments ?? []))
        }
        if case .failure(let error) = parsed {
            photoKitMisuse(error.description)
        }
        self.init(block: { _, _ in
            photoKitMisuse("PhotoKit predicates are evaluated by the library's query engine, not in memory")
        })
        predicateTable.set(PredicateRecord(object: self, format: predicateFormat, parsed: parsed), for: self)
    }

    /// Creates a predicate from a format string, throwing instead of trapping when it does not parse.
    public convenience init(validatingFormat predicateFormat: String, argumentArray arguments: [Any] = []) throws {
        let parsed = Result { () throws(FetchPredicateError) -> FetchPredicate in
            try PredicateParser.parse(predicateFormat, arguments: try PredicateArguments.convert(arguments))
        }
        if case .failure(let error) = parsed { throw FetchOptionsError(error) }
        self.init(block: { _, _ in
            photoKitMisuse("PhotoKit predicates are evaluated by the library's query engine, not in memory")
        })
        predicateTable.set(PredicateRecord(object: self, format: predicateFormat, parsed: parsed), for: self)
    }

    /// The format string, normalised (OpenPhotoKit's stand-in for `predicateFormat`).
    public var photosPredicateFormat: String? {
        (try? PredicateArguments.expression(of: self))?.description
    }
}

/// Converts `NSPredicate` objects and their arguments to the engine's predicate form.
enum PredicateArguments {
    static func expression(of predicate: NSPredicate) throws(FetchPredicateError) -> FetchPredicate {
        if let compound = predicate as? NSCompoundPredicate {
            var parts: [FetchPredicate] = []
            for sub in compound.subpredicates { parts.append(try expression(of: sub)) }
            switch compound.compoundPredicateType {
            case .and: return parts.isEmpty ? .constant(true) : .and(parts)
            case .or: return parts.isEmpty ? .constant(false) : .or(parts)
            case .not:
                guard let first = parts.first else { return .constant(true) }
                return .not(parts.count == 1 ? first : .and(parts))
            @unknown default: throw .unsupportedPredicate("compound predicate")
            }
        }
        if let record = predicateTable.get(predicate) {
            return try record.parsed.get()
        }
        // NSPredicate(value:) — swift-corelibs-foundation keeps it as a `boolean` kind.
        let kind = Mirror(reflecting: predicate).children.first { $0.label == "kind" }.map { String(describing: $0.value) }
        if kind == "boolean(true)" { return .constant(true) }
        if kind == "boolean(false)" { return .constant(false) }
        throw .unsupportedPredicate("block-based predicates are not supported")
    }

    static func convert(_ arguments: [Any]) throws(FetchPredicateError) -> [PredicateValue] {
        var values: [PredicateValue] = []
        for argument in arguments { values.append(try convert(argument)) }
        return values
    }

    static func convert(_ argument: Any) throws(FetchPredicateError) -> PredicateValue {
        switch argument {
        case let value as PredicateValue: return value
        case is NSNull: return .null
        case let object as PHObject: return .object(localIdentifier: object.localIdentifier)
        case let value as Bool: return .bool(value)
        case let value as Int: return .int(Int64(value))
        case let value as Int8: return .int(Int64(value))
        case let value as Int16: return .int(Int64(value))
        case let value as Int32: return .int(Int64(value))
        case let value as Int64: return .int(value)
        case let value as UInt: return .int(Int64(bitPattern: UInt64(value)))
        case let value as UInt8: return .int(Int64(value))
        case let value as UInt16: return .int(Int64(value))
        case let value as UInt32: return .int(Int64(value))
        case let value as UInt64: return .int(Int64(bitPattern: value))
        case let value as Double: return .double(value)
        case let value as Float: return .double(Double(value))
        case let value as CGFloat: return .double(Double(value))
        case let value as Date: return .date(value)
        case let value as NSDate: return .date(value as Date)
        case let value as String: return .string(value)
        case let value as Substring: return .string(String(value))
        case let value as NSString: return .string(String(describing: value))
        case let value as UUID: return .string(value.uuidString)
        case let value as NSNumber:
            let d = value.doubleValue
            return d.rounded() == d && abs(d) < 9e18 ? .int(value.int64Value) : .double(d)
        case let value as any RawRepresentable:
            return try convert(value.rawValue)
        case let value as any NSFastEnumeration:
            return .array(try convert(value._fastEnumerationElements))
        case let value as any Sequence:
            var items: [Any] = []
            for item in value { items.append(item) }
            return .array(try convert(items))
        default:
            throw .badArgument(format: "", message: "arguments of type \(type(of: argument)) are not supported")
        }
    }
}
