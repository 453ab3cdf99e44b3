// ImageIO's image destination keys, for Linux, under Apple's module name. `CFString` is `String` here (see
// UniformTypeIdentifiers), so the keys work where Apple's code puts them: `kCGImageDestinationLossyCompressionQuality
// as String`, `CIImageRepresentationOption(rawValue: kCGImageDestinationLossyCompressionQuality as String)` and
// dictionaries keyed by `String`. `import CoreImage` brings this module, as on Apple platforms.
@_exported import UniformTypeIdentifiers

/// The quality of a lossy encoding, 0 (smallest) to 1 (best), as an `NSNumber` or a floating-point value.
///
/// Core Image's `CIContext` representations read it under the same name: OpenCoreImage also declares it as a
/// `CIImageRepresentationOption`, so `[kCGImageDestinationLossyCompressionQuality as CIImageRepresentationOption: 0.9]`
/// compiles too; where both readings fit, this one (the `CFString`) is meant.
public let kCGImageDestinationLossyCompressionQuality: CFString = "kCGImageDestinationLossyCompressionQuality"
