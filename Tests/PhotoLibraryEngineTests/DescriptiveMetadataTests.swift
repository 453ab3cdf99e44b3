import Foundation
import OpenPhotos
import PhotoLibraryEngine
import PhotoMedia
import PhotosTesting
import Testing

/// Ratings, captions and keywords as Lightroom, darktable, Photos and cameras write them: XMP (attributes, elements,
/// language alternatives, entities), IPTC-IIM in Photoshop resources (UTF-8 or Latin-1), and what wins when both
/// are there.
@Suite("Descriptive metadata")
struct DescriptiveMetadataTests {
    static func read(xmp: String?, iptc: [UInt8]? = nil) -> MediaMetadata {
        var metadata = MediaMetadata()
        if let iptc {
            iptc.withUnsafeBytes { DescriptiveMetadata.read(xmp: xmp, iptc: $0, into: &metadata) }
        } else {
            DescriptiveMetadata.read(xmp: xmp, iptc: nil, into: &metadata)
        }
        return metadata
    }

    static func dataset(_ record: UInt8, _ number: UInt8, _ value: [UInt8]) -> [UInt8] {
        [0x1C, record, number, UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + value
    }

    /// Photoshop image resources holding one IPTC block (resource 0x0404), as a JPEG's APP13 carries them.
    static func photoshopResources(_ iim: [UInt8]) -> [UInt8] {
        let size = iim.count
        let sizeBytes = [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
        return Array("Photoshop 3.0\u{0}".utf8) + Array("8BIM".utf8) + [0x04, 0x04, 0, 0] + sizeBytes + iim + (size % 2 == 1 ? [0] : [])
    }

    @Test func lightroomXMPGivesRatingCaptionAndKeywords() {
        let packet = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF><rdf:Description rdf:about="" xmp:Rating="4"
              xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
             <dc:description><rdf:Alt><rdf:li xml:lang="de-DE">Strand</rdf:li>
               <rdf:li xml:lang="x-default">Beach &amp; dunes &#x1F30A; &lt;3</rdf:li></rdf:Alt></dc:description>
             <dc:subject><rdf:Bag><rdf:li>beach</rdf:li><rdf:li>Normandy</rdf:li><rdf:li>beach</rdf:li><rdf:li>  </rdf:li></rdf:Bag></dc:subject>
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """
        let metadata = Self.read(xmp: packet)
        #expect(metadata.rating == 4)
        #expect(metadata.caption == "Beach & dunes 🌊 <3")
        #expect(metadata.keywords == ["beach", "Normandy"])
    }

    @Test func ratingsAsElementsAndTheOnesThatAreNoRating() {
        #expect(Self.read(xmp: "<xmp:Rating>5</xmp:Rating>").rating == 5)
        #expect(Self.read(xmp: "<x xap:Rating='2'/>").rating == 2)
        #expect(Self.read(xmp: "<x xmp:Rating=\"3.0\"/>").rating == 3)
        #expect(Self.read(xmp: "<x xmp:Rating=\"0\"/>").rating == nil)
        #expect(Self.read(xmp: "<x xmp:Rating=\"-1\"/>").rating == nil)  // Lightroom's "rejected"
        #expect(Self.read(xmp: "<x xmp:Rating=\"9\"/>").rating == nil)
        #expect(Self.read(xmp: "<x myxmp:Rating=\"4\"/>").rating == nil)
        for huge in ["1e300", "-1e300", "inf", "nan", "9223372036854775808"] {
            #expect(Self.read(xmp: "<x xmp:Rating=\"\(huge)\"/>").rating == nil, "\(huge)")
        }
    }

    @Test func iptcCaptionAndKeywordsInUTF8AndLatin1() {
        let utf8 = Self.photoshopResources(
            Self.dataset(1, 90, [0x1B, 0x25, 0x47]) + Self.dataset(2, 120, Array("Ferienhaus – Sommer".utf8))
                + Self.dataset(2, 25, Array("Strand".utf8)) + Self.dataset(2, 25, Array("Müritz".utf8)))
        let read = Self.read(xmp: nil, iptc: utf8)
        #expect(read.caption == "Ferienhaus – Sommer")
        #expect(read.keywords == ["Strand", "Müritz"])
        // No coded character set and bytes that are not UTF-8: ISO 8859-1.
        let latin1 = Self.read(xmp: nil, iptc: Self.dataset(2, 120, [0x43, 0x61, 0x66, 0xE9]))
        #expect(latin1.caption == "Café")
    }

    @Test func xmpWinsForTheCaptionAndIPTCAddsKeywords() {
        let iptc = Self.photoshopResources(
            Self.dataset(2, 120, Array("old caption".utf8)) + Self.dataset(2, 25, Array("b".utf8)) + Self.dataset(2, 25, Array("c".utf8)))
        let both = Self.read(
            xmp: "<dc:description><rdf:Alt><rdf:li xml:lang=\"x-default\">new caption</rdf:li></rdf:Alt></dc:description>"
                + "<dc:subject><rdf:Bag><rdf:li>a</rdf:li><rdf:li>b</rdf:li></rdf:Bag></dc:subject>",
            iptc: iptc)
        #expect(both.caption == "new caption")
        #expect(both.keywords == ["a", "b", "c"])
    }

    @Test func damagedBlocksYieldNothingOrWhatIsWhole() {
        // Truncated datasets, a length past the end, an unterminated element.
        let truncated = Self.photoshopResources(Self.dataset(2, 25, Array("whole".utf8)) + [0x1C, 2, 25, 0x7F, 0xFF, 0x41])
        #expect(Self.read(xmp: nil, iptc: truncated).keywords == ["whole"])
        #expect(Self.read(xmp: nil, iptc: Array("Photoshop 3.0\u{0}8BIM".utf8) + [4, 4, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]).keywords.isEmpty)
        #expect(Self.read(xmp: "<dc:description><rdf:Alt><rdf:li>never closed").caption == nil)
        #expect(Self.read(xmp: "<dc:subject><rdf:Bag><rdf:li>a</rdf:li>").keywords.isEmpty)
        // Control characters go; a long caption is cut at a character; an emoji's joiner stays.
        let family = "👨\u{200D}👩\u{200D}👧"
        let caption = Self.read(xmp: "<x dc:description=\"a\u{7}b \(family)\"/>").caption
        #expect(caption == "ab \(family)")
        let long = String(repeating: "é", count: 5000)
        #expect(Self.read(xmp: "<x dc:description=\"\(long)\"/>").caption == String(repeating: "é", count: 4096))
    }

    /// A photo exported by Photos for macOS (osxphotos' test image): its caption in XMP and IPTC, with the bidi
    /// isolates Photos writes around place names kept.
    @Test(.enabled(if: TestMedia.sharedMediaFolder != nil)) func aPhotosExportKeepsItsCaption() throws {
        let file = try #require(TestMedia.sharedMediaFolder).appendingPathComponent("jpeg-exif/IMG_4547.jpg")
        let info = try MediaProbe().probe(file)
        #expect(info.metadata.caption == "\u{2068}Elder Park\u{2069}, \u{2068}Adelaide\u{2069}, \u{2068}Australia\u{2069}")
        #expect(info.metadata.keywords.isEmpty && info.metadata.rating == nil)
    }
}
