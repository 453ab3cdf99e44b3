import OpenPhotos
import Foundation
import PhotosTesting
import Testing

/// CIRAWFilter over DNG files written here: an RGGB mosaic whose camera space is linear sRGB (its ColorMatrix1 is
/// XYZ → linear sRGB), so what each filter setting does can be computed exactly.
@Suite struct RAWFilterTests {
    let context = CIContext()

    /// A minimal DNG of one scene colour (``TestMedia/dng(width:height:colour:orientation:baselineExposure:neutral:)``).
    static func dng(
        width: Int = 64, height: Int = 48, colour: [Double], orientation: UInt16 = 1, baselineExposure: Double = 0,
        neutral: [Double] = [1, 1, 1]
    ) -> Data {
        TestMedia.dng(width: width, height: height, colour: colour, orientation: orientation, baselineExposure: baselineExposure, neutral: neutral)
    }

    func centre(_ image: CIImage) throws -> [UInt8] {
        let bitmap = try #require(context.bitmap(image, CGRect(x: image.extent.midX, y: image.extent.midY, width: 1, height: 1)))
        return bitmap[0, 0]
    }

    @Test func aDNGIsDevelopedWithItsWhiteBalanceExposureAndOrientation() throws {
        let grey = try #require(CIRAWFilter(imageData: Self.dng(colour: [0.2, 0.2, 0.2]), identifierHint: "com.adobe.raw-image"))
        #expect(grey.nativeSize == CGSize(width: 64, height: 48))
        #expect(grey.orientation == .up && grey.exposure == 0 && grey.boostAmount == 1 && grey.scaleFactor == 1)
        // The as-shot white is D65 (the neutral is the camera's white, and the camera space is sRGB's).
        #expect(abs(grey.neutralTemperature - 6504) < 60, "\(grey.neutralTemperature)")
        let properties = try #require(grey.properties["{TIFF}"] as? [String: String])
        #expect(properties["Make"] == "OpenPhotoKit" && properties["Model"] == "Test Maker", "\(properties)")
        // Linear (no boost): the scene's 0.2 comes out as 0.2, encoded as sRGB.
        grey.boostAmount = 0
        let image = try #require(grey.outputImage)
        #expect(image.extent == CGRect(x: 0, y: 0, width: 64, height: 48))
        let pixel = try centre(image)
        #expect(close(pixel, [encoded(0.2), encoded(0.2), encoded(0.2), 255], 2), "\(pixel)")
        // +1 EV doubles the light; the file's baseline exposure adds to it.
        grey.exposure = 1
        #expect(close(try centre(try #require(grey.outputImage)), [encoded(0.4), encoded(0.4), encoded(0.4), 255], 2))
        grey.baselineExposure = 1
        #expect(close(try centre(try #require(grey.outputImage)), [encoded(0.8), encoded(0.8), encoded(0.8), 255], 2))
        // The boost (the default) raises contrast: a mid grey moves away from the middle.
        let boosted = try #require(CIRAWFilter(imageData: Self.dng(colour: [0.1, 0.1, 0.1]), identifierHint: nil))
        let curved = try centre(try #require(boosted.outputImage))[0]
        #expect(Int(curved) < Int(encoded(0.1)) - 5, "\(curved) ≥ \(encoded(0.1))")

        // Colour: the red sites lit, the others nearly dark.
        let red = try #require(CIRAWFilter(imageData: Self.dng(colour: [0.5, 0.05, 0.05]), identifierHint: nil))
        red.boostAmount = 0
        let reddish = try centre(try #require(red.outputImage))
        #expect(close(reddish, [encoded(0.5), encoded(0.05), encoded(0.05), 255], 3), "\(reddish)")
        // A higher temperature renders warmer (more red than blue), a lower one cooler.
        let neutral = try #require(CIRAWFilter(imageData: Self.dng(colour: [0.2, 0.2, 0.2]), identifierHint: nil))
        neutral.neutralTemperature = 9000
        let warm = try centre(try #require(neutral.outputImage))
        neutral.neutralTemperature = 4000
        let cool = try centre(try #require(neutral.outputImage))
        #expect(warm[0] > warm[2] && cool[0] < cool[2], "warm \(warm), cool \(cool)")

        // The file's orientation (6: turned right) is applied; the filter's can replace it.
        let turned = try #require(CIRAWFilter(imageData: Self.dng(colour: [0.2, 0.2, 0.2], orientation: 6), identifierHint: nil))
        #expect(turned.orientation == .right)
        #expect(turned.outputImage?.extent.size == CGSize(width: 48, height: 64))
        turned.orientation = .up
        #expect(turned.outputImage?.extent.size == CGSize(width: 64, height: 48))
        // Scale: a half-size development, the extent scaled.
        turned.scaleFactor = 0.5
        #expect(turned.outputImage?.extent.size == CGSize(width: 32, height: 24))
        turned.isDraftModeEnabled = true
        turned.scaleFactor = 1
        #expect(turned.outputImage?.extent.size == CGSize(width: 64, height: 48))
    }

    @Test func whatIsNotARAWFileGivesNil() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("raw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = folder.appendingPathComponent("notes.dng")
        try Data("not a raw file".utf8).write(to: text)
        #expect(CIRAWFilter(imageURL: text) == nil)
        #expect(CIRAWFilter(imageURL: folder.appendingPathComponent("missing.dng")) == nil)
        #expect(CIRAWFilter(imageData: Data(), identifierHint: nil) == nil)
        // A DNG cut short: refused or developed, never a crash.
        let whole = Self.dng(colour: [0.2, 0.2, 0.2])
        for length in [16, 200, whole.count / 2] {
            _ = CIRAWFilter(imageData: whole.prefix(length), identifierHint: nil)?.outputImage.map { context.bitmap($0) }
        }
        // From a file, as from bytes.
        let file = folder.appendingPathComponent("grey.dng")
        try whole.write(to: file)
        let raw = try #require(CIRAWFilter(imageURL: file))
        #expect(raw.nativeSize == CGSize(width: 64, height: 48) && raw.previewImage == nil)
        #expect(CIRAWFilter.supportedCameraModels.count > 500 && CIRAWFilter.supportedCameraModels.contains { $0.hasPrefix("Canon") })
    }
}
