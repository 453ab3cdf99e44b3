import OpenPhotos
import Foundation

/// 8-bit straight RGBA pixels, rows from the top.
struct Bitmap: Equatable, CustomStringConvertible {
    var width: Int
    var height: Int
    var bytes: [UInt8]

    init(width: Int, height: Int, bytes: [UInt8]) {
        (self.width, self.height, self.bytes) = (width, height, bytes)
    }

    init(width: Int, height: Int, _ pixel: (Int, Int) -> [UInt8]) {
        self.width = width
        self.height = height
        bytes = []
        for y in 0..<height { for x in 0..<width { bytes += pixel(x, y) } }
    }

    /// The pixel at (x, y) from the top left.
    subscript(x: Int, y: Int) -> [UInt8] { Array(bytes[(y * width + x) * 4..<(y * width + x) * 4 + 4]) }

    var cgImage: CGImage {
        CGImage(
            width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: width * 4,
            space: CGColorSpace(name: CGColorSpace.sRGB)!, bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.last.rawValue),
            provider: CGDataProvider(data: NSData(bytes: bytes, length: bytes.count))!, decode: nil, shouldInterpolate: true,
            intent: .defaultIntent)!
    }

    var description: String {
        (0..<height).map { y in (0..<width).map { x in self[x, y].map(String.init).joined(separator: ",") }.joined(separator: " | ") }
            .joined(separator: "\n")
    }
}

extension CIContext {
    /// The rendering of `rect` (the extent by default) as straight 8-bit sRGB RGBA rows from the top.
    func bitmap(_ image: CIImage, _ rect: CGRect? = nil) -> Bitmap? {
        let area = rect ?? image.extent
        guard let cg = createCGImage(image, from: area, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)),
            let data = cg.dataProvider?.data
        else { return nil }
        var bytes = [UInt8](data as Data)
        // Unpremultiply for comparisons.
        var i = 0
        while i + 3 < bytes.count {
            let a = Int(bytes[i + 3])
            if a > 0, a < 255 { for k in 0..<3 { bytes[i + k] = UInt8(min(255, (Int(bytes[i + k]) * 255 + a / 2) / a)) } }
            i += 4
        }
        return Bitmap(width: cg.width, height: cg.height, bytes: bytes)
    }
}

/// Whether two pixels differ by at most `tolerance` in every component.
func close(_ a: [UInt8], _ b: [UInt8], _ tolerance: Int = 1) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
}

/// sRGB 8-bit → linear, and back (IEC 61966-2-1).
func linear(_ v: UInt8) -> Double {
    let c = Double(v) / 255
    return c <= 0.040_45 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
}

func encoded(_ l: Double) -> UInt8 {
    let c = min(1, max(0, l))
    let v = c <= 0.003_130_8 ? c * 12.92 : 1.055 * pow(c, 1 / 2.4) - 0.055
    return UInt8((v * 255).rounded())
}
