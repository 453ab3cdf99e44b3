import OpenPhotos
import Foundation
import PhotosTesting
import Testing

/// Colour management (Display P3 in, spaces out, extended values kept) and metadata (properties read from files,
/// written back as EXIF).
@Suite struct ColourSpaceAndMetadataTests {
    let context = CIContext()

    /// One pixel of P3 red, tagged Display P3.
    static let p3Red: CIImage = {
        let bitmap = Bitmap(width: 1, height: 1) { _, _ in [255, 0, 0, 255] }
        let cg = CGImage(
            width: 1, height: 1, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: 4, space: CGColorSpace(name: CGColorSpace.displayP3)!,
            bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.last.rawValue),
            provider: CGDataProvider(data: NSData(bytes: bitmap.bytes, length: 4))!,
            decode: nil, shouldInterpolate: true, intent: .defaultIntent)!
        return CIImage(cgImage: cg)
    }()

    func floats(_ image: CIImage, _ space: CFString) throws -> [Float] {
        var pixel = [Float](repeating: 0, count: 4)
        context.render(image, toBitmap: &pixel, rowBytes: 16, bounds: image.extent, format: .RGBAf, colorSpace: CGColorSpace(name: space))
        return pixel
    }

    @Test func displayP3RedIsOutsideSRGBInExtendedLinearSRGB() throws {
        // P3 red in linear sRGB is (1.2249, −0.0421, −0.0196): kept in the extended space, clipped in plain sRGB.
        let extended = try floats(Self.p3Red, CGColorSpace.extendedLinearSRGB)
        #expect(abs(extended[0] - 1.2249) < 0.002 && abs(extended[1] + 0.0421) < 0.002 && abs(extended[2] + 0.0196) < 0.002, "\(extended)")
        let clipped = try floats(Self.p3Red, CGColorSpace.sRGB)
        #expect(abs(clipped[0] - 1) < 1e-5 && clipped[1] == 0 && clipped[2] == 0 && clipped[3] == 1, "\(clipped)")
        // Back into Display P3 it is P3 red again.
        let roundTrip = try #require(
            context.createCGImage(Self.p3Red, from: Self.p3Red.extent, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.displayP3)))
        #expect([UInt8](try #require(roundTrip.dataProvider?.data) as Data) == [255, 0, 0, 255])
        #expect(roundTrip.colorSpace?.name == CGColorSpace.displayP3)
    }

    @Test func filesRenderedInDisplayP3CarryItsProfile() throws {
        let folder = try TestMedia.temporaryDirectory("ci-p3")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("p3.jpg")
        try context.writeJPEGRepresentation(of: Self.p3Red, to: url, colorSpace: CGColorSpace(name: CGColorSpace.displayP3)!)
        let back = try #require(CIImage(contentsOf: url))
        #expect(back.colorSpace?.name == CGColorSpace.displayP3)
        #expect(back.properties["ProfileName"] as? String == "Display P3")
        let red = try floats(back, CGColorSpace.extendedLinearSRGB)
        #expect(red[0] > 1.15 && red[1] < -0.02, "\(red)")  // P3 red read back through its profile (JPEG-lossy)
    }

    @Test func bitmapsInEveryByteOrderReadTheSame() throws {
        func image(_ bytes: [UInt8], _ info: CGBitmapInfo) throws -> [UInt8] {
            let cg = try #require(
                CGImage(
                    width: 1, height: 1, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: 4, space: CGColorSpace(name: CGColorSpace.sRGB)!,
                    bitmapInfo: info, provider: CGDataProvider(data: NSData(bytes: bytes, length: 4))!, decode: nil, shouldInterpolate: true,
                    intent: .defaultIntent))
            return try #require(context.bitmap(CIImage(cgImage: cg)))[0, 0]
        }
        let little = CGBitmapInfo.byteOrder32Little.rawValue
        #expect(try image([10, 20, 30, 255], CGBitmapInfo(alphaInfo: .last)) == [10, 20, 30, 255])
        #expect(try image([255, 10, 20, 30], CGBitmapInfo(alphaInfo: .first)) == [10, 20, 30, 255])
        #expect(try image([30, 20, 10, 255], CGBitmapInfo(rawValue: CGImageAlphaInfo.premultipliedFirst.rawValue | little)) == [10, 20, 30, 255])
        #expect(try image([255, 30, 20, 10], CGBitmapInfo(rawValue: CGImageAlphaInfo.last.rawValue | little)) == [10, 20, 30, 255])
        #expect(try image([10, 20, 30, 0], CGBitmapInfo(alphaInfo: .noneSkipLast)) == [10, 20, 30, 255])
        // And out: ARGB8 and ABGR8 renders put the bytes where their names say.
        let pixel = FilterTests.solid([10, 20, 30, 255], 1, 1)
        let argb = try #require(context.createCGImage(pixel, from: pixel.extent, format: .ARGB8, colorSpace: nil))
        #expect([UInt8](try #require(argb.dataProvider?.data) as Data) == [255, 10, 20, 30])
        let abgr = try #require(context.createCGImage(pixel, from: pixel.extent, format: .ABGR8, colorSpace: nil))
        #expect([UInt8](try #require(abgr.dataProvider?.data) as Data) == [255, 30, 20, 10])
    }

    @Test func heifIsWrittenAndReadBackWithItsProfile() throws {
        let image = FilterTests.solid([200, 120, 40, 255], 64, 48)
        let data = try #require(context.heifRepresentation(of: image, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.displayP3)!))
        #expect(data.count > 100 && data[4..<8].elementsEqual("ftyp".utf8))
        let back = try #require(CIImage(data: data))
        #expect(back.extent == image.extent)
        #expect(back.colorSpace?.name == CGColorSpace.displayP3)
        let pixel = try #require(context.bitmap(back))[32, 24]
        #expect(close(pixel, [200, 120, 40, 255], 4), "\(pixel)")
        // UIImage's HEIC encoder goes the same way.
        let heic = try #require(
            UIImage(cgImage: Bitmap(width: 16, height: 16) { _, _ in [10, 200, 90, 255] }.cgImage).heicData(compressionQuality: 0.8))
        #expect(UIImage(data: heic)?.size == CGSize(width: 16, height: 16))
    }

    @Test func gammaTwoPointTwoGreyAndLinearOutputs() throws {
        let grey = FilterTests.solid([128, 128, 128, 255], 1, 1)
        let linearGrey = try floats(grey, CGColorSpace.linearSRGB)
        #expect(abs(linearGrey[0] - Float(linear(128))) < 0.001)
        let l8 = try #require(context.createCGImage(grey, from: grey.extent, format: .L8, colorSpace: nil))
        #expect(l8.bitsPerPixel == 8 && l8.colorSpace?.model == .monochrome)
        let value = [UInt8](try #require(l8.dataProvider?.data) as Data)[0]
        #expect(abs(Int(value) - Int((pow(linear(128), 1 / 2.2) * 255).rounded())) <= 1, "\(value)")
        let bgra = try #require(
            context.createCGImage(
                FilterTests.solid([10, 20, 30, 255], 1, 1), from: CGRect(x: 0, y: 0, width: 1, height: 1), format: .BGRA8, colorSpace: nil))
        #expect([UInt8](try #require(bgra.dataProvider?.data) as Data) == [30, 20, 10, 255])
        #expect(bgra.bitmapInfo.contains(.byteOrder32Little) && bgra.alphaInfo == .premultipliedFirst)
    }

    @Test func propertiesAreWrittenAsEXIFAndReadBack() throws {
        let folder = try TestMedia.temporaryDirectory("ci-exif")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("source.jpg")
        try TestMedia.writeJPEG(
            to: source, width: 32, height: 24,
            exif: TestEXIF(
                make: "Apple", model: "iPhone 13", dateTimeOriginal: "2024:06:01 12:00:00", offsetTimeOriginal: "+02:00", latitude: -33.8568,
                longitude: 151.2153))
        let image = try #require(CIImage(contentsOf: source))
        // GPS as ImageIO gives it: decimal degrees and their hemisphere.
        let gps = try #require(image.properties["{GPS}"] as? [String: Any])
        #expect(abs((gps["Latitude"] as? Double ?? 0) - 33.8568) < 1e-4 && gps["LatitudeRef"] as? String == "S")
        #expect(abs((gps["Longitude"] as? Double ?? 0) - 151.2153) < 1e-4 && gps["LongitudeRef"] as? String == "E")
        let tiff = try #require(image.properties["{TIFF}"] as? [String: Any])
        #expect(tiff["Make"] as? String == "Apple" && tiff["Model"] as? String == "iPhone 13")
        let exif = try #require(image.properties["{Exif}"] as? [String: Any])
        #expect(exif["DateTimeOriginal"] as? String == "2024:06:01 12:00:00")
        #expect(image.properties["PixelWidth"] as? Int == 32 && image.properties["PixelHeight"] as? Int == 24)

        // Through an edit, the metadata goes with the image; a changed dictionary is what is written.
        let edited = image.applyingFilter("CISepiaTone")
        let kept = folder.appendingPathComponent("kept.jpg")
        try context.writeJPEGRepresentation(of: edited, to: kept, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!)
        let keptTIFF = try #require(CIImage(contentsOf: kept)?.properties["{TIFF}"] as? [String: Any])
        #expect(keptTIFF["Model"] as? String == "iPhone 13")
        let keptGPS = try #require(CIImage(contentsOf: kept)?.properties["{GPS}"] as? [String: Any])
        #expect(abs((keptGPS["Latitude"] as? Double ?? 0) - 33.8568) < 1e-4 && keptGPS["LatitudeRef"] as? String == "S", "\(keptGPS)")
        var properties = image.properties
        properties["{TIFF}"] = ["Make": "OpenPhotoKit", "Model": "Linux"]
        properties["{GPS}"] = ["Latitude": 48.8584, "LatitudeRef": "N", "Longitude": 2.2945, "LongitudeRef": "E"]
        let renamed = folder.appendingPathComponent("renamed.jpg")
        try context.writeJPEGRepresentation(of: edited.settingProperties(properties), to: renamed, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!)
        let renamedTIFF = try #require(CIImage(contentsOf: renamed)?.properties["{TIFF}"] as? [String: Any])
        #expect(renamedTIFF["Make"] as? String == "OpenPhotoKit" && renamedTIFF["Model"] as? String == "Linux")
        let movedGPS = try #require(CIImage(contentsOf: renamed)?.properties["{GPS}"] as? [String: Any])
        #expect(abs((movedGPS["Latitude"] as? Double ?? 0) - 48.8584) < 1e-4 && movedGPS["LatitudeRef"] as? String == "N", "\(movedGPS)")
        #expect(abs((movedGPS["Longitude"] as? Double ?? 0) - 2.2945) < 1e-4, "\(movedGPS)")
        // An image without properties is written without the source's EXIF (libexif adds only its defaults).
        let bare = folder.appendingPathComponent("bare.jpg")
        try context.writeJPEGRepresentation(of: edited.settingProperties([:]), to: bare, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!)
        let bareTIFF = CIImage(contentsOf: bare)?.properties["{TIFF}"] as? [String: Any]
        #expect(bareTIFF?["Make"] == nil && bareTIFF?["Model"] == nil)
        #expect((CIImage(contentsOf: bare)?.properties["{Exif}"] as? [String: Any])?["DateTimeOriginal"] == nil)
    }

    @Test(.enabled(if: TestMedia.sharedMediaFolder != nil)) func realFilesOrientAndTagAsTheirMetadataSays() throws {
        let media = try #require(TestMedia.sharedMediaFolder)
        let upright = try #require(CIImage(contentsOf: media.appendingPathComponent("orientation/landscape_1.jpg")))
        let reference = try #require(context.bitmap(upright))
        for n in 2...8 {
            let url = media.appendingPathComponent("orientation/landscape_\(n).jpg")
            let stored = try #require(CIImage(contentsOf: url))
            #expect(stored.properties["Orientation"] as? Int == n)
            let applied = try #require(CIImage(contentsOf: url, options: [.applyOrientationProperty: true]))
            #expect(applied.extent == upright.extent, "orientation \(n)")
            let bitmap = try #require(context.bitmap(applied))
            // The same picture (each file JPEG-compressed on its own): mean difference a few levels.
            let difference = zip(bitmap.bytes, reference.bytes).map { abs(Int($0) - Int($1)) }.reduce(0, +) / bitmap.bytes.count
            #expect(difference < 6, "orientation \(n): mean difference \(difference)")
        }
        // An iPhone HEIC: Display P3, Apple's EXIF; libheif turns the pixels upright, so the orientation is 1.
        let heic = try #require(CIImage(contentsOf: media.appendingPathComponent("livephoto/IMG_4394.HEIC")))
        #expect(heic.colorSpace?.name == CGColorSpace.displayP3)
        #expect(heic.extent.height > heic.extent.width)
        #expect(heic.properties["Orientation"] as? Int == 1)
        let tiff = try #require(heic.properties["{TIFF}"] as? [String: Any])
        #expect(tiff["Make"] as? String == "Apple" && tiff["Model"] as? String == "iPhone 15 Pro")
    }
}
