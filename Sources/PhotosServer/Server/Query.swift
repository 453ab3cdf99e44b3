import Dispatch
import Foundation
import HTTPTypes
import Hummingbird

/// Query parameters, refusing any the route does not know (a typo must not silently fetch everything).
struct Query {
    private var values: [String: String] = [:]

    init(_ request: Request, allowed: Set<String>) throws {
        for (key, value) in request.uri.queryParameters {
            let name = String(key)
            guard allowed.contains(name) else {
                throw APIError.badRequest("unknown query parameter '\(name)'; this route takes \(allowed.sorted().joined(separator: ", "))")
            }
            guard values[name] == nil else { throw APIError.badRequest("query parameter '\(name)' is given twice") }
            // An empty value is the same as none (`cursor=` is the first page, `predicate=` no filter), as a form
            // with an empty field sends it.
            if !value.isEmpty { values[name] = String(value) }
        }
    }

    /// The parameters of a JSON body `{"name": "value", …}` (values strings, numbers or booleans), for a request whose
    /// parameters do not fit a URL.
    init(form: [String: Any], allowed: Set<String>) throws {
        for (name, value) in form {
            guard allowed.contains(name) else {
                throw APIError.badRequest("unknown parameter '\(name)'; this route takes \(allowed.sorted().joined(separator: ", "))")
            }
            switch value {
            case let text as String: if !text.isEmpty { values[name] = text }
            case let number as NSNumber: values[name] = number.stringValue
            case is NSNull: break
            default: throw APIError.badRequest("parameter '\(name)' must be a string, a number or a boolean")
            }
        }
    }

    subscript(_ name: String) -> String? { values[name] }

    func bool(_ name: String, default value: Bool = false) throws -> Bool {
        switch values[name] {
        case nil: return value
        case "true", "1": return true
        case "false", "0": return false
        case let other?: throw APIError.badRequest("'\(name)' must be true or false, not \(other.debugDescription)")
        }
    }

    func integer(_ name: String, default value: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let text = values[name] else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw APIError.badRequest("'\(name)' must be an integer from \(range.lowerBound) to \(range.upperBound), not \(text.debugDescription)")
        }
        return number
    }
}
