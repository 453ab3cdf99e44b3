import Foundation
import PhotoMedia
import PhotosTesting
import Testing

/// libheif 1.19 aborts the process (an assertion in `BitstreamRange`) on some damaged HEIFs: the files in
/// `Tests/FuzzCorpus/heif/` did, each the first 256 bytes of an iPhone HEIC with bytes inserted after its `ftyp` box.
/// Every HEIF is read first by the `openphotokit-heif-check` helper process: the abort ends the helper, the file is
/// reported as damaged, and this process goes on to read the next file.
@Suite("HEIF files are checked in a helper process")
struct HEIFContainmentTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("FuzzCorpus/heif")

    static func abortingInputs() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: corpus, includingPropertiesForKeys: nil)
            .filter { $0.lastPathComponent.hasPrefix("abort-") }.sorted { $0.path < $1.path }
    }

    /// A HEIC as iPhones write them (a grid of HEVC tiles).
    static func writeHEIC(to url: URL, width: Int, height: Int) throws {
        try TestMedia.writeHEICGrid(to: url, width: width, height: height, tile: 16) { x, y in [UInt8(x % 256), UInt8(y % 256), 90] }
    }

    @Test func theHelperIsBuiltBesideTheTests() {
        #expect(HEIFCheck.helperPath != nil)
    }

    @Test func filesOnWhichLibheifAbortsAreReportedAsDamagedAndTheNextFileIsRead() throws {
        let dir = try TestMedia.temporaryDirectory("heif-containment")
        defer { try? FileManager.default.removeItem(at: dir) }
        let inputs = try Self.abortingInputs()
        #expect(inputs.count >= 3)
        let sound = dir.appendingPathComponent("sound.heic")
        try Self.writeHEIC(to: sound, width: 64, height: 48)
        let probe = MediaProbe()
        for (index, input) in inputs.enumerated() {
            // A copy with a new name each time: no verdict is remembered for it.
            let copy = dir.appendingPathComponent("damaged-\(index).heic")
            try FileManager.default.copyItem(at: input, to: copy)
            let startsBefore = HEIFCheck.helperStarts
            let outcome = Result { () throws(MediaError) -> MediaInfo in try probe.probe(copy) }
            guard case .failure(.corrupt(let path, let reason)) = outcome else {
                Issue.record("\(input.lastPathComponent): \(outcome)")
                continue
            }
            #expect(path == copy.path)
            #expect(reason.contains("crashed with signal 6"), "\(reason)")
            // Rendering it is refused the same way, before libvips or libheif open it here.
            #expect(throws: MediaError.self) {
                try ImageRenderer.render(
                    copy.path, displayWidth: 64, displayHeight: 48, request: RenderRequest(target: (8, 8), fit: .fit, resize: .fast))
            }
            // The next file is read by a new helper (started once for it, not once per file after that).
            let fresh = dir.appendingPathComponent("sound-\(index).heic")
            try FileManager.default.copyItem(at: sound, to: fresh)
            let info = try probe.probe(fresh)
            #expect(info.format == .heic && info.pixelWidth == 64 && info.pixelHeight == 48)
            #expect(HEIFCheck.helperStarts >= startsBefore + 1)
        }
    }

    @Test func soundFilesShareOneHelper() throws {
        let dir = try TestMedia.temporaryDirectory("heif-one-helper")
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = dir.appendingPathComponent("first.heic")
        try Self.writeHEIC(to: first, width: 32, height: 16)
        _ = try MediaProbe().probe(first)
        // Other tests of this process run beside this one and crash the helper meanwhile (the aborting inputs, the
        // fuzzing regressions): a helper may be started to replace each one that ended, and never for a file.
        let (starts, failures) = (HEIFCheck.helperStarts, HEIFCheck.helperFailures)
        for index in 0..<20 {
            let file = dir.appendingPathComponent("\(index).heic")
            try FileManager.default.copyItem(at: first, to: file)
            #expect(try MediaProbe().probe(file).pixelWidth == 32)
        }
        let started = HEIFCheck.helperStarts - starts, failed = HEIFCheck.helperFailures - failures
        #expect(started <= failed + 1, "\(started) helpers started for 20 sound files while \(failed) failed")
    }

    @Test func heifBytesInMemoryAreCheckedToo() throws {
        let input = try #require(try Self.abortingInputs().first)
        let data = try Data(contentsOf: input)
        #expect(throws: MediaError.corrupt(path: "image data", reason: "")) {
            do { _ = try ImageCodec.header(of: data) } catch MediaError.corrupt(let path, let reason) where reason.contains("signal 6") {
                throw MediaError.corrupt(path: path, reason: "")
            }
        }
    }
}
