import Foundation
import PhotoLibraryEngine

#if canImport(Glibc)
    import Glibc
#endif

/// The messages between a host and a photo editing extension process: length-prefixed JSON over the extension's
/// standard input (calls) and standard output (replies). Each frame is a 4-byte big-endian length and that many
/// bytes of one JSON object; frames over ``maximumFrameSize`` are a protocol violation.
///
/// A session: `hello` → (`canHandle`, when the asset has adjustment data) → `start` → `finish`, or `cancel` at any
/// time after `start` — even while finishing. The host closes the extension's standard input after the last reply.
package enum EditingExtensionWire {
    package static let protocolVersion = 1
    package static let maximumFrameSize = 4 << 20

    /// Adjustment data on the wire (the bytes in base64).
    package struct Adjustment: Codable, Sendable, Equatable {
        package var formatIdentifier: String
        package var formatVersion: String
        package var data: Data

        package init(formatIdentifier: String, formatVersion: String, data: Data) {
            self.formatIdentifier = formatIdentifier
            self.formatVersion = formatVersion
            self.data = data
        }
    }

    /// What the extension's `PHContentEditingInput` is made of: the asset's properties and files in the session
    /// folder (copies: never the library's own).
    package struct Input: Codable, Sendable {
        package var mediaType: Int
        package var mediaSubtypes: UInt
        package var creationDate: Date?
        package var latitude: Double?
        package var longitude: Double?
        package var altitude: Double?
        package var uniformTypeIdentifier: String?
        package var playbackStyle: Int
        package var adjustmentData: Adjustment?
        package var fullSizeImage: String?
        package var fullSizeImageOrientation: Int32
        package var video: String?
        package var pairedVideo: String?
        package var displaySizeImage: String?

        package init(
            mediaType: Int, mediaSubtypes: UInt, creationDate: Date?, latitude: Double?, longitude: Double?, altitude: Double?,
            uniformTypeIdentifier: String?, playbackStyle: Int, adjustmentData: Adjustment?, fullSizeImage: String?,
            fullSizeImageOrientation: Int32, video: String?, pairedVideo: String?, displaySizeImage: String?
        ) {
            self.mediaType = mediaType
            self.mediaSubtypes = mediaSubtypes
            self.creationDate = creationDate
            self.latitude = latitude
            self.longitude = longitude
            self.altitude = altitude
            self.uniformTypeIdentifier = uniformTypeIdentifier
            self.playbackStyle = playbackStyle
            self.adjustmentData = adjustmentData
            self.fullSizeImage = fullSizeImage
            self.fullSizeImageOrientation = fullSizeImageOrientation
            self.video = video
            self.pairedVideo = pairedVideo
            self.displaySizeImage = displaySizeImage
        }
    }

    /// A call from the host.
    package struct Call: Codable, Sendable {
        package enum Kind: String, Codable, Sendable { case hello, canHandle, start, finish, cancel }
        package var call: Kind
        package var protocolVersion: Int?
        package var adjustmentData: Adjustment?
        package var input: Input?
        /// The folder the extension writes its output into (its working directory).
        package var outputFolder: String?
        package var settings: [String: SettingValue]?

        package init(_ call: Kind) { self.call = call }
    }

    /// A reply of the extension.
    package struct Reply: Codable, Sendable {
        package enum Kind: String, Codable, Sendable { case hello, canHandle, started, finished, cancelled }
        package var reply: Kind
        package var protocolVersion: Int?
        package var value: Bool?
        package var shouldShowCancelConfirmation: Bool?
        /// For `finished`: the rendered file's name in the output folder and the adjustment data; nil when the
        /// controller gave no output.
        package var renderedContent: String?
        /// For `finished` of a Live Photo edit: the edited video's name in the output folder.
        package var renderedPairedVideo: String?
        package var adjustmentData: Adjustment?
        package var hasOutput: Bool?

        package init(_ reply: Kind) { self.reply = reply }
    }

    /// A setting's value as the host passes it in.
    package enum SettingValue: Codable, Sendable, Equatable {
        case number(Double)
        case boolean(Bool)
        case text(String)

        package init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Bool.self) {
                self = .boolean(value)
            } else if let value = try? container.decode(Double.self) {
                self = .number(value)
            } else {
                self = .text(try container.decode(String.self))
            }
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .number(let value): try container.encode(value)
            case .boolean(let value): try container.encode(value)
            case .text(let value): try container.encode(value)
            }
        }
    }

    /// Why a frame could not be read.
    package enum FrameError: Error, Sendable, Equatable {
        case endOfStream
        case tooLarge(Int)
        case malformed(String)
        case io(Int32)
    }

    /// Writes one frame to a file descriptor (all of it, retrying short writes).
    package static func write(_ value: some Encodable, to fd: Int32) throws(FrameError) {
        let body: Data
        do { body = try JSONEncoder().encode(value) } catch { throw .malformed("\(error)") }
        var length = UInt32(body.count).bigEndian
        var frame = Data(bytes: &length, count: 4)
        frame.append(body)
        let failure = frame.withUnsafeBytes { POSIXFiles.writeAll(fd, $0) }
        if let failure { throw .io(failure) }
    }

    /// Reads one frame's bytes from a file descriptor (blocking).
    package static func readFrame(from fd: Int32) throws(FrameError) -> Data {
        let header = try readExactly(4, from: fd)
        let length = header.withUnsafeBytes { Int(UInt32(bigEndian: $0.loadUnaligned(as: UInt32.self))) }
        guard length <= maximumFrameSize else { throw .tooLarge(length) }
        return try readExactly(length, from: fd)
    }

    /// Reads and decodes one frame.
    package static func read<T: Decodable>(_ type: T.Type, from fd: Int32) throws(FrameError) -> T {
        let body = try readFrame(from: fd)
        do { return try JSONDecoder().decode(T.self, from: body) } catch {
            throw .malformed(String(decoding: body.prefix(120), as: UTF8.self))
        }
    }

    private static func readExactly(_ count: Int, from fd: Int32) throws(FrameError) -> Data {
        var data = Data(count: count)
        var offset = 0
        while offset < count {
            let n = data.withUnsafeMutableBytes { raw in Glibc.read(fd, raw.baseAddress! + offset, count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(errno)
            }
            if n == 0 { throw offset == 0 && count == 4 ? .endOfStream : .malformed("the stream ended inside a frame") }
            offset += n
        }
        return data
    }
}
