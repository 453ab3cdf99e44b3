import Foundation
import OpenPhotos
import OpenCoreImage

/// OpenPhotoKit's own adjustment format, `org.openphotokit.adjustment` 1.0: an edit as a list of steps rendered
/// through Core Image, JSON-encoded into ``PHAdjustmentData``.
///
/// The recipe is resumable: an editor that can handle it gets the previous version and the recipe back, and a new
/// step of a kind the recipe already has replaces it (``setting(_:)``) instead of stacking a second rendering. Steps
/// render in a fixed order whatever order they were set in — geometry (crop, rotate, flip, straighten), then light
/// and colour, then the look, then the vignette — as the Photos app's adjustments do.
public struct PhotoEditRecipe: Codable, Sendable, Equatable {
    /// The format identifier written into adjustment data.
    public static let formatIdentifier = "org.openphotokit.adjustment"
    /// The format version written; recipes of another major version are not handled.
    public static let formatVersion = "1.0"
    /// The most steps a recipe holds (one of each kind is all a recipe needs; more is hostile).
    public static let maximumSteps = 32

    /// One adjustment.
    public enum Step: Codable, Sendable, Equatable {
        /// The part of the original kept, in the upright original's unit square, origin at the top left (as
        /// `PHImageRequestOptions.normalizedCropRect`).
        case crop(x: Double, y: Double, width: Double, height: Double)
        /// Quarter turns clockwise (1, 2 or 3).
        case rotate(quarterTurns: Int)
        /// Mirrored left to right.
        case flip
        /// A small turn, in degrees counter-clockwise, filling the frame (CIStraightenFilter).
        case straighten(degrees: Double)
        /// Exposure in EV (CIExposureAdjust).
        case exposure(ev: Double)
        /// Contrast, 1 unchanged (CIColorControls).
        case contrast(Double)
        /// Saturation, 1 unchanged (CIColorControls).
        case saturation(Double)
        /// Vibrance, −1…1 (CIVibrance).
        case vibrance(Double)
        /// Warmth, −1 (cooler) … 1 (warmer): the neutral moves 3,000 K (CITemperatureAndTint).
        case warmth(Double)
        /// Tint, −1 (green) … 1 (magenta) (CITemperatureAndTint).
        case tint(Double)
        /// Highlights, −1 (pulled down) … 0 (CIHighlightShadowAdjust).
        case highlights(Double)
        /// Shadows, −1 … 1 (lifted) (CIHighlightShadowAdjust).
        case shadows(Double)
        /// A look: chrome, fade, instant, mono, noir, process, tonal or transfer (the CIPhotoEffect filters).
        case look(String)
        /// Vignette intensity, −1…1 (CIVignette).
        case vignette(intensity: Double)

        /// The kind of step, for replacing and resetting ("crop", "exposure" …).
        public var kind: String {
            switch self {
            case .crop: "crop"
            case .rotate: "rotate"
            case .flip: "flip"
            case .straighten: "straighten"
            case .exposure: "exposure"
            case .contrast: "contrast"
            case .saturation: "saturation"
            case .vibrance: "vibrance"
            case .warmth: "warmth"
            case .tint: "tint"
            case .highlights: "highlights"
            case .shadows: "shadows"
            case .look: "look"
            case .vignette: "vignette"
            }
        }

        /// The kinds of steps, in the order they render.
        public static let order = [
            "crop", "rotate", "flip", "straighten", "exposure", "contrast", "saturation", "vibrance", "warmth", "tint", "highlights",
            "shadows", "look", "vignette",
        ]
        /// The looks (CIPhotoEffect filters) a recipe names.
        public static let looks = ["chrome", "fade", "instant", "mono", "noir", "process", "tonal", "transfer"]

        /// Why the step is not acceptable (a value out of its range, an unknown look), or nil.
        public var problem: String? {
            func finite(_ values: Double...) -> Bool { values.allSatisfy(\.isFinite) }
            switch self {
            case .crop(let x, let y, let w, let h):
                guard finite(x, y, w, h), x >= 0, y >= 0, w > 0, h > 0, x + w <= 1 + 1e-9, y + h <= 1 + 1e-9 else {
                    return "the crop must lie inside the unit square"
                }
            case .rotate(let turns): if !(1...3).contains(turns) { return "a rotation is 1, 2 or 3 quarter turns" }
            case .flip: break
            case .straighten(let degrees): if !finite(degrees) || abs(degrees) > 45 { return "straightening is at most 45°" }
            case .exposure(let ev): if !finite(ev) || abs(ev) > 10 { return "exposure is −10…10 EV" }
            case .contrast(let v), .saturation(let v): if !finite(v) || v < 0 || v > 4 { return "\(kind) is 0…4" }
            case .vibrance(let v), .warmth(let v), .tint(let v), .shadows(let v), .vignette(let v):
                if !finite(v) || abs(v) > 1 { return "\(kind) is −1…1" }
            case .highlights(let v): if !finite(v) || v < -1 || v > 0 { return "highlights is −1…0" }
            case .look(let name): if !Self.looks.contains(name) { return "no look \(name)" }
            }
            return nil
        }
    }

    /// The steps, at most one of each kind.
    public private(set) var steps: [Step]

    /// An empty recipe (renders the original unchanged).
    public init() { steps = [] }

    /// A recipe of these steps; later steps of a kind replace earlier ones. Nil when a step is out of range.
    public init?(steps: [Step]) {
        self.init()
        for step in steps {
            guard step.problem == nil else { return nil }
            self = setting(step)
        }
    }

    /// The recipe with `step` set, replacing a step of its kind. Steps are kept in render order (``Step/order``),
    /// so the same adjustments always make the same recipe, whatever order they were set in.
    public func setting(_ step: Step) -> PhotoEditRecipe {
        var copy = self
        copy.steps.removeAll { $0.kind == step.kind }
        let rank = { (kind: String) in Step.order.firstIndex(of: kind) ?? Step.order.count }
        let position = copy.steps.firstIndex { rank($0.kind) > rank(step.kind) } ?? copy.steps.endIndex
        copy.steps.insert(step, at: position)
        return copy
    }

    /// The recipe without steps of `kind` ("exposure", "crop" …).
    public func resetting(_ kind: String) -> PhotoEditRecipe {
        var copy = self
        copy.steps.removeAll { $0.kind == kind }
        return copy
    }

    // MARK: Adjustment data

    /// Whether adjustment data is a recipe this version reads: the identifier, and a 1.x version.
    public static func canHandle(_ adjustmentData: PHAdjustmentData) -> Bool {
        adjustmentData.formatIdentifier == formatIdentifier && adjustmentData.formatVersion.split(separator: ".").first == "1"
    }

    /// The recipe in adjustment data; nil when it is another format, a newer major version, malformed, over the
    /// size limit, longer than ``maximumSteps`` or out of range (hostile data is never interpreted further).
    public init?(adjustmentData: PHAdjustmentData) {
        guard Self.canHandle(adjustmentData), adjustmentData.data.count <= PHAdjustmentData.maximumDataSize,
            let decoded = try? JSONDecoder().decode(Encoded.self, from: adjustmentData.data), decoded.steps.count <= Self.maximumSteps
        else { return nil }
        self.init(steps: decoded.steps)
    }

    private struct Encoded: Codable {
        var steps: [Step]
    }

    /// The recipe as adjustment data (JSON, keys sorted: the same recipe gives the same bytes).
    public var adjustmentData: PHAdjustmentData {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(Encoded(steps: steps))) ?? Data(#"{"steps":[]}"#.utf8)
        return PHAdjustmentData(formatIdentifier: Self.formatIdentifier, formatVersion: Self.formatVersion, data: data)
    }

    // MARK: Rendering

    /// The recipe applied to an upright original (its extent at the origin).
    public func apply(to original: CIImage) -> CIImage {
        var image = original
        var controls: (saturation: Double, contrast: Double) = (1, 1)
        var temperature: (warmth: Double, tint: Double) = (0, 0)
        var light: (highlights: Double, shadows: Double) = (0, 0)
        // In render order whatever the steps' order (a recipe decoded with Codable keeps the order it was stored in).
        let ordered = steps.sorted { Step.order.firstIndex(of: $0.kind)! < Step.order.firstIndex(of: $1.kind)! }
        for step in ordered {
            switch step {
            case .crop(let x, let y, let w, let h):
                let e = image.extent
                let rect = CGRect(x: e.minX + x * e.width, y: e.minY + (1 - y - h) * e.height, width: w * e.width, height: h * e.height)
                image = image.cropped(
                    to: CGRect(x: rect.minX.rounded(), y: rect.minY.rounded(), width: rect.width.rounded(), height: rect.height.rounded()))
                image = image.transformed(by: CGAffineTransform(translationX: -image.extent.minX, y: -image.extent.minY))
            case .rotate(let turns):
                // Clockwise quarter turns: EXIF 6 (90°), 3 (180°), 8 (270°).
                image = image.oriented(forExifOrientation: [6, 3, 8][turns - 1])
            case .flip:
                image = image.oriented(forExifOrientation: 2)
            case .straighten(let degrees):
                image = image.applyingFilter("CIStraightenFilter", parameters: [kCIInputAngleKey: degrees * .pi / 180])
            case .exposure(let ev):
                image = image.applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: ev])
            case .contrast(let c):
                controls.contrast = c
            case .saturation(let s):
                controls.saturation = s
            case .vibrance(let amount):
                image = Self.flushControls(image, &controls).applyingFilter("CIVibrance", parameters: [kCIInputAmountKey: amount])
            case .warmth(let w):
                temperature.warmth = w
            case .tint(let t):
                temperature.tint = t
            case .highlights(let h):
                light.highlights = h
            case .shadows(let s):
                light.shadows = s
            case .look(let name):
                image = Self.flushAll(image, &controls, &temperature, &light).applyingFilter(
                    "CIPhotoEffect" + name.prefix(1).uppercased() + name.dropFirst())
            case .vignette(let intensity):
                image = Self.flushAll(image, &controls, &temperature, &light).applyingFilter(
                    "CIVignette", parameters: [kCIInputIntensityKey: intensity, kCIInputRadiusKey: 1])
            }
        }
        return Self.flushAll(image, &controls, &temperature, &light)
    }

    private static func flushControls(_ image: CIImage, _ controls: inout (saturation: Double, contrast: Double)) -> CIImage {
        guard controls != (1, 1) else { return image }
        defer { controls = (1, 1) }
        return image.applyingFilter(
            "CIColorControls", parameters: [kCIInputSaturationKey: controls.saturation, kCIInputContrastKey: controls.contrast])
    }

    private static func flushAll(
        _ image: CIImage, _ controls: inout (saturation: Double, contrast: Double), _ temperature: inout (warmth: Double, tint: Double),
        _ light: inout (highlights: Double, shadows: Double)
    ) -> CIImage {
        var image = flushControls(image, &controls)
        if temperature != (0, 0) {
            // Warmer: declare the light bluer than it was, so the picture is corrected towards yellow.
            image = image.applyingFilter(
                "CITemperatureAndTint",
                parameters: [
                    "inputNeutral": CIVector(x: 6500 + 3000 * temperature.warmth, y: 100 * temperature.tint),
                    "inputTargetNeutral": CIVector(x: 6500, y: 0),
                ])
            temperature = (0, 0)
        }
        if light != (0, 0) {
            image = image.applyingFilter(
                "CIHighlightShadowAdjust", parameters: ["inputHighlightAmount": 1 + light.highlights, "inputShadowAmount": light.shadows])
            light = (0, 0)
        }
        return image
    }
}
