import Dispatch
import Foundation
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

enum ISO8601 {
    static func parse(_ text: String) -> Date? {
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = fractional.date(from: text) { return date }
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        return plain.date(from: text)
    }
}
