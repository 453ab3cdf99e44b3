import CVipsShims
import Foundation

/// Geometry: affine transforms, crops, straightening, Lanczos scaling, perspective correction.
enum GeometryFilters {
    static let all: [FilterDefinition] = [
        filter(
            "CIAffineTransform", "Affine Transform", [kCICategoryGeometryAdjustment],
            [imageInput, FilterInput(kCIInputTransformKey, .transform, default: CGAffineTransform.identity, type: kCIAttributeTypeTransform)]
        ) { inputs in inputs.image()?.transformed(by: inputs.transform(kCIInputTransformKey)) },
        filter(
            "CICrop", "Crop", [kCICategoryGeometryAdjustment],
            [
                imageInput,
                FilterInput(
                    "inputRectangle", .vector,
                    default: CIVector(
                        x: -8.988_465_674_311_579e307, y: -8.988_465_674_311_579e307, z: 1.797_693_134_862_315_7e308, w: 1.797_693_134_862_315_7e308),
                    type: kCIAttributeTypeRectangle),
            ]
        ) { inputs in inputs.image()?.cropped(to: inputs.vector("inputRectangle").cgRectValue) },
        filter(
            "CIStraightenFilter", "Straighten", [kCICategoryGeometryAdjustment],
            [
                imageInput,
                FilterInput(kCIInputAngleKey, .number, default: 0.0, sliderMin: -.pi, sliderMax: .pi, identity: 0, type: kCIAttributeTypeAngle),
            ]
        ) { inputs in
            guard let image = inputs.image() else { return nil }
            return GeometryFilters.straighten(image, angle: inputs.number(kCIInputAngleKey))
        },
        filter(
            "CILanczosScaleTransform", "Lanczos Scale Transform", [kCICategoryGeometryAdjustment],
            [
                imageInput, FilterInput(kCIInputScaleKey, .number, default: 1.0, min: 0, sliderMin: 0.05, sliderMax: 1.5, identity: 1),
                FilterInput(kCIInputAspectRatioKey, .number, default: 1.0, min: 0, sliderMin: 0.05, sliderMax: 2, identity: 1),
            ]
        ) { inputs in
            let scale = inputs.number(kCIInputScaleKey), ratio = inputs.number(kCIInputAspectRatioKey)
            guard scale > 0, ratio > 0 else { return CIImage.empty() }
            return inputs.image()?.transformed(by: CGAffineTransform(scaleX: scale * ratio, y: scale), highQualityDownsample: true)
        },
        filter(
            "CIPerspectiveCorrection", "Perspective Correction", [kCICategoryGeometryAdjustment],
            [
                imageInput, FilterInput("inputTopLeft", .vector, default: CIVector(x: 118, y: 484), type: kCIAttributeTypePosition),
                FilterInput("inputTopRight", .vector, default: CIVector(x: 646, y: 507), type: kCIAttributeTypePosition),
                FilterInput("inputBottomRight", .vector, default: CIVector(x: 548, y: 140), type: kCIAttributeTypePosition),
                FilterInput("inputBottomLeft", .vector, default: CIVector(x: 155, y: 153), type: kCIAttributeTypePosition),
                FilterInput("inputCrop", .number, default: 1.0, type: kCIAttributeTypeBoolean),
            ]
        ) { inputs in
            guard let image = inputs.image() else { return nil }
            let corners = ["inputBottomLeft", "inputBottomRight", "inputTopRight", "inputTopLeft"].map { inputs.vector($0).cgPointValue }
            return GeometryFilters.perspectiveCorrection(image, corners: corners)
        },
    ]

    /// Turns the image by `angle` about its centre and scales it up just enough that it fills its original extent
    /// again (no transparent corners), then crops to that extent: what CIStraightenFilter does.
    static func straighten(_ image: CIImage, angle: Double) -> CIImage {
        let extent = image.extent
        guard angle != 0, !extent.isNull, !extent.isEffectivelyInfinite else { return image }
        let (w, h) = (Double(extent.width), Double(extent.height))
        let (c, s) = (abs(cos(angle)), abs(sin(angle)))
        let scale = max((w * c + h * s) / w, (w * s + h * c) / h)
        let centre = CGPoint(x: extent.midX, y: extent.midY)
        let transform = CGAffineTransform(translationX: -centre.x, y: -centre.y)
            .concatenating(CGAffineTransform(rotationAngle: angle))
            .concatenating(CGAffineTransform(scaleX: scale, y: scale))
            .concatenating(CGAffineTransform(translationX: centre.x, y: centre.y))
        // The edges are clamped first, so the pixels along the border sample the image, not its transparent surround.
        return image.clampedToExtent().transformed(by: transform).cropped(to: extent)
    }

    /// The quadrilateral (bottom-left, bottom-right, top-right, top-left) mapped onto an upright rectangle as wide as
    /// its longer horizontal edge and as high as its longer vertical edge, placed at the quadrilateral's lower-left
    /// bounding corner.
    static func perspectiveCorrection(_ image: CIImage, corners: [CGPoint]) -> CIImage {
        func length(_ a: CGPoint, _ b: CGPoint) -> Double { Double(hypot(a.x - b.x, a.y - b.y)) }
        let width = max(length(corners[0], corners[1]), length(corners[3], corners[2])).rounded()
        let height = max(length(corners[0], corners[3]), length(corners[1], corners[2])).rounded()
        guard width >= 1, height >= 1 else { return .empty() }
        let origin = CGPoint(x: corners.map(\.x).min()!.rounded(), y: corners.map(\.y).min()!.rounded())
        let extent = CGRect(x: origin.x, y: origin.y, width: width, height: height)
        // Output (x, y) → unit square (u, v) → the quadrilateral.
        let q = HomographyNode.squareToQuad(corners)
        let (ox, oy) = (Double(origin.x), Double(origin.y))
        // Compose with u = (x − ox) / width, v = (y − oy) / height.
        let h = [
            q[0] / width, q[1] / height, q[2] - q[0] * ox / width - q[1] * oy / height,
            q[3] / width, q[4] / height, q[5] - q[3] * ox / width - q[4] * oy / height,
            q[6] / width, q[7] / height,
        ]
        let constant = 1 - q[6] * ox / width - q[7] * oy / height
        let normalised = h.map { $0 / constant }
        let area = CGRect(
            x: corners.map(\.x).min()!, y: corners.map(\.y).min()!, width: corners.map(\.x).max()! - corners.map(\.x).min()!,
            height: corners.map(\.y).max()! - corners.map(\.y).min()!)
        return CIImage(node: HomographyNode(image.node, homography: normalised, outputExtent: extent, sourceArea: area), properties: image.properties)
    }
}
