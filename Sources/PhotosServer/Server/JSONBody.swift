import Dispatch
import Foundation
import Synchronization
import HTTPTypes
import Hummingbird
import NIOCore

/// A JSON object body, read whole (bounded by the context's upload limit) with its fields checked by name.
struct JSONBody {
    var fields: [String: Any]

    init(_ request: Request, context: PhotosRequestContext, allowed: Set<String>) async throws {
        let buffer = try await Self.collect(request, context: context)
        guard let object = try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)), let fields = object as? [String: Any] else {
            throw APIError.badRequest("the body must be a JSON object")
        }
        try self.init(fields, allowed: allowed, path: "body")
    }

    init(_ fields: [String: Any], allowed: Set<String>, path: String) throws {
        if let unknown = fields.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw APIError.badRequest("unknown field '\(unknown)' in \(path); allowed: \(allowed.sorted().joined(separator: ", "))")
        }
        self.fields = fields
    }

    /// A JSON body's bytes, at most the context's limit: more is a 413 that says the limit (not an empty answer).
    static func collect(_ request: Request, context: PhotosRequestContext) async throws -> ByteBuffer {
        var request = request
        do {
            return try await request.collectBody(upTo: context.maxUploadSize)
        } catch {
            guard error is NIOTooManyBytesError || (error as? HTTPError)?.status == .contentTooLarge else { throw error }
            throw APIError.tooLarge("a JSON body is at most \(context.maxUploadSize) bytes (files go to POST /v1/uploads)")
        }
    }

    func has(_ name: String) -> Bool { fields[name] != nil }

    func string(_ name: String) throws -> String? {
        guard let value = fields[name], !(value is NSNull) else { return nil }
        guard let text = value as? String, text.utf8.count <= 4096 else {
            throw APIError.badRequest("'\(name)' must be a string (at most 4096 bytes)")
        }
        return text
    }

    func bool(_ name: String) throws -> Bool? {
        guard let value = fields[name] else { return nil }
        guard let number = value as? NSNumber, isJSONBoolean(number) else { throw APIError.badRequest("'\(name)' must be true or false") }
        return number.boolValue
    }

    func strings(_ name: String, limit: Int = 10_000) throws -> [String]? {
        guard let value = fields[name] else { return nil }
        guard let list = value as? [String], list.count <= limit else {
            throw APIError.badRequest("'\(name)' must be a list of at most \(limit) strings")
        }
        return list
    }

    func date(_ name: String) throws -> Date?? {
        guard let value = fields[name] else { return nil }
        if value is NSNull { return .some(nil) }
        guard let text = value as? String, let date = ISO8601.parse(text) else {
            throw APIError.badRequest("'\(name)' must be an ISO 8601 date-time such as 2024-05-01T12:30:00Z, or null")
        }
        return .some(date)
    }
}

/// Booleans arrive from JSONSerialization as NSNumber of type "c"; a number 0 or 1 must not pass as one.
func isJSONBoolean(_ number: NSNumber) -> Bool { String(cString: number.objCType) == "c" }

/// ISO 8601 dates and times, parsed by formatters made once (making one costs more than a backed-up photo's whole
/// request's parsing did: 5 % of the server's processor time in a backup), each used by one thread at a time.
enum ISO8601 {
    private static let fractional = Mutex(
        {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return formatter
        }())
    private static let plain = Mutex(ISO8601DateFormatter())

    /// `text` as an internet date and time, with or without fractional seconds.
    static func parse(_ text: String) -> Date? {
        if let date = fractional.withLock({ $0.date(from: text) }) { return date }
        return plain.withLock { $0.date(from: text) }
    }

    /// `text` as an internet date and time without fractional seconds.
    static func parseWhole(_ text: String) -> Date? { FastISO8601.date(text) ?? plain.withLock { $0.date(from: text) } }

    /// `date` as an internet date and time in UTC, to the second.
    static func string(from date: Date) -> String { plain.withLock { $0.string(from: date) } }
}
