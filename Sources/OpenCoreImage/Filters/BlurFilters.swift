import CVipsShims
import Foundation

/// Blurs and sharpening: neighbourhood operations on premultiplied pixels (transparent beyond the extent, so edges
/// soften unless the input is clamped first, as with Core Image).
enum BlurFilters {
    static let all: [FilterDefinition] = [
        filter(
            "CIGaussianBlur", "Gaussian Blur", [kCICategoryBlur],
            [
                imageInput,
                FilterInput(
                    kCIInputRadiusKey, .number, default: 10.0, min: 0, sliderMin: 0, sliderMax: 100, identity: 0, type: kCIAttributeTypeDistance),
            ]
        ) { inputs in
            guard let image = inputs.image() else { return nil }
            return BlurFilters.gaussian(image, sigma: inputs.number(kCIInputRadiusKey))
        },
        filter(
            "CIBoxBlur", "Box Blur", [kCICategoryBlur],
            [
                imageInput,
                FilterInput(
                    kCIInputRadiusKey, .number, default: 10.0, min: 1, sliderMin: 1, sliderMax: 100, identity: 1, type: kCIAttributeTypeDistance),
            ]
        ) { inputs in
            // A box 2·r + 1 pixels wide, in both directions.
            let r = max(0, Int(inputs.number(kCIInputRadiusKey).rounded()))
            guard let image = inputs.image(), r > 0 else { return inputs.image() }
            let size = 2 * r + 1
            return image.neighbourhood(margin: r, grows: true) { (tile) throws(VipsError) -> VImage in
                let mask = try ColourConversion.matrixImage(Array(repeating: 1, count: size), rows: 1)
                let scaled = try mask.withMetadata { vips_image_set_double($0, "scale", Double(size)) }
                return try VipsCall("convsep").image("in", tile.image).image("mask", scaled).enumeration("precision", "float").output()
            }
        },
        filter(
            "CIDiscBlur", "Disc Blur", [kCICategoryBlur],
            [
                imageInput,
                FilterInput(
                    kCIInputRadiusKey, .number, default: 8.0, min: 0, sliderMin: 0, sliderMax: 100, identity: 0, type: kCIAttributeTypeDistance),
            ]
        ) { inputs in
            let r = inputs.number(kCIInputRadiusKey)
            guard let image = inputs.image(), r >= 0.5 else { return inputs.image() }
            let extent = Int(r.rounded(.up))
            let size = 2 * extent + 1
            var weights: [Double] = []
            for y in 0..<size { for x in 0..<size { weights.append(hypot(Double(x - extent), Double(y - extent)) <= r ? 1 : 0) } }
            return image.convolved(weights, size: size, margin: extent)
        },
        filter(
            "CIMotionBlur", "Motion Blur", [kCICategoryBlur],
            [
                imageInput,
                FilterInput(
                    kCIInputRadiusKey, .number, default: 20.0, min: 0, sliderMin: 0, sliderMax: 100, identity: 0, type: kCIAttributeTypeDistance),
                FilterInput(kCIInputAngleKey, .number, default: 0.0, sliderMin: -.pi, sliderMax: .pi, identity: 0, type: kCIAttributeTypeAngle),
            ]
        ) { inputs in
            // A line 2·r + 1 long at the angle (counter-clockwise from the x axis, y up).
            let r = inputs.number(kCIInputRadiusKey), angle = inputs.number(kCIInputAngleKey)
            guard let image = inputs.image(), r >= 0.5 else { return inputs.image() }
            let extent = Int(r.rounded(.up))
            let size = 2 * extent + 1
            var weights = [Double](repeating: 0, count: size * size)
            let steps = size * 4
            for i in 0...steps {
                let t = -r + 2 * r * Double(i) / Double(steps)
                let x = Int((Double(extent) + t * cos(angle)).rounded()), row = Int((Double(extent) - t * sin(angle)).rounded())
                if (0..<size).contains(x), (0..<size).contains(row) { weights[row * size + x] = 1 }
            }
            return image.convolved(weights, size: size, margin: extent)
        },
        filter(
            "CIUnsharpMask", "Unsharp Mask", [kCICategorySharpen],
            [
                imageInput,
                FilterInput(kCIInputRadiusKey, .number, default: 2.5, min: 0, sliderMin: 0, sliderMax: 100, type: kCIAttributeTypeDistance),
                FilterInput(kCIInputIntensityKey, .number, default: 0.5, min: 0, sliderMin: 0, sliderMax: 1),
            ]
        ) { inputs in
            // x + intensity · (x − gaussian(x, radius)).
            let sigma = inputs.number(kCIInputRadiusKey), amount = inputs.number(kCIInputIntensityKey)
            guard let image = inputs.image(), sigma > 0, amount != 0 else { return inputs.image() }
            return image.neighbourhood(margin: Int((3 * sigma).rounded(.up)) + 1, grows: false) { (tile) throws(VipsError) -> VImage in
                let blurred = try VipsCall("gaussblur").image("in", tile.image).double("sigma", sigma).double("min_ampl", 0.01).enumeration(
                    "precision", "float"
                ).output()
                let detail = try tile.image.minus(blurred)
                let bands = tile.image.bands
                return try tile.image.plus(
                    try detail.linear(
                        Array(repeating: amount, count: bands - (bands == 4 ? 1 : 0)) + (bands == 4 ? [0] : []), Array(repeating: 0, count: bands)))
            }
        },
        filter(
            "CISharpenLuminance", "Sharpen Luminance", [kCICategorySharpen],
            [
                imageInput, FilterInput(kCIInputSharpnessKey, .number, default: 0.4, min: 0, sliderMin: 0, sliderMax: 2),
                FilterInput(kCIInputRadiusKey, .number, default: 1.69, min: 0, sliderMin: 0, sliderMax: 20, type: kCIAttributeTypeDistance),
            ]
        ) { inputs in
            // The luminance's detail (luminance − its blur), times the sharpness, added to each colour.
            let sharpness = inputs.number(kCIInputSharpnessKey), sigma = max(0.3, inputs.number(kCIInputRadiusKey))
            guard let image = inputs.image(), sharpness != 0 else { return inputs.image() }
            return image.neighbourhood(margin: Int((3 * sigma).rounded(.up)) + 1, grows: false) { (tile) throws(VipsError) -> VImage in
                let colours = try tile.image.band(0, count: 3)
                let luminance = try colours.luminance()
                let blurred = try VipsCall("gaussblur").image("in", luminance).double("sigma", sigma).double("min_ampl", 0.01).enumeration(
                    "precision", "float"
                ).output()
                let detail = try luminance.minus(blurred).linear([sharpness], [0])
                let sharpened = try colours.plus(try detail.replicated(3))
                return tile.hasAlpha ? try VipsCall("bandjoin").images("in", [sharpened, try tile.image.band(3)]).output() : sharpened
            }
        },
        filter(
            "CINoiseReduction", "Noise Reduction", [kCICategoryBlur],
            [
                imageInput, FilterInput("inputNoiseLevel", .number, default: 0.02, min: 0, sliderMin: 0, sliderMax: 0.1),
                FilterInput(kCIInputSharpnessKey, .number, default: 0.4, min: 0, sliderMin: 0, sliderMax: 2),
            ]
        ) { inputs in
            // Detail smaller than the noise level is smoothed away (a median of 3×3 where the difference is below
            // it), then what remains is sharpened by the sharpness.
            let level = inputs.number("inputNoiseLevel"), sharpness = inputs.number(kCIInputSharpnessKey)
            guard let image = inputs.image() else { return nil }
            return image.neighbourhood(margin: 3, grows: false) { (tile) throws(VipsError) -> VImage in
                let median = try VipsCall("rank").image("in", tile.image).int("width", 3).int("height", 3).int("index", 4).output()
                let difference = try VipsCall("abs").image("in", try tile.image.minus(median)).output()
                let noisy = try VipsCall("relational_const").image("in", difference).enumeration("relational", "less").doubles("c", [level]).output()
                let smoothed = try VipsCall("ifthenelse").image("cond", noisy).image("in1", median).image("in2", tile.image).output()
                guard sharpness > 0 else { return smoothed }
                let blurred = try VipsCall("gaussblur").image("in", smoothed).double("sigma", 0.8).enumeration("precision", "float").output()
                return try smoothed.plus(try smoothed.minus(blurred).linear([sharpness * 0.5], [0]))
            }
        },
    ]

    static func gaussian(_ image: CIImage, sigma: Double) -> CIImage {
        guard sigma >= 0.1 else { return image }
        let margin = Int((3 * sigma).rounded(.up))
        return image.neighbourhood(margin: margin, grows: true) { (tile) throws(VipsError) -> VImage in
            try VipsCall("gaussblur").image("in", tile.image).double("sigma", sigma).double("min_ampl", 0.01).enumeration("precision", "float")
                .output()
        }
    }
}

extension CIImage {
    /// A neighbourhood operation over this image.
    func neighbourhood(margin: Int, grows: Bool, _ operation: @escaping @Sendable (Tile) throws(VipsError) -> VImage) -> CIImage {
        CIImage(node: NeighbourhoodNode(node, margin: margin, growsExtent: grows, operation: operation), properties: properties, sampling: sampling)
    }

    /// A convolution with a normalised mask (weights summing to 1 after scaling).
    func convolved(_ weights: [Double], size: Int, margin: Int) -> CIImage {
        let total = max(1e-9, weights.reduce(0, +))
        return neighbourhood(margin: margin, grows: true) { (tile) throws(VipsError) -> VImage in
            let mask = try ColourConversion.matrixImage(weights, rows: size)
            let scaled = try mask.withMetadata { vips_image_set_double($0, "scale", total) }
            return try VipsCall("conv").image("in", tile.image).image("mask", scaled).enumeration("precision", "float").output()
        }
    }
}
