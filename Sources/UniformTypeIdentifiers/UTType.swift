import Foundation

/// A tag class of uniform types: filename extensions or MIME types (UniformTypeIdentifiers' `UTTagClass`, for Linux).
public struct UTTagClass: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// `public.filename-extension`.
    public static let filenameExtension = UTTagClass(rawValue: "public.filename-extension")
    /// `public.mime-type`.
    public static let mimeType = UTTagClass(rawValue: "public.mime-type")

    public var description: String { rawValue }
}

/// A uniform type — the shape of UniformTypeIdentifiers' `UTType`, for Linux: the image, movie, audio, Live Photo
/// and common document types a photo library meets, with Apple's identifiers, tags and conformance hierarchy, and
/// dynamic types for extensions and MIME types nobody declared.
///
/// ```swift
/// let type = UTType(filenameExtension: "HEIC")        // .heic
/// type?.conforms(to: .image)                           // true
/// type?.preferredMIMEType                              // "image/heic"
/// UTType(mimeType: "video/quicktime") == .quickTimeMovie
/// ```
///
/// Equality is by identifier, as on Apple platforms.
public struct UTType: Hashable, Sendable, Codable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The type's identifier (`public.jpeg`, `com.apple.quicktime-movie`, `dyn.…`).
    public let identifier: String
    /// For undeclared types: the identifiers they were said to conform to.
    private let undeclaredParents: [String]

    private init(identifier: String, undeclaredParents: [String] = []) {
        self.identifier = identifier
        self.undeclaredParents = undeclaredParents
    }

    public static func == (a: UTType, b: UTType) -> Bool { a.identifier == b.identifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }

    public init(from decoder: any Decoder) throws {
        let identifier = try decoder.singleValueContainer().decode(String.self)
        self.init(identifier: identifier, undeclaredParents: Self.dynamicSpec(identifier)?.parents ?? [])
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(identifier)
    }

    // MARK: - Creating types

    /// The type with this identifier, or nil when no such type is declared (dynamic identifiers made here are
    /// known).
    public init?(_ identifier: String) {
        if Self.declarations[identifier.lowercased()] != nil {
            self.init(identifier: Self.declarations[identifier.lowercased()]!.identifier)
        } else if let spec = Self.dynamicSpec(identifier) {
            self.init(identifier: identifier, undeclaredParents: spec.parents)
        } else {
            return nil
        }
    }

    /// The type with an identifier the program declares and imports: the declared type when one exists, else a
    /// type that keeps the identifier (neither declared nor dynamic).
    public init(importedAs identifier: String, conformingTo parentType: UTType? = nil) {
        if let declared = UTType(identifier) {
            self = declared
        } else {
            self.init(identifier: identifier, undeclaredParents: parentType.map { [$0.identifier] } ?? [])
        }
    }

    /// The type with an identifier the program declares and exports (see ``init(importedAs:conformingTo:)``).
    public init(exportedAs identifier: String, conformingTo parentType: UTType? = nil) {
        self.init(importedAs: identifier, conformingTo: parentType)
    }

    /// The type of a filename extension that conforms to `supertype`: the declared one when there is one, else a
    /// dynamic type (``isDynamic``, not declared, not public). Nil for an empty extension or one with a `/`.
    public init?(filenameExtension: String, conformingTo supertype: UTType = .data) {
        self.init(tag: filenameExtension, tagClass: .filenameExtension, conformingTo: supertype)
    }

    /// The type of a MIME type that conforms to `supertype`: the declared one when there is one, else a dynamic type.
    public init?(mimeType: String, conformingTo supertype: UTType = .data) {
        self.init(tag: mimeType, tagClass: .mimeType, conformingTo: supertype)
    }

    /// The type of a tag that conforms to `supertype` (nil: any), declared or dynamic.
    public init?(tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) {
        guard !tag.isEmpty, !tag.contains(where: { $0 == "\0" || $0 == "/" && tagClass == .filenameExtension }) else { return nil }
        if let declared = Self.types(tag: tag, tagClass: tagClass, conformingTo: supertype).first {
            self = declared
            return
        }
        let parents = [supertype?.identifier ?? "public.data"]
        let spec = "\(tagClass.rawValue)=\(tag.lowercased());conforms=\(parents.joined(separator: ","))"
        self.init(identifier: "dyn." + spec.utf8.map { String(format: "%02x", $0) }.joined(), undeclaredParents: parents)
    }

    /// The declared types with a tag, conforming to `supertype` (nil: any), the preferred ones first.
    public static func types(tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) -> [UTType] {
        let wanted = tag.lowercased()
        return declarationOrder.compactMap { declaration -> UTType? in
            let tags = tagClass == .filenameExtension ? declaration.extensions : declaration.mimeTypes
            guard tags.contains(wanted) else { return nil }
            let type = UTType(identifier: declaration.identifier)
            guard supertype.map({ type.conforms(to: $0) }) ?? true else { return nil }
            return type
        }
    }

    // MARK: - What a type says

    /// The preferred filename extension (`jpeg` for `public.jpeg`), nil when the type has none.
    public var preferredFilenameExtension: String? { tags[.filenameExtension]?.first }
    /// The preferred MIME type (`image/jpeg`), nil when the type has none.
    public var preferredMIMEType: String? { tags[.mimeType]?.first }

    /// The type's tags by class.
    public var tags: [UTTagClass: [String]] {
        if let declaration = declaration {
            var tags: [UTTagClass: [String]] = [:]
            if !declaration.extensions.isEmpty { tags[.filenameExtension] = declaration.extensions }
            if !declaration.mimeTypes.isEmpty { tags[.mimeType] = declaration.mimeTypes }
            return tags
        }
        if let spec = Self.dynamicSpec(identifier) { return [spec.tagClass: [spec.tag]] }
        return [:]
    }

    /// A description for people ("JPEG image").
    public var localizedDescription: String? { declaration?.description }

    /// Every type this one conforms to, directly or not (itself excluded).
    public var supertypes: Set<UTType> {
        var found = Set<String>()
        var pending = directParents
        while let next = pending.popLast() {
            guard found.insert(next).inserted else { continue }
            pending += Self.declarations[next]?.parents ?? []
        }
        return Set(found.map { UTType(identifier: $0) })
    }

    /// Whether the type is `type` or conforms to it.
    public func conforms(to type: UTType) -> Bool { self == type || supertypes.contains(type) }
    /// Whether the type conforms to `type` and is not it.
    public func isSubtype(of type: UTType) -> Bool { self != type && conforms(to: type) }
    /// Whether `type` conforms to this one and is not it.
    public func isSupertype(of type: UTType) -> Bool { type.isSubtype(of: self) }

    /// Whether the type is declared (known here, not dynamic, not an undeclared imported identifier).
    public var isDeclared: Bool { declaration != nil }
    /// Whether the type was made for a tag nobody declared (`dyn.…`).
    public var isDynamic: Bool { identifier.hasPrefix("dyn.") }
    /// Whether the type is declared by the system in the `public` domain.
    public var isPublic: Bool { identifier.hasPrefix("public.") && isDeclared }
    /// The declaration's reference URL (none here).
    public var referenceURL: URL? { nil }
    /// The declaration's version (none here).
    public var version: Int? { nil }

    public var description: String { identifier }
    public var debugDescription: String { "<UTType \(identifier)>" }

    private var declaration: Declaration? { Self.declarations[identifier] }

    private var directParents: [String] { declaration?.parents ?? undeclaredParents }

    // MARK: - Declarations

    private struct Declaration: Sendable {
        var identifier: String
        var parents: [String]
        var extensions: [String]
        var mimeTypes: [String]
        var description: String
    }

    private static func dynamicSpec(_ identifier: String) -> (tagClass: UTTagClass, tag: String, parents: [String])? {
        guard identifier.hasPrefix("dyn."), identifier.count > 4, identifier.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var hex = identifier.dropFirst(4)
        while !hex.isEmpty {
            guard let byte = UInt8(hex.prefix(2), radix: 16) else { return nil }
            bytes.append(byte)
            hex = hex.dropFirst(2)
        }
        let fields = String(decoding: bytes, as: UTF8.self).split(separator: ";")
        guard fields.count == 2, let equals = fields[0].firstIndex(of: "="), fields[1].hasPrefix("conforms=") else { return nil }
        let tagClass = UTTagClass(rawValue: String(fields[0][..<equals]))
        let tag = String(fields[0][fields[0].index(after: equals)...])
        let parents = fields[1].dropFirst("conforms=".count).split(separator: ",").map(String.init)
        return (tagClass, tag, parents)
    }

    /// Declared types, most specific first where tags overlap (so a tag's preferred type comes first).
    private static let declarationOrder: [Declaration] = [
        .init(
            identifier: "public.jpeg", parents: ["public.image"], extensions: ["jpeg", "jpg", "jpe"], mimeTypes: ["image/jpeg", "image/jpg"],
            description: "JPEG image"),
        .init(identifier: "public.png", parents: ["public.image"], extensions: ["png"], mimeTypes: ["image/png"], description: "PNG image"),
        .init(
            identifier: "public.heic", parents: ["public.heif-standard"], extensions: ["heic"], mimeTypes: ["image/heic"], description: "HEIC image"),
        .init(
            identifier: "public.heif", parents: ["public.heif-standard"], extensions: ["heif"], mimeTypes: ["image/heif"], description: "HEIF image"),
        .init(identifier: "public.heif-standard", parents: ["public.image"], extensions: [], mimeTypes: [], description: "HEIF standard image"),
        .init(identifier: "public.avif", parents: ["public.image"], extensions: ["avif"], mimeTypes: ["image/avif"], description: "AVIF image"),
        .init(
            identifier: "org.webmproject.webp", parents: ["public.image"], extensions: ["webp"], mimeTypes: ["image/webp"], description: "WebP image"),
        .init(identifier: "com.compuserve.gif", parents: ["public.image"], extensions: ["gif"], mimeTypes: ["image/gif"], description: "GIF image"),
        .init(
            identifier: "public.tiff", parents: ["public.image"], extensions: ["tiff", "tif"], mimeTypes: ["image/tiff"], description: "TIFF image"),
        .init(
            identifier: "com.microsoft.bmp", parents: ["public.image"], extensions: ["bmp"], mimeTypes: ["image/bmp"],
            description: "Windows bitmap image"),
        .init(
            identifier: "com.microsoft.ico", parents: ["public.image"], extensions: ["ico"], mimeTypes: ["image/vnd.microsoft.icon"],
            description: "Windows icon image"),
        .init(identifier: "public.svg-image", parents: ["public.image"], extensions: ["svg"], mimeTypes: ["image/svg+xml"], description: "SVG image"),
        .init(
            identifier: "com.adobe.raw-image", parents: ["public.camera-raw-image"], extensions: ["dng"], mimeTypes: ["image/x-adobe-dng"],
            description: "DNG image"),
        .init(identifier: "public.camera-raw-image", parents: ["public.image"], extensions: [], mimeTypes: [], description: "Camera raw image"),
        .init(identifier: "public.image", parents: ["public.data", "public.content"], extensions: [], mimeTypes: [], description: "image"),
        .init(identifier: "com.apple.live-photo", parents: ["public.content"], extensions: [], mimeTypes: [], description: "Live Photo"),
        .init(
            identifier: "com.apple.quicktime-movie", parents: ["public.movie"], extensions: ["mov", "qt"], mimeTypes: ["video/quicktime"],
            description: "QuickTime movie"),
        .init(
            identifier: "public.mpeg-4", parents: ["public.movie"], extensions: ["mp4", "mpeg4"], mimeTypes: ["video/mp4", "video/mp4v"],
            description: "MPEG-4 movie"),
        .init(
            identifier: "com.apple.m4v-video", parents: ["public.mpeg-4"], extensions: ["m4v"], mimeTypes: ["video/x-m4v"],
            description: "MPEG-4 video"),
        .init(
            identifier: "com.apple.protected-mpeg-4-video", parents: ["com.apple.m4v-video"], extensions: ["m4v"], mimeTypes: [],
            description: "Apple MPEG-4 video (protected)"),
        .init(
            identifier: "public.3gpp", parents: ["public.movie"], extensions: ["3gp", "3gpp"], mimeTypes: ["video/3gpp"], description: "3GPP movie"),
        .init(
            identifier: "public.mpeg-2-video", parents: ["public.video"], extensions: ["m2v"], mimeTypes: ["video/mpeg2"], description: "MPEG-2 video"
        ),
        .init(
            identifier: "public.mpeg", parents: ["public.movie"], extensions: ["mpg", "mpeg"], mimeTypes: ["video/mpeg"], description: "MPEG movie"),
        .init(
            identifier: "public.avi", parents: ["public.movie"], extensions: ["avi"], mimeTypes: ["video/avi", "video/x-msvideo"],
            description: "AVI movie"),
        .init(identifier: "public.video", parents: ["public.movie"], extensions: [], mimeTypes: [], description: "video"),
        .init(identifier: "public.movie", parents: ["public.audiovisual-content"], extensions: [], mimeTypes: [], description: "movie"),
        .init(
            identifier: "public.mpeg-4-audio", parents: ["public.mpeg-4", "public.audio"], extensions: ["m4a"],
            mimeTypes: ["audio/mp4", "audio/m4a"], description: "MPEG-4 audio"),
        .init(
            identifier: "public.mp3", parents: ["public.audio"], extensions: ["mp3"], mimeTypes: ["audio/mpeg", "audio/mp3"], description: "MP3 audio"
        ),
        .init(identifier: "public.aac-audio", parents: ["public.audio"], extensions: ["aac"], mimeTypes: ["audio/aac"], description: "AAC audio"),
        .init(
            identifier: "com.microsoft.waveform-audio", parents: ["public.audio"], extensions: ["wav", "wave"],
            mimeTypes: ["audio/wav", "audio/x-wav"], description: "Waveform audio"),
        .init(
            identifier: "public.aiff-audio", parents: ["public.audio"], extensions: ["aiff", "aif"], mimeTypes: ["audio/aiff", "audio/x-aiff"],
            description: "AIFF-C audio"),
        .init(identifier: "public.audio", parents: ["public.audiovisual-content"], extensions: [], mimeTypes: [], description: "audio"),
        .init(
            identifier: "public.audiovisual-content", parents: ["public.data", "public.content"], extensions: [], mimeTypes: [],
            description: "audiovisual content"),
        .init(
            identifier: "com.adobe.pdf", parents: ["public.data", "public.composite-content"], extensions: ["pdf"], mimeTypes: ["application/pdf"],
            description: "PDF document"),
        .init(identifier: "public.json", parents: ["public.text"], extensions: ["json"], mimeTypes: ["application/json"], description: "JSON"),
        .init(
            identifier: "public.utf8-plain-text", parents: ["public.plain-text"], extensions: [], mimeTypes: [], description: "Unicode text (UTF-8)"),
        .init(
            identifier: "public.plain-text", parents: ["public.text"], extensions: ["txt", "text"], mimeTypes: ["text/plain"],
            description: "plain text"),
        .init(identifier: "public.text", parents: ["public.data", "public.content"], extensions: [], mimeTypes: [], description: "text"),
        .init(
            identifier: "public.zip-archive", parents: ["public.archive"], extensions: ["zip"], mimeTypes: ["application/zip"],
            description: "ZIP archive"),
        .init(identifier: "public.archive", parents: ["public.data"], extensions: [], mimeTypes: [], description: "archive"),
        .init(identifier: "public.file-url", parents: ["public.url"], extensions: [], mimeTypes: [], description: "file URL"),
        .init(identifier: "public.url", parents: ["public.data"], extensions: [], mimeTypes: [], description: "URL"),
        .init(identifier: "public.composite-content", parents: ["public.content"], extensions: [], mimeTypes: [], description: "composite content"),
        .init(identifier: "public.folder", parents: ["public.directory"], extensions: [], mimeTypes: [], description: "folder"),
        .init(identifier: "com.apple.package", parents: ["public.directory"], extensions: [], mimeTypes: [], description: "package"),
        .init(identifier: "public.directory", parents: ["public.item"], extensions: [], mimeTypes: [], description: "directory"),
        .init(identifier: "public.data", parents: ["public.item"], extensions: [], mimeTypes: [], description: "data"),
        .init(identifier: "public.content", parents: [], extensions: [], mimeTypes: [], description: "content"),
        .init(identifier: "public.item", parents: [], extensions: [], mimeTypes: [], description: "item"),
    ]

    private static let declarations: [String: Declaration] = Dictionary(
        uniqueKeysWithValues: declarationOrder.map { ($0.identifier, $0) })
}

extension UTType {
    public static let item = UTType(identifier: "public.item")
    public static let content = UTType(identifier: "public.content")
    public static let compositeContent = UTType(identifier: "public.composite-content")
    public static let data = UTType(identifier: "public.data")
    public static let directory = UTType(identifier: "public.directory")
    public static let folder = UTType(identifier: "public.folder")
    public static let package = UTType(identifier: "com.apple.package")
    public static let url = UTType(identifier: "public.url")
    public static let fileURL = UTType(identifier: "public.file-url")
    public static let text = UTType(identifier: "public.text")
    public static let plainText = UTType(identifier: "public.plain-text")
    public static let utf8PlainText = UTType(identifier: "public.utf8-plain-text")
    public static let json = UTType(identifier: "public.json")
    public static let pdf = UTType(identifier: "com.adobe.pdf")
    public static let archive = UTType(identifier: "public.archive")
    public static let zip = UTType(identifier: "public.zip-archive")
    public static let image = UTType(identifier: "public.image")
    public static let jpeg = UTType(identifier: "public.jpeg")
    public static let png = UTType(identifier: "public.png")
    public static let gif = UTType(identifier: "com.compuserve.gif")
    public static let tiff = UTType(identifier: "public.tiff")
    public static let bmp = UTType(identifier: "com.microsoft.bmp")
    public static let ico = UTType(identifier: "com.microsoft.ico")
    public static let svg = UTType(identifier: "public.svg-image")
    public static let webP = UTType(identifier: "org.webmproject.webp")
    public static let heif = UTType(identifier: "public.heif")
    public static let heic = UTType(identifier: "public.heic")
    public static let avif = UTType(identifier: "public.avif")
    public static let rawImage = UTType(identifier: "public.camera-raw-image")
    public static let livePhoto = UTType(identifier: "com.apple.live-photo")
    public static let audiovisualContent = UTType(identifier: "public.audiovisual-content")
    public static let movie = UTType(identifier: "public.movie")
    public static let video = UTType(identifier: "public.video")
    public static let quickTimeMovie = UTType(identifier: "com.apple.quicktime-movie")
    public static let mpeg4Movie = UTType(identifier: "public.mpeg-4")
    public static let appleProtectedMPEG4Video = UTType(identifier: "com.apple.protected-mpeg-4-video")
    public static let mpeg = UTType(identifier: "public.mpeg")
    public static let mpeg2Video = UTType(identifier: "public.mpeg-2-video")
    public static let avi = UTType(identifier: "public.avi")
    public static let audio = UTType(identifier: "public.audio")
    public static let mp3 = UTType(identifier: "public.mp3")
    public static let mpeg4Audio = UTType(identifier: "public.mpeg-4-audio")
    public static let wav = UTType(identifier: "com.microsoft.waveform-audio")
    public static let aiff = UTType(identifier: "public.aiff-audio")
}

extension URL {
    /// The URL with the path extension `contentType` prefers — unchanged when its extension already names a type that
    /// conforms to `contentType` (`photo.JPG` stays, `photo` becomes `photo.jpeg`), as Apple's UniformTypeIdentifiers
    /// adds it.
    public func appendingPathExtension(for contentType: UTType) -> URL {
        let current = pathExtension
        if !current.isEmpty, let type = UTType(filenameExtension: current), type.conforms(to: contentType) { return self }
        guard let ext = contentType.preferredFilenameExtension else { return self }
        return appendingPathExtension(ext)
    }

    /// Appends the path extension `contentType` prefers (see ``appendingPathExtension(for:)``).
    public mutating func appendPathExtension(for contentType: UTType) {
        self = appendingPathExtension(for: contentType)
    }
}
