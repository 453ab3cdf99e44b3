import Foundation
import HTTPTypes
import Hummingbird
import OpenPhotos

/// The request context of the server's routes: Hummingbird's core context and the client the request's token
/// acts for (nil before authentication and on the public routes).
public struct PhotosRequestContext: RequestContext {
    /// Hummingbird's per-request storage (logger with the request id, route parameters).
    public var coreContext: CoreRequestContextStorage
    /// The authenticated client, set by the authentication middleware.
    var session: ClientSession?
    /// The address of the peer of the connection (a reverse proxy's, when one is in front).
    let peerAddress: String?

    /// The context of a request arriving on a connection of the application.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peerAddress = source.channel.remoteAddress?.ipAddress
    }

    /// Responses: ISO 8601 dates, keys in a stable order, slashes unescaped (local identifiers contain them).
    public var responseEncoder: JSONEncoder { Self.makeResponseEncoder() }

    static func makeResponseEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(FastISO8601.string(date))
        }
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// JSON bodies are small (change requests, properties); uploads are streamed and do not decode.
    public var maxUploadSize: Int { 1 << 20 }

    /// The client of an authenticated route.
    func client() throws -> ClientSession {
        guard let session else { throw APIError.unauthorized("a bearer token is required") }
        return session
    }
}

/// A client acting through its own library handle, as a local process with `PHOTOS_CLIENT_ID` does.
struct ClientSession: Sendable {
    let identifier: String
    let library: PHPhotoLibrary

    /// Options that fetch through this client's handle (its access level and limited selection apply).
    func fetchOptions() -> PHFetchOptions {
        let options = PHFetchOptions()
        options.photoLibrary = library
        return options
    }

    /// Reads need read-write or limited access.
    func requireRead() throws {
        let status = library.authorizationStatus(for: .readWrite)
        guard status == .authorized || status == .limited else {
            // An add-only client's read-write status is `denied`: said as what it is, add-only access.
            let addOnly = library.authorizationStatus(for: .addOnly) == .authorized
            throw APIError.denied(addOnly ? .authorized : status, "reading the library")
        }
    }

    /// Adding needs add-only access or more.
    func requireAdd() throws {
        let status = library.authorizationStatus(for: .addOnly)
        guard status == .authorized else { throw APIError.denied(status, "adding to the library") }
    }

    /// The asset with this URL id (see ``ObjectID``), as this client may see it.
    func asset(_ id: String, includeTrashed: Bool = false) throws -> PHAsset {
        try requireRead()
        let identifier = try ObjectID.assetIdentifier(id)
        let options = fetchOptions()
        options.includeHiddenAssets = true
        if let asset = PHAsset.fetchAssets(withLocalIdentifiers: [identifier], options: options).firstObject { return asset }
        if includeTrashed, let asset = trashedAsset(identifier) { return asset }
        throw APIError.notFound("no asset \(identifier)")
    }

    /// An asset in Recently Deleted.
    func trashedAsset(_ identifier: String) -> PHAsset? {
        let options = fetchOptions()
        options.includeHiddenAssets = true
        return RecentlyDeleted.asset(identifier, options: options, albumOptions: fetchOptions())
    }
}

/// ISO 8601 in UTC (`2024-05-01T10:00:00Z`, with milliseconds when there are any), formatted with `gmtime_r`: a page
/// of 500 assets has 1,500 dates, and a formatter per date (what `.iso8601` costs on Linux) dominated its time.
enum FastISO8601 {
    /// `YYYY-MM-DDTHH:MM:SS` and `Z` or `±HH:MM`, read directly — the form every client sends, where a formatter
    /// took a backup request's share of the server's time; nil for anything else (the formatter then decides).
    static func date(_ text: String) -> Date? {
        let utf8 = text.utf8
        guard utf8.count == 20 || utf8.count == 25 else { return nil }
        return utf8.withContiguousStorageIfAvailable { bytes -> Date? in
            func number(_ start: Int, _ count: Int) -> Int? {
                var value = 0
                for index in start..<start + count {
                    let digit = Int(bytes[index]) - 48
                    guard (0...9).contains(digit) else { return nil }
                    value = value * 10 + digit
                }
                return value
            }
            func byte(_ index: Int, _ character: Character) -> Bool { bytes[index] == character.asciiValue! }
            guard byte(4, "-"), byte(7, "-"), byte(10, "T") || byte(10, "t"), byte(13, ":"), byte(16, ":"),
                let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
                let minute = number(14, 2), let second = number(17, 2), year >= 1, (1...12).contains(month), hour < 24, minute < 60, second < 60
            else { return nil }
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
            guard (1...lengths[month - 1]).contains(day) else { return nil }
            var offset = 0
            if bytes.count == 20 {
                guard byte(19, "Z") || byte(19, "z") else { return nil }
            } else {
                guard byte(19, "+") || byte(19, "-"), byte(22, ":"), let hours = number(20, 2), let minutes = number(23, 2), hours < 24,
                    minutes < 60
                else { return nil }
                offset = (hours * 3600 + minutes * 60) * (byte(19, "-") ? -1 : 1)
            }
            // Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
            let y = month <= 2 ? year - 1 : year
            let era = (y >= 0 ? y : y - 399) / 400
            let yearOfEra = y - era * 400
            let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
            let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
            let days = era * 146_097 + dayOfEra - 719_468
            return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3600 + minute * 60 + second - offset))
        } ?? nil
    }

    static func string(_ date: Date) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        write(date, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The same text appended to `bytes` (what ``JSONWriter`` writes dates with).
    static func write(_ date: Date, into bytes: inout [UInt8]) {
        let interval = date.timeIntervalSince1970
        var seconds = time_t(interval.rounded(.down))
        let milliseconds = Int(((interval - Double(seconds)) * 1000).rounded())
        if milliseconds == 1000 { seconds += 1 }
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func digits(_ value: Int32, _ width: Int) {
            let text = String(value)
            if text.utf8.count < width { bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - text.utf8.count)) }
            bytes.append(contentsOf: text.utf8)
        }
        digits(parts.tm_year + 1900, 4)
        bytes.append(UInt8(ascii: "-"))
        digits(parts.tm_mon + 1, 2)
        bytes.append(UInt8(ascii: "-"))
        digits(parts.tm_mday, 2)
        bytes.append(UInt8(ascii: "T"))
        digits(parts.tm_hour, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(parts.tm_min, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(parts.tm_sec, 2)
        if milliseconds > 0, milliseconds < 1000 {
            bytes.append(UInt8(ascii: "."))
            digits(Int32(milliseconds), 3)
        }
        bytes.append(UInt8(ascii: "Z"))
    }
}
