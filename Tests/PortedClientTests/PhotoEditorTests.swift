import Foundation
@testable import PortedClient
import Photos
import PhotosTesting
import Testing

/// The iOS-style editor in Compatibility/PortedApp, run: filters by name, orientation applied on load, a JPEG
/// written in place, a thumbnail through CGImage and UIImage, a read-back through render(toBitmap:).
@Suite struct PhotoEditorTests {
    @Test func theEditorExportsThumbnailsAndSamplesAsOnIOS() throws {
        let folder = try TestMedia.temporaryDirectory("ported-editor")
        defer { try? FileManager.default.removeItem(at: folder) }
        let original = folder.appendingPathComponent("portrait.jpg")
        try TestMedia.writeImage(to: original, width: 60, height: 40, orientation: 6)
        let editor = PhotoEditor()
        let exported = folder.appendingPathComponent("sepia.jpg")
        let size = try editor.exportSepia(of: original, to: exported)
        #expect(size == CGSize(width: 40, height: 60))  // the orientation applied on load
        let written = try #require(UIImage(contentsOfFile: exported.path))
        #expect(written.size == CGSize(width: 40, height: 60) && written.imageOrientation == .up)
        let pixel = try #require(written.pixel(x: 20, y: 30))
        #expect(pixel.red > pixel.blue)  // sepia is warm
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["portrait.jpg", "sepia.jpg"])  // no temporary left

        let image = try #require(UIImage(contentsOfFile: original.path))
        let thumbnail = try #require(editor.squareThumbnail(of: image, side: 16))
        #expect(thumbnail.cgImage?.width == 16 && thumbnail.cgImage?.height == 16)
        #expect(thumbnail.imageOrientation == .right)

        let stored = try #require(CIImage(contentsOf: original))
        let red = try #require(editor.averageRed(of: stored, in: CGRect(x: 0, y: 0, width: 60, height: 40)))
        // The generated gradient runs red from 0 to 255 across the stored width: its middle averages about half.
        #expect((100...160).contains(Int(red)), "\(red)")
    }
}
