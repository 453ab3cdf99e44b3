import Foundation

// The CoreServices (MobileCoreServices) UTI functions and `kUTType…` constants, over `UTType` — what code written
// before iOS 14 calls, deprecated on Apple platforms and still common. CoreFoundation's string type is not public on
// Linux, so `CFString` is `String` here: `uti as CFString`, `kUTTypeJPEG as String` and
// `UTTypeCopyPreferredTagWithClass(…)?.takeRetainedValue() as String?` compile as written.

/// CoreFoundation's string, as these functions see it on Linux.
public typealias CFString = String

/// CoreFoundation's index and count type.
public typealias CFIndex = Int

/// What the `Copy`/`Create` functions return: CoreFoundation's retained reference, whose value
/// `takeRetainedValue()` (or `takeUnretainedValue()`) gives, as `Unmanaged<CFString>` does on Apple platforms.
public struct UnmanagedCFString: Sendable {
    private let value: CFString
    init(_ value: CFString) { self.value = value }
    public func takeRetainedValue() -> CFString { value }
    public func takeUnretainedValue() -> CFString { value }
}

/// The tag class of filename extensions.
public let kUTTagClassFilenameExtension: CFString = UTTagClass.filenameExtension.rawValue
/// The tag class of MIME types.
public let kUTTagClassMIMEType: CFString = UTTagClass.mimeType.rawValue

public let kUTTypeItem: CFString = UTType.item.identifier
public let kUTTypeContent: CFString = UTType.content.identifier
public let kUTTypeData: CFString = UTType.data.identifier
public let kUTTypeImage: CFString = UTType.image.identifier
public let kUTTypeJPEG: CFString = UTType.jpeg.identifier
public let kUTTypePNG: CFString = UTType.png.identifier
public let kUTTypeGIF: CFString = UTType.gif.identifier
public let kUTTypeTIFF: CFString = UTType.tiff.identifier
public let kUTTypeBMP: CFString = UTType.bmp.identifier
public let kUTTypeRawImage: CFString = UTType.rawImage.identifier
public let kUTTypeLivePhoto: CFString = UTType.livePhoto.identifier
public let kUTTypeAudiovisualContent: CFString = UTType.audiovisualContent.identifier
public let kUTTypeMovie: CFString = UTType.movie.identifier
public let kUTTypeVideo: CFString = UTType.video.identifier
public let kUTTypeQuickTimeMovie: CFString = UTType.quickTimeMovie.identifier
public let kUTTypeMPEG4: CFString = UTType.mpeg4Movie.identifier
public let kUTTypeMPEG: CFString = UTType.mpeg.identifier
public let kUTTypeAVIMovie: CFString = UTType.avi.identifier
public let kUTTypeAudio: CFString = UTType.audio.identifier
public let kUTTypeMP3: CFString = UTType.mp3.identifier
public let kUTTypeMPEG4Audio: CFString = UTType.mpeg4Audio.identifier
public let kUTTypeText: CFString = UTType.text.identifier
public let kUTTypePlainText: CFString = UTType.plainText.identifier
public let kUTTypeJSON: CFString = UTType.json.identifier
public let kUTTypePDF: CFString = UTType.pdf.identifier
public let kUTTypeURL: CFString = UTType.url.identifier
public let kUTTypeFileURL: CFString = UTType.fileURL.identifier
public let kUTTypeFolder: CFString = UTType.folder.identifier
public let kUTTypeZipArchive: CFString = UTType.zip.identifier

/// The type's preferred tag of a class (`jpeg` for `public.jpeg` and filename extensions), or nil.
public func UTTypeCopyPreferredTagWithClass(_ inUTI: CFString, _ inTagClass: CFString) -> UnmanagedCFString? {
    guard let type = UTType(inUTI), let tag = type.tags[UTTagClass(rawValue: inTagClass)]?.first else { return nil }
    return UnmanagedCFString(tag)
}

/// All the type's tags of a class, or nil.
public func UTTypeCopyAllTagsWithClass(_ inUTI: CFString, _ inTagClass: CFString) -> UnmanagedCFArray? {
    guard let type = UTType(inUTI), let tags = type.tags[UTTagClass(rawValue: inTagClass)] else { return nil }
    return UnmanagedCFArray(tags)
}

/// What `UTTypeCopyAllTagsWithClass` returns (an array of strings).
public struct UnmanagedCFArray: Sendable {
    private let value: [String]
    init(_ value: [String]) { self.value = value }
    public func takeRetainedValue() -> [String] { value }
    public func takeUnretainedValue() -> [String] { value }
}

/// The identifier of the type a tag names, conforming to `inConformingToUTI` when given — a dynamic identifier
/// when no declared type has the tag — or nil for an invalid tag.
public func UTTypeCreatePreferredIdentifierForTag(
    _ inTagClass: CFString, _ inTag: CFString, _ inConformingToUTI: CFString?
) -> UnmanagedCFString? {
    let supertype = inConformingToUTI.flatMap { UTType($0) ?? UTType(importedAs: $0) }
    guard let type = UTType(tag: inTag, tagClass: UTTagClass(rawValue: inTagClass), conformingTo: supertype) else { return nil }
    return UnmanagedCFString(type.identifier)
}

/// Whether `inUTI` is `inConformsToUTI` or conforms to it.
public func UTTypeConformsTo(_ inUTI: CFString, _ inConformsToUTI: CFString) -> Bool {
    let type = UTType(inUTI) ?? UTType(importedAs: inUTI)
    return type.conforms(to: UTType(inConformsToUTI) ?? UTType(importedAs: inConformsToUTI))
}

/// Whether two identifiers name the same type (identifiers compare without regard to case).
public func UTTypeEqual(_ inUTI1: CFString, _ inUTI2: CFString) -> Bool {
    inUTI1.lowercased() == inUTI2.lowercased()
}

/// Whether the identifier is a dynamic one (made for an undeclared tag).
public func UTTypeIsDynamic(_ inUTI: CFString) -> Bool { UTType(inUTI)?.isDynamic ?? inUTI.hasPrefix("dyn.") }

/// Whether the identifier names a declared type.
public func UTTypeIsDeclared(_ inUTI: CFString) -> Bool { UTType(inUTI)?.isDeclared ?? false }

/// A description of the type for people.
public func UTTypeCopyDescription(_ inUTI: CFString) -> UnmanagedCFString? {
    UTType(inUTI)?.localizedDescription.map(UnmanagedCFString.init)
}
