import Foundation

/// JSON written straight into bytes, for the responses that carry hundreds of objects (a timeline page of 500
/// assets): the same bytes as the response encoder (`JSONEncoder` with sorted keys, unescaped slashes, dates in
/// ``FastISO8601``), made several times faster, because nothing goes through `Encoder` containers. The callers write
/// keys in sorted order themselves; a test compares their output with `JSONEncoder`'s byte for byte.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    private var needsComma: [Bool] = []

    init(capacity: Int = 4096) { bytes.reserveCapacity(capacity) }

    mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma.append(false)
    }

    mutating func endObject() {
        needsComma.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma.append(false)
    }

    mutating func endArray() {
        needsComma.removeLast()
        bytes.append(UInt8(ascii: "]"))
    }

    /// A key of the object being written; its value follows.
    mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        // The value after a key is not an element: no comma before it.
        needsComma[needsComma.count - 1] = false
    }

    mutating func string(_ value: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func integer<T: BinaryInteger>(_ value: T) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
    }

    /// As `JSONEncoder` writes a `Double`: the shortest form that reads back the same, without a trailing `.0`
    /// (`3`, `0.5`, `1e-05`); `null` for a value JSON cannot carry.
    mutating func double(_ value: Double) {
        separate()
        guard value.isFinite else { return bytes.append(contentsOf: "null".utf8) }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: value ? Array("true".utf8) : Array("false".utf8))
    }

    mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
    }

    mutating func date(_ value: Date) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        FastISO8601.write(value, into: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// `key: value` when the value is there (the encoder's `encodeIfPresent`, what synthesized `Codable` does).
    mutating func field(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    mutating func field(_ name: StaticString, _ value: Date?) {
        guard let value else { return }
        key(name)
        date(value)
    }

    private mutating func separate() {
        guard let last = needsComma.last else { return }
        if last { bytes.append(UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
    }
}
