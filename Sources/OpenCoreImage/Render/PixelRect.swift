import Foundation

/// A rectangle of whole pixels in Core Image's coordinates (origin at the bottom left, y up): what a node of the
/// pipeline is asked to render. Pixel (x, y) covers [x, x + 1) × [y, y + 1).
struct PixelRect: Hashable, Sendable, CustomStringConvertible {
    var x: Int
    var y: Int
    var width: Int
    var height: Int

    var maxX: Int { x + width }
    var maxY: Int { y + height }
    var isEmpty: Bool { width <= 0 || height <= 0 }
    var area: Int { isEmpty ? 0 : width * height }
    var cgRect: CGRect { CGRect(x: x, y: y, width: width, height: height) }

    /// The whole pixels that `rect` touches (rounded outwards; coordinates within 1/1000 of a pixel edge snap to it).
    init(covering rect: CGRect) {
        let snap = { (value: CGFloat, up: Bool) -> Int in
            let rounded = value.rounded()
            if abs(value - rounded) < 1e-3 { return Int(rounded) }
            return Int(up ? value.rounded(.up) : value.rounded(.down))
        }
        let minX = snap(rect.minX, false), minY = snap(rect.minY, false)
        self.init(x: minX, y: minY, width: snap(rect.maxX, true) - minX, height: snap(rect.maxY, true) - minY)
    }

    init(x: Int, y: Int, width: Int, height: Int) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    func intersection(_ other: PixelRect) -> PixelRect {
        let minX = max(x, other.x), minY = max(y, other.y)
        let maxX = min(self.maxX, other.maxX), maxY = min(self.maxY, other.maxY)
        return PixelRect(x: minX, y: minY, width: max(0, maxX - minX), height: max(0, maxY - minY))
    }

    func contains(_ other: PixelRect) -> Bool {
        other.x >= x && other.y >= y && other.maxX <= maxX && other.maxY <= maxY
    }

    func insetBy(_ d: Int) -> PixelRect { PixelRect(x: x + d, y: y + d, width: width - 2 * d, height: height - 2 * d) }

    var description: String { "[\(x), \(y), \(width)×\(height)]" }
}

extension CGRect {
    /// Whether the rectangle reaches to infinity in some direction (Core Image's infinite extent).
    var isEffectivelyInfinite: Bool {
        isInfinite || abs(minX) > 1e15 || abs(minY) > 1e15 || width > 1e15 || height > 1e15
    }
}
