import Foundation

/// A file format recognised from a file's first bytes — content decides the type, never the extension.
package enum MediaFormat: String, Sendable, CaseIterable {
    case jpeg, png, gif, webp, tiff, heic, heif, avif, quickTimeMovie, mpeg4Movie
    /// A camera RAW file (DNG, CR2, NEF, ARW, RAF …), read by LibRaw (``RawDeveloper``).
    case cameraRAW

    /// Whether the format holds a still image (as opposed to a movie).
    package var isImage: Bool {
        switch self {
        case .quickTimeMovie, .mpeg4Movie: false
        default: true
        }
    }

    /// The uniform type identifier Apple's Photos reports for files of this format.
    package var uniformTypeIdentifier: String {
        switch self {
        case .jpeg: "public.jpeg"
        case .png: "public.png"
        case .gif: "com.compuserve.gif"
        case .webp: "org.webmproject.webp"
        case .tiff: "public.tiff"
        case .cameraRAW: "public.camera-raw-image"
        case .heic: "public.heic"
        case .heif: "public.heif"
        case .avif: "public.avif"
        case .quickTimeMovie: "com.apple.quicktime-movie"
        case .mpeg4Movie: "public.mpeg-4"
        }
    }

    /// The file name extension the library uses when it stores an original of this format.
    package var preferredFilenameExtension: String {
        switch self {
        case .jpeg: "jpeg"
        case .png: "png"
        case .gif: "gif"
        case .webp: "webp"
        case .tiff: "tiff"
        case .cameraRAW: "raw"
        case .heic: "heic"
        case .heif: "heif"
        case .avif: "avif"
        case .quickTimeMovie: "mov"
        case .mpeg4Movie: "mp4"
        }
    }

    /// Recognises a format from the first bytes of a file (at least 12 are needed for ISO-BMFF brands).
    package static func sniff(_ header: some Collection<UInt8>) -> MediaFormat? {
        let b = Array(header.prefix(32))
        func at(_ offset: Int, _ bytes: [UInt8]) -> Bool {
            b.count >= offset + bytes.count && Array(b[offset..<offset + bytes.count]) == bytes
        }
        if at(0, [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if at(0, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if at(0, Array("GIF87a".utf8)) || at(0, Array("GIF89a".utf8)) { return .gif }
        if at(0, Array("RIFF".utf8)) && at(8, Array("WEBP".utf8)) { return .webp }
        if at(0, [0x49, 0x49, 0x2A, 0x00]) || at(0, [0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        // RAW formats that are no TIFF: Fujifilm's RAF, Olympus' ORF, Panasonic's RW2, Canon's CR3 (ISO-BMFF).
        if at(0, Array("FUJIFILMCCD-RAW".utf8)) || at(0, Array("IIRO".utf8)) || at(0, Array("IIRS".utf8)) || at(0, Array("MMOR".utf8))
            || at(0, [0x49, 0x49, 0x55, 0x00]) || (at(4, Array("ftyp".utf8)) && at(8, Array("crx ".utf8)))
        {
            return .cameraRAW
        }
        if at(4, Array("ftyp".utf8)), b.count >= 12 {
            let brand = String(decoding: b[8..<12], as: UTF8.self)
            switch brand {
            case "heic", "heix", "heim", "heis", "hevc", "hevx": return .heic
            case "mif1", "msf1", "mif2": return .heif
            case "avif", "avis": return .avif
            case "qt  ": return .quickTimeMovie
            case "isom", "iso2", "iso4", "iso5", "iso6", "mp41", "mp42", "M4V ", "M4VP", "avc1", "dash", "3gp4", "3gp5", "3g2a":
                return .mpeg4Movie
            default: return nil
            }
        }
        // QuickTime files without an ftyp box start with another top-level atom.
        if at(4, Array("moov".utf8)) || at(4, Array("mdat".utf8)) || at(4, Array("wide".utf8)) || at(4, Array("free".utf8)) {
            return .quickTimeMovie
        }
        return nil
    }
}
