import Foundation

/// JSON text of the values a served library's requests and answers are made of — `[String: Any]` objects, arrays,
/// strings, integers, floating-point numbers, booleans and `NSNull` — written straight from Swift's values.
///
/// `JSONSerialization.data(withJSONObject:)` turns every object, array and number into Foundation's classes before
/// it writes (on Linux: bridging each value, a dynamic cast per element): a change block of 100 upload jobs spent
/// more time there than in everything else its client did. This writes the same JSON without that; a value of any
/// other kind (an `NSNumber` read from JSON, say) makes the whole text `JSONSerialization`'s, so what is written is
/// always what `JSONSerialization` would accept, and it throws what `JSONSerialization` throws.
package enum JSONText {
    /// The JSON text of `object`; keys sorted (by their UTF-8 bytes) when `sortedKeys`.
    package static func data(_ object: Any, sortedKeys: Bool = false) throws -> Data {
        var writer = Writer(sortedKeys: sortedKeys)
        guard writer.write(object) else {
            return try JSONSerialization.data(withJSONObject: object, options: sortedKeys ? [.sortedKeys] : [])
        }
        return Data(writer.bytes)
    }

    /// Writes values as JSON text into ``bytes``.
    package struct Writer {
        package private(set) var bytes: [UInt8] = []
        let sortedKeys: Bool

        package init(sortedKeys: Bool = false) {
            self.sortedKeys = sortedKeys
            bytes.reserveCapacity(1024)
        }

        /// Writes `value`; false for a value of a kind this does not write (the text is then incomplete).
        package mutating func write(_ value: Any) -> Bool {
            // Scalars by their exact type: a cast would also take an `NSNumber` (read from JSON) for a `Bool` or an
            // `Int` — 1 as `true` — which `JSONSerialization` tells apart.
            let type = Swift.type(of: value)
            if type == String.self {
                write(string: value as! String)
            } else if type == Int.self {
                write(number: value as! Int)
            } else if type == Bool.self {
                write(bool: value as! Bool)
            } else if type == Double.self {
                guard (value as! Double).isFinite else { return false }
                write(number: value as! Double)
            } else if type == Int64.self {
                bytes.append(contentsOf: String(value as! Int64).utf8)
            } else if type == Int32.self {
                bytes.append(contentsOf: String(value as! Int32).utf8)
            } else if type == UInt64.self {
                bytes.append(contentsOf: String(value as! UInt64).utf8)
            } else if type == NSNull.self {
                // Not `is NSNull`: that would turn every array and dictionary into Foundation's classes to ask.
                bytes.append(contentsOf: "null".utf8)
            } else if type == [[String]].self {
                // A job's header fields: written without making each pair an `Any`.
                bytes.append(UInt8(ascii: "["))
                for (index, strings) in (value as! [[String]]).enumerated() {
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    _ = write(strings)
                }
                bytes.append(UInt8(ascii: "]"))
            } else if let object = type == [String: Any].self ? (value as! [String: Any]) : value as? [String: Any] {
                bytes.append(UInt8(ascii: "{"))
                var first = true
                let keys = sortedKeys ? object.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } : Array(object.keys)
                for key in keys {
                    if !first { bytes.append(UInt8(ascii: ",")) }
                    first = false
                    write(string: key)
                    bytes.append(UInt8(ascii: ":"))
                    guard write(object[key]!) else { return false }
                }
                bytes.append(UInt8(ascii: "}"))
            } else if let strings = type == [String].self ? (value as! [String]) : value as? [String] {
                bytes.append(UInt8(ascii: "["))
                for (index, string) in strings.enumerated() {
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    write(string: string)
                }
                bytes.append(UInt8(ascii: "]"))
            } else if let array = type == [Any].self ? (value as! [Any]) : value as? [Any] {
                bytes.append(UInt8(ascii: "["))
                for (index, element) in array.enumerated() {
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    guard write(element) else { return false }
                }
                bytes.append(UInt8(ascii: "]"))
            } else {
                return false
            }
            return true
        }

        /// Writes JSON text as it is (punctuation, a key written by hand).
        package mutating func raw(_ text: StaticString) {
            bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }

        package mutating func write(number: some BinaryInteger) { bytes.append(contentsOf: String(number).utf8) }

        /// Writes a finite number as JSONSerialization does (a whole number without ".0"); exactly the `Double` it
        /// was when read back.
        package mutating func write(number: Double) {
            var text = number.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            bytes.append(contentsOf: text.utf8)
        }

        package mutating func write(bool: Bool) { raw(bool ? "true" : "false") }

        /// Writes `"name":` — after a comma, unless it is the first member of its object.
        package mutating func key(_ name: StaticString) {
            if bytes.last != UInt8(ascii: "{") { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "\""))
            raw(name)
            raw("\":")
        }

        /// Writes one member of an object (a record's field, as `JSONEncoder` names it).
        package mutating func field(_ name: StaticString, _ value: String) {
            key(name)
            write(string: value)
        }

        package mutating func field(_ name: StaticString, _ value: some BinaryInteger) {
            key(name)
            write(number: value)
        }

        /// A finite number (the caller checks: JSON has no others).
        package mutating func field(_ name: StaticString, _ value: Double) {
            key(name)
            write(number: value)
        }

        package mutating func field(_ name: StaticString, _ value: Bool) {
            key(name)
            write(bool: value)
        }

        /// A list of lists of strings (a request's header fields).
        package mutating func field(_ name: StaticString, _ value: [[String]]) {
            key(name)
            bytes.append(UInt8(ascii: "["))
            for (index, strings) in value.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                bytes.append(UInt8(ascii: "["))
                for (position, string) in strings.enumerated() {
                    if position > 0 { bytes.append(UInt8(ascii: ",")) }
                    write(string: string)
                }
                bytes.append(UInt8(ascii: "]"))
            }
            bytes.append(UInt8(ascii: "]"))
        }

        /// An object of strings (an answer's header fields).
        package mutating func field(_ name: StaticString, _ value: [String: String]) {
            key(name)
            bytes.append(UInt8(ascii: "{"))
            for (key, string) in value {
                if bytes.last != UInt8(ascii: "{") { bytes.append(UInt8(ascii: ",")) }
                write(string: key)
                bytes.append(UInt8(ascii: ":"))
                write(string: string)
            }
            bytes.append(UInt8(ascii: "}"))
        }

        /// Writes a string, quoted, with `"`, `\` and control characters escaped.
        package mutating func write(string: String) {
            bytes.append(UInt8(ascii: "\""))
            var string = string
            string.withUTF8 { text in
                var start = 0
                for (index, byte) in text.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[start..<index]))
                    start = index + 1
                    switch byte {
                    case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
                    case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
                    case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
                    case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
                    case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
                    default:
                        let digits = Array("0123456789abcdef".utf8)
                        bytes.append(contentsOf: #"\u00"#.utf8)
                        bytes.append(digits[Int(byte >> 4)])
                        bytes.append(digits[Int(byte & 0x0F)])
                    }
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[start...]))
            }
            bytes.append(UInt8(ascii: "\""))
        }
    }
}
