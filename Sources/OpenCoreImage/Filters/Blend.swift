import CVipsShims
import Foundation

/// Porter-Duff and blend-mode formulas on premultiplied RGBA (4 bands, float).
enum Blend {
    /// Source over: `F + B × (1 − αF)`.
    static func sourceOver(_ front: VImage, _ back: VImage) throws(VipsError) -> VImage {
        let inverse = try front.band(3).linear([-1], [1])
        let covered = try VipsCall("multiply").image("left", back).image("right", inverse).output()
        return try VipsCall("add").image("left", front).image("right", covered).output()
    }
}
