#!/usr/bin/env python3
"""Generates Sources/OpenCoreImage/CIFilterBuiltins: one file per CIFilterBuiltins protocol (Apple's typed filter
API: `CIFilter.sepiaTone()` returning `CIFilter & CISepiaTone` with `inputImage` and `intensity`), each with its
protocol, the class that implements it over the filter's key-value inputs, and the factory. Rerun after editing the
table; the output is committed (`*.GENERATED.swift`, already as `swift format` writes it), and a test runs this
script with `--check` so a stale file fails the suite."""
import os

# (factory, filter name, [(property, key, type)]). Types: image, float, vector, color, data, bool, point, transform, space.
I = ("inputImage", "inputImage", "image")
B = ("backgroundImage", "inputBackgroundImage", "image")
FILTERS = [
    ("exposureAdjust", "CIExposureAdjust", [I, ("ev", "inputEV", "float")]),
    ("gammaAdjust", "CIGammaAdjust", [I, ("power", "inputPower", "float")]),
    ("colorControls", "CIColorControls", [I, ("saturation", "inputSaturation", "float"), ("brightness", "inputBrightness", "float"), ("contrast", "inputContrast", "float")]),
    ("hueAdjust", "CIHueAdjust", [I, ("angle", "inputAngle", "float")]),
    ("vibrance", "CIVibrance", [I, ("amount", "inputAmount", "float")]),
    ("temperatureAndTint", "CITemperatureAndTint", [I, ("neutral", "inputNeutral", "vector"), ("targetNeutral", "inputTargetNeutral", "vector")]),
    ("whitePointAdjust", "CIWhitePointAdjust", [I, ("color", "inputColor", "color")]),
    ("colorMatrix", "CIColorMatrix", [I, ("rVector", "inputRVector", "vector"), ("gVector", "inputGVector", "vector"), ("bVector", "inputBVector", "vector"), ("aVector", "inputAVector", "vector"), ("biasVector", "inputBiasVector", "vector")]),
    ("colorClamp", "CIColorClamp", [I, ("minComponents", "inputMinComponents", "vector"), ("maxComponents", "inputMaxComponents", "vector")]),
    ("colorPolynomial", "CIColorPolynomial", [I, ("redCoefficients", "inputRedCoefficients", "vector"), ("greenCoefficients", "inputGreenCoefficients", "vector"), ("blueCoefficients", "inputBlueCoefficients", "vector"), ("alphaCoefficients", "inputAlphaCoefficients", "vector")]),
    ("toneCurve", "CIToneCurve", [I] + [("point%d" % i, "inputPoint%d" % i, "point") for i in range(5)]),
    ("colorCube", "CIColorCube", [I, ("cubeDimension", "inputCubeDimension", "float"), ("cubeData", "inputCubeData", "data"), ("extrapolate", "inputExtrapolate", "bool")]),
    ("colorCubeWithColorSpace", "CIColorCubeWithColorSpace", [I, ("cubeDimension", "inputCubeDimension", "float"), ("cubeData", "inputCubeData", "data"), ("colorSpace", "inputColorSpace", "space"), ("extrapolate", "inputExtrapolate", "bool")]),
    ("colorInvert", "CIColorInvert", [I]),
    ("colorMonochrome", "CIColorMonochrome", [I, ("color", "inputColor", "color"), ("intensity", "inputIntensity", "float")]),
    ("colorPosterize", "CIColorPosterize", [I, ("levels", "inputLevels", "float")]),
    ("sepiaTone", "CISepiaTone", [I, ("intensity", "inputIntensity", "float")]),
    ("photoEffectChrome", "CIPhotoEffectChrome", [I]),
    ("photoEffectFade", "CIPhotoEffectFade", [I]),
    ("photoEffectInstant", "CIPhotoEffectInstant", [I]),
    ("photoEffectMono", "CIPhotoEffectMono", [I]),
    ("photoEffectNoir", "CIPhotoEffectNoir", [I]),
    ("photoEffectProcess", "CIPhotoEffectProcess", [I]),
    ("photoEffectTonal", "CIPhotoEffectTonal", [I]),
    ("photoEffectTransfer", "CIPhotoEffectTransfer", [I]),
    ("vignette", "CIVignette", [I, ("intensity", "inputIntensity", "float"), ("radius", "inputRadius", "float")]),
    ("vignetteEffect", "CIVignetteEffect", [I, ("center", "inputCenter", "point"), ("radius", "inputRadius", "float"), ("intensity", "inputIntensity", "float"), ("falloff", "inputFalloff", "float")]),
    ("highlightShadowAdjust", "CIHighlightShadowAdjust", [I, ("radius", "inputRadius", "float"), ("shadowAmount", "inputShadowAmount", "float"), ("highlightAmount", "inputHighlightAmount", "float")]),
    ("gaussianBlur", "CIGaussianBlur", [I, ("radius", "inputRadius", "float")]),
    ("boxBlur", "CIBoxBlur", [I, ("radius", "inputRadius", "float")]),
    ("discBlur", "CIDiscBlur", [I, ("radius", "inputRadius", "float")]),
    ("motionBlur", "CIMotionBlur", [I, ("radius", "inputRadius", "float"), ("angle", "inputAngle", "float")]),
    ("unsharpMask", "CIUnsharpMask", [I, ("radius", "inputRadius", "float"), ("intensity", "inputIntensity", "float")]),
    ("sharpenLuminance", "CISharpenLuminance", [I, ("sharpness", "inputSharpness", "float"), ("radius", "inputRadius", "float")]),
    ("noiseReduction", "CINoiseReduction", [I, ("noiseLevel", "inputNoiseLevel", "float"), ("sharpness", "inputSharpness", "float")]),
    ("pixellate", "CIPixellate", [I, ("center", "inputCenter", "point"), ("scale", "inputScale", "float")]),
    ("affineTransform", "CIAffineTransform", [I, ("transform", "inputTransform", "transform")]),
    ("straighten", "CIStraightenFilter", [I, ("angle", "inputAngle", "float")]),
    ("lanczosScaleTransform", "CILanczosScaleTransform", [I, ("scale", "inputScale", "float"), ("aspectRatio", "inputAspectRatio", "float")]),
    ("perspectiveCorrection", "CIPerspectiveCorrection", [I, ("topLeft", "inputTopLeft", "point"), ("topRight", "inputTopRight", "point"), ("bottomRight", "inputBottomRight", "point"), ("bottomLeft", "inputBottomLeft", "point"), ("crop", "inputCrop", "bool")]),
    ("sourceOverCompositing", "CISourceOverCompositing", [I, B]),
    ("multiplyCompositing", "CIMultiplyCompositing", [I, B]),
    ("screenBlendMode", "CIScreenBlendMode", [I, B]),
    ("linearDodgeBlendMode", "CILinearDodgeBlendMode", [I, B]),
    ("blendWithMask", "CIBlendWithMask", [I, B, ("maskImage", "inputMaskImage", "image")]),
    ("blendWithAlphaMask", "CIBlendWithAlphaMask", [I, B, ("maskImage", "inputMaskImage", "image")]),
    ("constantColorGenerator", "CIConstantColorGenerator", [("color", "inputColor", "color")]),
    ("linearGradient", "CILinearGradient", [("point0", "inputPoint0", "point"), ("point1", "inputPoint1", "point"), ("color0", "inputColor0", "color"), ("color1", "inputColor1", "color")]),
    ("smoothLinearGradient", "CISmoothLinearGradient", [("point0", "inputPoint0", "point"), ("point1", "inputPoint1", "point"), ("color0", "inputColor0", "color"), ("color1", "inputColor1", "color")]),
    ("gaussianGradient", "CIGaussianGradient", [("center", "inputCenter", "point"), ("color0", "inputColor0", "color"), ("color1", "inputColor1", "color"), ("radius", "inputRadius", "float")]),
    ("hueSaturationValueGradient", "CIHueSaturationValueGradient", [("value", "inputValue", "float"), ("radius", "inputRadius", "float"), ("softness", "inputSoftness", "float"), ("dither", "inputDither", "float"), ("colorSpace", "inputColorSpace", "space")]),
    ("radialGradient", "CIRadialGradient", [("center", "inputCenter", "point"), ("radius0", "inputRadius0", "float"), ("radius1", "inputRadius1", "float"), ("color0", "inputColor0", "color"), ("color1", "inputColor1", "color")]),
    ("checkerboardGenerator", "CICheckerboardGenerator", [("center", "inputCenter", "point"), ("color0", "inputColor0", "color"), ("color1", "inputColor1", "color"), ("width", "inputWidth", "float"), ("sharpness", "inputSharpness", "float")]),
]

# Protocol names: Apple names the protocol after the filter, except where the filter name has a suffix.
PROTOCOL = {"CIStraightenFilter": "CIStraighten"}

SWIFT = {
    "image": ("CIImage?", "value(forKey: {k}) as? CIImage", "setValue(newValue, forKey: {k})"),
    "float": ("Float", "number({k})", "setNumber(newValue, {k})"),
    "vector": ("CIVector", "(value(forKey: {k}) as? CIVector) ?? CIVector([])", "setValue(newValue, forKey: {k})"),
    "color": ("CIColor", "(value(forKey: {k}) as? CIColor) ?? CIColor.black", "setValue(newValue, forKey: {k})"),
    "data": ("Data", "(value(forKey: {k}) as? Data) ?? Data()", "setValue(newValue, forKey: {k})"),
    "bool": ("Bool", "number({k}) != 0", "setNumber(newValue ? 1 : 0, {k})"),
    "point": ("CGPoint", "((value(forKey: {k}) as? CIVector) ?? CIVector([])).cgPointValue", "setValue(CIVector(cgPoint: newValue), forKey: {k})"),
    "transform": ("CGAffineTransform", "(value(forKey: {k}) as? CGAffineTransform) ?? .identity", "setValue(newValue, forKey: {k})"),
    "space": ("CGColorSpace?", "value(forKey: {k}) as? CGColorSpace", "setValue(newValue, forKey: {k})"),
}

import sys

# --check: write nothing; list the files that differ from what the table makes (exit status 1 when any does).
check = "--check" in sys.argv[1:]
out = os.path.join(os.path.dirname(__file__), "..", "Sources", "OpenCoreImage", "CIFilterBuiltins")
generated = {}
for factory, filter_name, properties in FILTERS:
    protocol = PROTOCOL.get(filter_name, filter_name)
    lines = [
        "// GENERATED by scripts/generate-filter-builtins.py from its table: edit the table there, then run it.",
        "import Foundation",
        "",
        "/// The typed inputs of `%s` (Core Image's `CIFilterBuiltins`)." % filter_name,
        "public protocol %s: CIFilterProtocol {" % protocol,
    ]
    for prop, key, kind in properties:
        lines.append("    /// The filter's `%s` input." % key)
        lines.append("    var %s: %s { get set }" % (prop, SWIFT[kind][0]))
    lines += ["}", "", "final class Builtin%s: CIFilter, %s, @unchecked Sendable {" % (protocol, protocol)]
    for prop, key, kind in properties:
        swift_type, getter, setter = SWIFT[kind]
        k = '"%s"' % key
        lines += [
            "    var %s: %s {" % (prop, swift_type),
            "        get { %s }" % getter.format(k=k),
            "        set { %s }" % setter.format(k=k),
            "    }",
        ]
    lines += [
        "}",
        "",
        "extension CIFilter {",
        "    /// `%s` with its inputs at their defaults, typed." % filter_name,
        "    public class func %s() -> any CIFilter & %s {" % (factory, protocol),
        '        Builtin%s(definition: FilterRegistry.definitions["%s"]!)' % (protocol, filter_name),
        "    }",
        "}",
        "",
    ]
    generated[protocol + ".GENERATED.swift"] = "\n".join(lines)

existing = {name for name in os.listdir(out) if name.endswith(".swift") and name != "CIFilterProtocol.swift"}
if check:
    stale = sorted(name for name in existing | set(generated)
                   if name not in generated or name not in existing or open(os.path.join(out, name)).read() != generated[name])
    for name in stale:
        print("stale: Sources/OpenCoreImage/CIFilterBuiltins/%s" % name)
    if stale:
        print("run scripts/generate-filter-builtins.py", file=sys.stderr)
    sys.exit(1 if stale else 0)
for name in existing:
    os.remove(os.path.join(out, name))
for name, text in generated.items():
    with open(os.path.join(out, name), "w") as f:
        f.write(text)
print("wrote %d builtins" % len(FILTERS))
