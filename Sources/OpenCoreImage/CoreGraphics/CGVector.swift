import Foundation

/// CoreGraphics' two-dimensional vector (what Core Image's motion and direction parameters take on Apple platforms).
public struct CGVector: Sendable, Hashable, Codable, CustomStringConvertible {
    public var dx: CGFloat
    public var dy: CGFloat

    /// The zero vector.
    public init() { (dx, dy) = (0, 0) }
    public init(dx: CGFloat, dy: CGFloat) { (self.dx, self.dy) = (dx, dy) }
    public init(dx: Double, dy: Double) { (self.dx, self.dy) = (CGFloat(dx), CGFloat(dy)) }
    public init(dx: Int, dy: Int) { (self.dx, self.dy) = (CGFloat(dx), CGFloat(dy)) }

    /// The zero vector.
    public static let zero = CGVector()

    public var description: String { "(\(dx), \(dy))" }
}
