import Foundation

/// A vector of floating-point values: positions, rectangles, colour-matrix rows and filter coefficients.
public final class CIVector: NSObject, @unchecked Sendable {
    private let values: [CGFloat]

    /// A vector of `count` values read from `values`.
    public init(values: UnsafePointer<CGFloat>, count: Int) {
        self.values = Array(UnsafeBufferPointer(start: values, count: count))
    }

    /// OpenPhotoKit and Swift code: a vector of the values.
    public init(_ values: [CGFloat]) { self.values = values }

    /// A vector of one value.
    public convenience init(x: CGFloat) { self.init([x]) }
    /// A vector of two values.
    public convenience init(x: CGFloat, y: CGFloat) { self.init([x, y]) }
    /// A vector of three values.
    public convenience init(x: CGFloat, y: CGFloat, z: CGFloat) { self.init([x, y, z]) }
    /// A vector of four values.
    public convenience init(x: CGFloat, y: CGFloat, z: CGFloat, w: CGFloat) { self.init([x, y, z, w]) }
    /// A point as (x, y).
    public convenience init(cgPoint p: CGPoint) { self.init([p.x, p.y]) }
    /// A rectangle as (x, y, width, height).
    public convenience init(cgRect r: CGRect) { self.init([r.origin.x, r.origin.y, r.size.width, r.size.height]) }
    /// A transform as (a, b, c, d, tx, ty).
    public convenience init(cgAffineTransform t: CGAffineTransform) { self.init([t.a, t.b, t.c, t.d, t.tx, t.ty]) }

    /// A vector from "[1 2 3]" (as ``stringRepresentation`` writes it).
    public convenience init(string representation: String) {
        self.init(representation.split(whereSeparator: { " [],".contains($0) }).compactMap { Double($0).map { CGFloat($0) } })
    }

    /// The number of values.
    public var count: Int { values.count }
    /// The value at `index` (0 beyond the end, as Core Image answers).
    public func value(at index: Int) -> CGFloat { index < values.count ? values[index] : 0 }
    /// The first value.
    public var x: CGFloat { value(at: 0) }
    /// The second value.
    public var y: CGFloat { value(at: 1) }
    /// The third value.
    public var z: CGFloat { value(at: 2) }
    /// The fourth value.
    public var w: CGFloat { value(at: 3) }
    /// The first two values as a point.
    public var cgPointValue: CGPoint { CGPoint(x: x, y: y) }
    /// The four values as a rectangle (x, y, width, height).
    public var cgRectValue: CGRect { CGRect(x: x, y: y, width: z, height: w) }
    /// The six values as a transform.
    public var cgAffineTransformValue: CGAffineTransform {
        CGAffineTransform(a: value(at: 0), b: value(at: 1), c: value(at: 2), d: value(at: 3), tx: value(at: 4), ty: value(at: 5))
    }
    /// The values as "[1 2 3]".
    public var stringRepresentation: String { "[" + values.map { "\($0)" }.joined(separator: " ") + "]" }

    var doubles: [Double] { values.map { Double($0) } }

    public override func isEqual(_ object: Any?) -> Bool { (object as? CIVector)?.values == values }
    public override var hash: Int { values.hashValue }
    public override var description: String { "<CIVector \(stringRepresentation)>" }
}
