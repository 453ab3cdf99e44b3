import Foundation
import Testing

@testable import PhotosServer

/// The gallery's files and the OpenAPI document are compiled in from Sources/PhotosServer/Embedded by
/// scripts/embed-web.sh: what the binary serves must be what is in that folder, byte for byte.
@Suite("Generated sources")
struct GeneratedSourcesTests {
    static let embedded = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../Sources/PhotosServer/Embedded"
    ).standardizedFileURL

    @Test func embeddedFilesAreUpToDate() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.embedded.path).filter { !$0.hasPrefix(".") }.sorted()
        #expect(names == EmbeddedFiles.files.keys.sorted(), "run scripts/embed-web.sh")
        #expect(names.contains("app.js") && names.contains("openapi.json"))
        for name in names {
            let text = try String(contentsOf: Self.embedded.appendingPathComponent(name), encoding: .utf8)
            // A multi-line string literal leaves out the newline before its closing delimiter.
            let expected = text.hasSuffix("\n") ? String(text.dropLast()) : text
            #expect(EmbeddedFiles.files[name]?.text == expected, "\(name) is stale: run scripts/embed-web.sh")
        }
    }
}
