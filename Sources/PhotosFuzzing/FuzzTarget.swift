import CRaw
import Foundation
import PhotoLibraryEngine
import PhotoMedia

/// The parsers that read untrusted bytes, as fuzzing targets: each takes any input and must return, never crash,
/// hang or read out of bounds. `photos-fuzz` runs them under libFuzzer (`scripts/fuzz.sh`), and the
/// `FuzzRegressionTests` run every input kept in `Tests/FuzzCorpus/<target>/` (seeds and past crashers) through them.
package enum FuzzTarget: String, CaseIterable, Sendable {
    /// NSPredicate format strings: parsed, then compiled to SQL for assets and for albums.
    case predicate
    /// An EXIF block (libexif, then the Apple MakerNote reader behind it).
    case exif
    /// An Apple MakerNote alone.
    case makernote
    /// An XMP packet's dates, rating, caption and keywords.
    case xmp
    /// Photoshop image resources with IPTC-IIM (a JPEG's APP13: caption and keywords).
    case iptc
    /// A PNG's chunk walk (the trailing eXIf reader).
    case png
    /// A QuickTime/MP4 box walk (the 3GPP `udta/date` reader).
    case quicktime
    /// Content sniffing of the first bytes.
    case sniff
    /// A movie through the C shim's paths that decode and re-encode it: the probe, a poster frame (swscale into the
    /// shim's buffer — where a tight buffer was overrun) and an H.264 export of its first half second.
    case movie
    /// A HEIF file through the media pipeline as an import meets it: checked by the HEIF helper process first (where
    /// libheif's assertions end the helper, not this process), then probed and, when sound, rendered small here.
    case heif
    /// A camera RAW file through CRaw (LibRaw): opened from bytes, developed small (draft, half size), previewed.
    case raw

    private static let arguments: [PredicateValue] = [
        .string("x"), .int(1), .double(2.5), .date(Date(timeIntervalSince1970: 0)), .array([.int(1), .int(2)]), .string("creationDate"),
    ]

    /// A file for the readers that take a path (one per process).
    private static let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("photos-fuzz-\(getpid()).bin")

    /// Runs one input.
    package func run(_ input: UnsafeRawBufferPointer) {
        switch self {
        case .predicate:
            let format = String(decoding: input, as: UTF8.self)
            guard let parsed = try? PredicateParser.parse(format, arguments: Self.arguments) else { return }
            _ = try? PredicateCompiler(table: .asset, dialect: .sqlite).compile(parsed)
            _ = try? PredicateCompiler(table: .assetCollection, dialect: .sqlite).compile(parsed)
        case .exif:
            var metadata = MediaMetadata()
            EXIFReader.read(input, into: &metadata, xmp: nil)
        case .makernote:
            var metadata = MediaMetadata()
            AppleMakerNote.read(input, into: &metadata)
        case .xmp:
            let packet = String(decoding: input, as: UTF8.self)
            _ = XMPReader.date(packet)
            var metadata = MediaMetadata()
            DescriptiveMetadata.read(xmp: packet, iptc: nil, into: &metadata)
        case .iptc:
            var metadata = MediaMetadata()
            DescriptiveMetadata.read(xmp: nil, iptc: input, into: &metadata)
        case .png:
            withScratchFile(input) { _ = PNGChunks.trailingEXIF($0) }
        case .quicktime:
            withScratchFile(input) { _ = QuickTimeUserDataDate.read($0) }
        case .sniff:
            _ = MediaFormat.sniff(input)
        case .movie:
            withScratchFile(input) { path in
                guard let info = try? MediaProbe().probe(URL(fileURLWithPath: path)), !info.isImage else { return }
                _ = try? ImageRenderer.renderPosterFrame(
                    path, rotation: info.rotation, displayWidth: info.pixelWidth, displayHeight: info.pixelHeight,
                    request: RenderRequest(target: (32, 32), fit: .fit, resize: .fast), pixelLimit: 4096 * 4096)
                var exporter = MovieExporter(container: .mpeg4, video: .h264(long: 64, short: 64))
                exporter.timeRange = (0, 0.5)
                exporter.displayMatrix = [0, 1 << 16, 0, -(1 << 16), 0, 0, 0, 0, 1 << 30]  // a composition's own
                let out = URL(fileURLWithPath: path + ".out.mp4")
                try? exporter.export(URL(fileURLWithPath: path), to: out)
                unlink(out.path)
            }
        case .heif:
            withScratchFile(input) { path in
                guard let info = try? MediaProbe().probe(URL(fileURLWithPath: path)), info.isImage else { return }
                _ = try? ImageRenderer.render(
                    path, displayWidth: info.pixelWidth, displayHeight: info.pixelHeight,
                    request: RenderRequest(target: (64, 64), fit: .fit, resize: .fast))
            }
        case .raw:
            var info = craw_info()
            var error = [CChar](repeating: 0, count: 256)
            guard let file = craw_open(nil, input.baseAddress, input.count, &info, &error, error.count) else { return }
            defer { craw_close(file) }
            // Mosaics too large for a quick run are only opened (their header is what is fuzzed most).
            if Int(info.width) * Int(info.height) <= 4096 * 4096 {
                var (width, height): (Int32, Int32) = (0, 0)
                craw_free(craw_develop(file, 1, 1, &width, &height, &error, error.count))
            }
            var size = 0
            craw_free(craw_preview_jpeg(file, &size))
        }
    }

    private func withScratchFile(_ input: UnsafeRawBufferPointer, _ body: (String) -> Void) {
        guard (try? Data(input).write(to: Self.scratch)) != nil else { return }
        body(Self.scratch.path)
    }
}
