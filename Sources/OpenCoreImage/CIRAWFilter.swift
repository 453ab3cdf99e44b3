import CRaw
import Foundation

/// A camera RAW file developed into an image, with the controls of Core Image's RAW filter.
///
/// ```swift
/// guard let raw = CIRAWFilter(imageURL: url) else { return }  // nil: not a RAW file LibRaw reads
/// raw.exposure = 0.5
/// raw.neutralTemperature = 5200
/// let image = raw.outputImage
/// ```
///
/// RAW files are read by LibRaw (Debian's `libraw20`; libvips 8.14 has no RAW loader): DNG from any camera or phone
/// (Apple ProRAW included) and the proprietary formats of the cameras in ``supportedCameraModels`` — Canon CR2/CR3,
/// Nikon NEF, Sony ARW, Fujifilm RAF, Olympus ORF, Panasonic RW2, Pentax PEF … The mosaic is demosaiced (AHD, or
/// bilinear in draft mode) with the camera's as-shot white balance into linear sRGB primaries; the filter then applies
/// the exposure (plus the file's baseline exposure), a white balance relative to the as-shot one
/// (``neutralTemperature``, ``neutralTint``), the boost (a contrast curve, 0 for the linear rendering), the
/// orientation and the scale. Noise reduction, sharpening, lens correction and local tone mapping are not done here:
/// their `is…Supported` properties are false and their amounts are kept but not applied, as Core Image does for a file
/// that does not support them.
///
/// LibRaw decodes in the calling process, as Core Image does: develop untrusted RAW files in a process that can
/// afford to crash (an editing extension runs in its own sandbox). The photo library never develops RAW files itself.
open class CIRAWFilter: CIFilter, @unchecked Sendable {
    private let source: RAWSource
    private let settings = NSLock()
    private var state: RAWSettings

    /// The RAW file at `url`; nil when it cannot be read as one.
    public convenience init?(imageURL url: URL) {
        guard let source = RAWSource(url: url) else { return nil }
        self.init(source: source)
    }

    /// A RAW file's bytes; `identifierHint` (a type identifier such as "com.adobe.raw-image") is not needed to read
    /// them. Nil when they cannot be read as a RAW file.
    public convenience init?(imageData data: Data, identifierHint: String?) {
        guard let source = RAWSource(data: data) else { return nil }
        self.init(source: source)
    }

    private init(source: RAWSource) {
        self.source = source
        self.state = RAWSettings(source.info)
        super.init(definition: FilterDefinition(name: "CIRAWFilter", displayName: "RAW", categories: [], inputs: [], apply: { _ in nil }))
    }

    /// The camera models whose proprietary RAW formats can be read ("Canon EOS R5" …); DNG is read from any camera.
    open class var supportedCameraModels: [String] {
        (0..<Int(craw_camera_count())).compactMap { craw_camera(Int32($0)).map { String(cString: $0) } }
    }

    private func read<T>(_ key: KeyPath<RAWSettings, T>) -> T { settings.withLock { state[keyPath: key] } }
    private func write<T>(_ key: WritableKeyPath<RAWSettings, T>, _ value: T) { settings.withLock { state[keyPath: key] = value } }

    /// The full size of the developed image before its orientation and scale, in pixels.
    open var nativeSize: CGSize { CGSize(width: Int(source.info.width), height: Int(source.info.height)) }

    /// The file's properties: `Orientation`, and the camera's make and model in the `{TIFF}` dictionary.
    open var properties: [AnyHashable: Any] {
        [
            "Orientation": Int(source.info.orientation), "PixelWidth": Int(source.info.width), "PixelHeight": Int(source.info.height),
            "{TIFF}": ["Make": source.make, "Model": source.model],
        ]
    }

    /// The JPEG preview the camera embedded in the file, if any.
    open var previewImage: CIImage? { source.preview.flatMap { CIImage(data: $0) } }

    /// Exposure in EV, added to ``baselineExposure``: +1 doubles the light. 0 by default.
    open var exposure: Float {
        get { read(\.exposure) }
        set { write(\.exposure, newValue) }
    }

    /// The exposure the file asks for (DNG's BaselineExposure; 0 for other formats).
    open var baselineExposure: Float {
        get { read(\.baselineExposure) }
        set { write(\.baselineExposure, newValue) }
    }

    /// How much of the contrast curve is applied: 1 (the default) for the full curve, 0 for the linear response.
    open var boostAmount: Float {
        get { read(\.boostAmount) }
        set { write(\.boostAmount, min(1, max(0, newValue))) }
    }

    /// The temperature of the scene's light in kelvin; the as-shot estimate by default (6500 when the file has none).
    /// A higher value renders warmer, as Core Image's.
    open var neutralTemperature: Float {
        get { read(\.neutralTemperature) ?? source.asShotTemperature }
        set { write(\.neutralTemperature, newValue) }
    }

    /// The tint of the scene's light (green −, magenta +); 0 by default.
    open var neutralTint: Float {
        get { read(\.neutralTint) ?? 0 }
        set { write(\.neutralTint, newValue) }
    }

    /// Faster, lower-quality demosaicing (bilinear instead of AHD). Off by default.
    open var isDraftModeEnabled: Bool {
        get { read(\.draft) }
        set { write(\.draft, newValue) }
    }

    /// The scale the image is wanted at (1 by default): the output's extent is scaled by it, and at 0.5 or less the
    /// file is developed at half size, which is faster.
    open var scaleFactor: Float {
        get { read(\.scaleFactor) }
        set { write(\.scaleFactor, max(0, newValue)) }
    }

    /// The orientation applied to the output; the file's by default.
    open var orientation: CGImagePropertyOrientation {
        get { read(\.orientation) }
        set { write(\.orientation, newValue) }
    }

    /// False: lens correction is not done here.
    open var isLensCorrectionSupported: Bool { false }
    /// Kept, not applied (see ``isLensCorrectionSupported``).
    open var isLensCorrectionEnabled: Bool {
        get { read(\.lensCorrection) }
        set { write(\.lensCorrection, newValue) }
    }
    /// False: luminance noise reduction is not done here.
    open var isLuminanceNoiseReductionSupported: Bool { false }
    /// Kept, not applied (see ``isLuminanceNoiseReductionSupported``).
    open var luminanceNoiseReductionAmount: Float {
        get { read(\.luminanceNoiseReduction) }
        set { write(\.luminanceNoiseReduction, newValue) }
    }
    /// False: colour noise reduction is not done here.
    open var isColorNoiseReductionSupported: Bool { false }
    /// Kept, not applied (see ``isColorNoiseReductionSupported``).
    open var colorNoiseReductionAmount: Float {
        get { read(\.colorNoiseReduction) }
        set { write(\.colorNoiseReduction, newValue) }
    }
    /// False: sharpening is not done here.
    open var isSharpnessSupported: Bool { false }
    /// Kept, not applied (see ``isSharpnessSupported``).
    open var sharpnessAmount: Float {
        get { read(\.sharpness) }
        set { write(\.sharpness, newValue) }
    }
    /// False: local tone mapping is not done here.
    open var isLocalToneMapSupported: Bool { false }
    /// Kept, not applied (see ``isLocalToneMapSupported``).
    open var localToneMapAmount: Float {
        get { read(\.localToneMap) }
        set { write(\.localToneMap, newValue) }
    }

    /// The developed image with the settings applied; nil when LibRaw cannot develop the file.
    open override var outputImage: CIImage? {
        let settings = settings.withLock { state }
        let half = settings.scaleFactor > 0 && settings.scaleFactor <= 0.5
        guard let developed = source.develop(draft: settings.draft, half: half) else { return nil }
        var image = CIImage(cgImage: developed)
        let ev = settings.exposure + settings.baselineExposure
        if ev != 0 { image = image.applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: Double(ev)]) }
        // A white balance of the caller's, relative to the as-shot one the development used.
        if settings.neutralTemperature != nil || settings.neutralTint != nil {
            let asShot = source.asShotTemperature
            let (temperature, tint) = (settings.neutralTemperature ?? asShot, settings.neutralTint ?? 0)
            if temperature != asShot || tint != 0 {
                image = image.applyingFilter(
                    "CITemperatureAndTint",
                    parameters: [
                        "inputNeutral": CIVector(x: CGFloat(temperature), y: CGFloat(tint)),
                        "inputTargetNeutral": CIVector(x: CGFloat(asShot), y: 0),
                    ])
            }
        }
        if settings.boostAmount > 0 {
            // A contrast curve on the perceptual values (smoothstep), mixed in by the amount.
            let amount = Double(settings.boostAmount)
            image = image.colourKernel { (rgb) throws(VipsError) -> VImage in
                try rgb.perceptualCurve { x in x + amount * (x * x * (3 - 2 * x) - x) }
            }
        }
        image = image.oriented(settings.orientation)
        let scale = Double(settings.scaleFactor) * (half ? 2 : 1)
        if scale != 1, scale > 0 {
            image = image.transformed(by: CGAffineTransform(scaleX: CGFloat(scale), y: CGFloat(scale)), highQualityDownsample: true)
        }
        return image
    }
}

/// The settings of a ``CIRAWFilter``.
private struct RAWSettings {
    var exposure: Float = 0
    var baselineExposure: Float
    var boostAmount: Float = 1
    /// nil: as shot.
    var neutralTemperature: Float?
    /// nil: as shot (0).
    var neutralTint: Float?
    var draft = false
    var scaleFactor: Float = 1
    var orientation: CGImagePropertyOrientation
    var lensCorrection = false
    var luminanceNoiseReduction: Float = 0
    var colorNoiseReduction: Float = 0
    var sharpness: Float = 0
    var localToneMap: Float = 0

    init(_ info: craw_info) {
        baselineExposure = info.baseline_exposure
        orientation = CGImagePropertyOrientation(rawValue: UInt32(info.orientation)) ?? .up
    }
}

/// A RAW file: its bytes or path, what LibRaw said of it, and its developments (one per draft × half-size).
private final class RAWSource: @unchecked Sendable {
    let url: URL?
    let data: Data?
    let info: craw_info
    private let lock = NSLock()
    private var developed: [Int: CGImage] = [:]

    init?(url: URL) {
        self.url = url
        self.data = nil
        guard let opened = Self.open(url: url, data: nil) else { return nil }
        craw_close(opened.file)
        self.info = opened.info
    }

    init?(data: Data) {
        self.url = nil
        self.data = data
        guard let opened = Self.open(url: nil, data: data) else { return nil }
        craw_close(opened.file)
        self.info = opened.info
    }

    var make: String { withUnsafeBytes(of: info.make) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) } }
    var model: String { withUnsafeBytes(of: info.model) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) } }

    /// Opens the file afresh (each development starts from the unpacked mosaic); the caller closes it.
    private static func open(url: URL?, data: Data?) -> (file: OpaquePointer, info: craw_info)? {
        var info = craw_info()
        var error = [CChar](repeating: 0, count: 256)
        let file: OpaquePointer?
        if let url {
            file = craw_open(url.path, nil, 0, &info, &error, error.count)
        } else {
            file = data!.withUnsafeBytes { craw_open(nil, $0.baseAddress, $0.count, &info, &error, error.count) }
        }
        guard let file else { return nil }
        return (file, info)
    }

    /// 16-bit linear sRGB, developed once per mode.
    func develop(draft: Bool, half: Bool) -> CGImage? {
        let key = (draft ? 1 : 0) + (half ? 2 : 0)
        if let image = lock.withLock({ developed[key] }) { return image }
        guard let (file, _) = Self.open(url: url, data: data) else { return nil }
        defer { craw_close(file) }
        var (width, height): (Int32, Int32) = (0, 0)
        var error = [CChar](repeating: 0, count: 256)
        guard let pixels = craw_develop(file, draft ? 1 : 0, half ? 1 : 0, &width, &height, &error, error.count) else { return nil }
        defer { craw_free(pixels) }
        let bytes = Data(bytes: pixels, count: Int(width) * Int(height) * 3 * 2)
        let image = CGImage(
            width: Int(width), height: Int(height), bitsPerComponent: 16, components: 3, bitmapInfo: [],
            colorSpace: CGColorSpace(name: CGColorSpace.linearSRGB), bytes: bytes)
        lock.withLock { developed[key] = image }
        return image
    }

    private var asShot: Float?

    /// The as-shot white balance as a temperature, estimated once (it unpacks the mosaic); 6500 when there is none.
    var asShotTemperature: Float {
        if let known = lock.withLock({ asShot }) { return known }
        var estimate: Float = 0
        if let (file, _) = Self.open(url: url, data: data) {
            estimate = craw_as_shot_temperature(file)
            craw_close(file)
        }
        let temperature = estimate > 0 ? estimate.rounded() : 6500
        lock.withLock { asShot = temperature }
        return temperature
    }

    /// The embedded JPEG preview.
    var preview: Data? {
        guard let (file, _) = Self.open(url: url, data: data) else { return nil }
        defer { craw_close(file) }
        var size = 0
        guard let bytes = craw_preview_jpeg(file, &size) else { return nil }
        defer { craw_free(bytes) }
        return Data(bytes: bytes, count: size)
    }
}
