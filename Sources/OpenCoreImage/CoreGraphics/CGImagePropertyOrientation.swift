/// ImageIO's image orientation: the EXIF orientation values 1–8, naming where the stored image's top-left corner is
/// shown (``up`` shows it as stored).
@frozen public enum CGImagePropertyOrientation: UInt32, Sendable, Hashable, CaseIterable {
    /// 1: as stored.
    case up = 1
    /// 2: mirrored left to right.
    case upMirrored = 2
    /// 3: rotated 180°.
    case down = 3
    /// 4: mirrored top to bottom.
    case downMirrored = 4
    /// 5: mirrored along the main diagonal (transposed).
    case leftMirrored = 5
    /// 6: rotated 90° clockwise to display (a portrait photo of a phone held upright).
    case right = 6
    /// 7: transposed along the other diagonal.
    case rightMirrored = 7
    /// 8: rotated 90° counter-clockwise to display.
    case left = 8
}
