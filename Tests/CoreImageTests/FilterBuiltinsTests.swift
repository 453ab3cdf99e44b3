import OpenPhotos
import Foundation
import Testing

/// The typed API modern Swift code uses sets the same inputs as the key-value one.
@Suite struct FilterBuiltinsTests {
    let context = CIContext()
    let image = CIImage(cgImage: Bitmap(width: 3, height: 1) { x, _ in [[200, 100, 50, 255], [10, 128, 240, 255], [90, 90, 90, 255]][x] }.cgImage)

    @Test func typedFiltersStartAtTheirDefaultsAndWriteTheirKeys() throws {
        let sepia = CIFilter.sepiaTone()
        #expect(sepia.intensity == 1)
        #expect(sepia.inputImage == nil && sepia.outputImage == nil)
        sepia.inputImage = image
        sepia.intensity = 0.5
        #expect((sepia.value(forKey: kCIInputIntensityKey) as? NSNumber)?.floatValue == 0.5)
        let byName = image.applyingFilter("CISepiaTone", parameters: [kCIInputIntensityKey: 0.5])
        let typed = try #require(sepia.outputImage)
        #expect(context.bitmap(typed) == context.bitmap(byName))

        let blur = CIFilter.gaussianBlur()
        #expect(blur.radius == 10)
        let curve = CIFilter.toneCurve()
        #expect(curve.point2 == CGPoint(x: 0.5, y: 0.5))
        curve.point2 = CGPoint(x: 0.5, y: 0.75)
        #expect((curve.value(forKey: "inputPoint2") as? CIVector)?.cgPointValue == CGPoint(x: 0.5, y: 0.75))
        let controls = CIFilter.colorControls()
        controls.inputImage = image
        controls.saturation = 0
        let desaturated = try #require(controls.outputImage)
        let grey = try #require(context.bitmap(desaturated))
        #expect(grey[0, 0][0] == grey[0, 0][1] && grey[0, 0][1] == grey[0, 0][2])
        let transform = CIFilter.affineTransform()
        transform.inputImage = image
        transform.transform = CGAffineTransform(translationX: 5, y: 7)
        #expect(transform.outputImage?.extent == CGRect(x: 5, y: 7, width: 3, height: 1))
        let gradient = CIFilter.linearGradient()
        gradient.point1 = CGPoint(x: 10, y: 0)
        #expect(gradient.outputImage?.extent.isInfinite == true)
        #expect(CIFilter.straighten().name == "CIStraightenFilter")
    }
}
