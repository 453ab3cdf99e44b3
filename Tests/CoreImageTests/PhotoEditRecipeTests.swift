import OpenPhotos
import BuiltInEditor
import Foundation
import Testing

/// OpenPhotoKit's adjustment format: a resumable recipe of Core Image steps, JSON in PHAdjustmentData.
@Suite struct PhotoEditRecipeTests {
    let context = CIContext()

    @Test func aRecipeRoundTripsThroughAdjustmentDataAndReplacesStepsOfAKind() throws {
        let recipe = try #require(PhotoEditRecipe(steps: [.exposure(ev: 0.5), .crop(x: 0.1, y: 0.2, width: 0.5, height: 0.5), .look("mono")]))
        let data = recipe.adjustmentData
        #expect(data.formatIdentifier == "org.openphotokit.adjustment" && data.formatVersion == "1.0")
        #expect(PhotoEditRecipe(adjustmentData: data) == recipe)
        #expect(recipe.adjustmentData.data == data.data)  // the same recipe, the same bytes
        let changed = recipe.setting(.exposure(ev: -1))
        #expect(changed.steps.filter { $0.kind == "exposure" } == [.exposure(ev: -1)])
        #expect(changed.steps.count == 3)
        #expect(changed.resetting("crop").steps.map(\.kind).sorted() == ["exposure", "look"])
    }

    @Test func otherFormatsNewerVersionsAndHostileDataAreNotRead() throws {
        let good = PhotoEditRecipe().setting(.exposure(ev: 1)).adjustmentData
        #expect(PhotoEditRecipe.canHandle(good))
        #expect(PhotoEditRecipe.canHandle(PHAdjustmentData(formatIdentifier: good.formatIdentifier, formatVersion: "1.4", data: good.data)))
        #expect(!PhotoEditRecipe.canHandle(PHAdjustmentData(formatIdentifier: good.formatIdentifier, formatVersion: "2.0", data: good.data)))
        #expect(!PhotoEditRecipe.canHandle(PHAdjustmentData(formatIdentifier: "com.example.other", formatVersion: "1.0", data: good.data)))
        func read(_ json: String) -> PhotoEditRecipe? {
            PhotoEditRecipe(
                adjustmentData: PHAdjustmentData(formatIdentifier: PhotoEditRecipe.formatIdentifier, formatVersion: "1.0", data: Data(json.utf8)))
        }
        #expect(read("not json") == nil)
        #expect(read(#"{"steps":[{"crop":{"x":0.5,"y":0,"width":0.8,"height":1}}]}"#) == nil)  // outside the unit square
        #expect(read(#"{"steps":[{"exposure":{"ev":1e308}}]}"#) == nil)
        #expect(read(#"{"steps":[{"look":{"_0":"sparkle"}}]}"#) == nil)
        let many = Array(repeating: #"{"flip":{}}"#, count: PhotoEditRecipe.maximumSteps + 1).joined(separator: ",")
        #expect(read(#"{"steps":[\#(many)]}"#) == nil)
        #expect(read(#"{"steps":[{"exposure":{"ev":0.25}}]}"#)?.steps == [.exposure(ev: 0.25)])
    }

    @Test func geometryFollowsTheUprightOriginalsTopLeftUnitSquare() throws {
        let original = CIImage(cgImage: GeometryTests.corners.cgImage)  // 3×2: top row red, green, blue
        let crop = try #require(PhotoEditRecipe(steps: [.crop(x: 1.0 / 3, y: 0, width: 2.0 / 3, height: 0.5)]))
        let cropped = crop.apply(to: original)
        #expect(cropped.extent == CGRect(x: 0, y: 0, width: 2, height: 1))
        #expect(context.bitmap(cropped) == Bitmap(width: 2, height: 1) { x, _ in [GeometryTests.green, GeometryTests.blue][x] })
        let rotation = try #require(PhotoEditRecipe(steps: [.rotate(quarterTurns: 1)]))
        let turned = rotation.apply(to: original)
        #expect(turned.extent == CGRect(x: 0, y: 0, width: 2, height: 3))
        #expect(context.bitmap(turned)?[1, 0] == GeometryTests.red)  // clockwise: the top-left goes top-right
        let flip = try #require(PhotoEditRecipe(steps: [.flip]))
        #expect(context.bitmap(flip.apply(to: original))?[0, 0] == GeometryTests.blue)
    }

    @Test func stepsRenderInTheirFixedOrderWhateverOrderTheyWereSet() throws {
        let original = CIImage(cgImage: Bitmap(width: 8, height: 6) { x, y in [UInt8(x * 30), UInt8(y * 40), 120, 255] }.cgImage)
        let a = try #require(
            PhotoEditRecipe(steps: [.exposure(ev: 0.7), .crop(x: 0.25, y: 0, width: 0.5, height: 1), .saturation(1.4), .vignette(intensity: 0.3)])
        )
        let b = try #require(
            PhotoEditRecipe(steps: [.vignette(intensity: 0.3), .saturation(1.4), .crop(x: 0.25, y: 0, width: 0.5, height: 1), .exposure(ev: 0.7)])
        )
        #expect(context.bitmap(a.apply(to: original)) == context.bitmap(b.apply(to: original)))
        // Exposure alone is CIExposureAdjust.
        let exposure = try #require(PhotoEditRecipe(steps: [.exposure(ev: 1)]))
        let exposed = exposure.apply(to: original)
        #expect(context.bitmap(exposed) == context.bitmap(original.applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: 1])))
        // Warmer raises red against blue.
        let grey = FilterTests.solid([128, 128, 128, 255], 2, 2)
        let warmth = try #require(PhotoEditRecipe(steps: [.warmth(1)]))
        let warm = try #require(context.bitmap(warmth.apply(to: grey)))[0, 0]
        #expect(warm[0] > warm[2])
    }
}
