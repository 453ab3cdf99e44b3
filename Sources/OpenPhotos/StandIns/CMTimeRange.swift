import Foundation

// CoreMedia's time arithmetic and ranges as Swift code on Apple platforms writes them (`time + other`,
// `range.intersection(other)`), what ported editing code uses to trim and place clips.

extension CMTime {
    /// The sum of two times (`CMTimeAdd`).
    public static func + (lhs: CMTime, rhs: CMTime) -> CMTime { CMTimeAdd(lhs, rhs) }
    /// The difference of two times (`CMTimeSubtract`).
    public static func - (lhs: CMTime, rhs: CMTime) -> CMTime { CMTimeSubtract(lhs, rhs) }
    /// Adds `rhs` to `lhs`.
    public static func += (lhs: inout CMTime, rhs: CMTime) { lhs = lhs + rhs }
    /// Subtracts `rhs` from `lhs`.
    public static func -= (lhs: inout CMTime, rhs: CMTime) { lhs = lhs - rhs }
    /// The time times an integer (`CMTimeMultiply`), at the same timescale.
    public static func * (time: CMTime, multiplier: Int32) -> CMTime { CMTimeMultiply(time, multiplier: multiplier) }
    /// The time times a number (`CMTimeMultiplyByFloat64`).
    public static func * (time: CMTime, multiplier: Float64) -> CMTime { CMTimeMultiplyByFloat64(time, multiplier: multiplier) }
    /// The negated time.
    public static prefix func - (time: CMTime) -> CMTime { time.isValid ? CMTime(value: -time.value, timescale: time.timescale) : time }
    /// Whether the time is the same instant as `other` (`CMTimeCompare` is 0), whatever their timescales.
    public static func == (lhs: CMTime, rhs: CMTime) -> Bool { CMTimeCompare(lhs, rhs) == 0 }

    /// Hashes the instant (the fraction reduced), so that equal times hash alike whatever their timescales.
    public func hash(into hasher: inout Hasher) {
        guard isValid else { return hasher.combine(0 as Int64) }
        func gcd(_ a: Int64, _ b: Int64) -> Int64 { b == 0 ? Swift.abs(a) : gcd(b, a % b) }
        let divisor = Swift.max(1, gcd(value, Int64(timescale)))
        let sign: Int64 = timescale < 0 ? -1 : 1
        hasher.combine(sign * value / divisor)
        hasher.combine(sign * Int64(timescale) / divisor)
    }

    /// The time at another timescale (`CMTimeConvertScale`, rounding half away from zero).
    public func convertScale(_ newTimescale: Int32, method: CMTimeRoundingMethod) -> CMTime {
        CMTimeConvertScale(self, timescale: newTimescale, method: method)
    }

    /// Whether the time is a number of seconds (valid), as CoreMedia's `isNumeric` (no infinities here).
    public var isNumeric: Bool { isValid }
}

/// How ``CMTimeConvertScale(_:timescale:method:)`` rounds.
public enum CMTimeRoundingMethod: UInt32, Sendable {
    case roundHalfAwayFromZero = 1, roundTowardZero = 2, roundAwayFromZero = 3, quickTime = 4, roundTowardNegativeInfinity = 5,
        roundTowardPositiveInfinity = 6
    public static let `default` = CMTimeRoundingMethod.roundHalfAwayFromZero
}

/// The time times an integer (CoreMedia's function), at the same timescale.
public func CMTimeMultiply(_ time: CMTime, multiplier: Int32) -> CMTime {
    guard time.isValid else { return .invalid }
    return CMTime(value: time.value * Int64(multiplier), timescale: time.timescale)
}

/// The time times a number (CoreMedia's function), at the same timescale.
public func CMTimeMultiplyByFloat64(_ time: CMTime, multiplier: Float64) -> CMTime {
    guard time.isValid else { return .invalid }
    return CMTime(value: Int64((Double(time.value) * multiplier).rounded()), timescale: time.timescale)
}

/// The time at another timescale (CoreMedia's function).
public func CMTimeConvertScale(_ time: CMTime, timescale: Int32, method: CMTimeRoundingMethod) -> CMTime {
    guard time.isValid, timescale != 0 else { return .invalid }
    let exact = Double(time.value) * Double(timescale) / Double(time.timescale)
    let rule: FloatingPointRoundingRule =
        switch method {
        case .roundTowardZero: .towardZero
        case .roundAwayFromZero: .awayFromZero
        case .roundTowardNegativeInfinity: .down
        case .roundTowardPositiveInfinity: .up
        default: .toNearestOrAwayFromZero
        }
    return CMTime(value: Int64(exact.rounded(rule)), timescale: timescale)
}

/// The earlier of two times (CoreMedia's function).
public func CMTimeMinimum(_ time1: CMTime, _ time2: CMTime) -> CMTime { CMTimeCompare(time1, time2) <= 0 ? time1 : time2 }
/// The later of two times (CoreMedia's function).
public func CMTimeMaximum(_ time1: CMTime, _ time2: CMTime) -> CMTime { CMTimeCompare(time1, time2) >= 0 ? time1 : time2 }

extension CMTimeRange {
    /// The range from `start` to `end` (CoreMedia's `CMTimeRangeFromTimeToTime`).
    public init(start: CMTime, end: CMTime) {
        self.init(start: start, duration: end - start)
    }

    /// An empty range at zero (`kCMTimeRangeZero`).
    public static let zero = CMTimeRange(start: .zero, duration: .zero)
    /// An invalid range (`kCMTimeRangeInvalid`).
    public static let invalid = CMTimeRange(start: .invalid, duration: .invalid)

    /// Whether start and duration are valid and the duration is not negative.
    public var isValid: Bool { start.isValid && duration.isValid && duration.value >= 0 }
    /// Whether the range is valid and holds no time.
    public var isEmpty: Bool { isValid && duration.value == 0 }

    /// Whether `time` is in the range (its start included, its end not: CoreMedia's `CMTimeRangeContainsTime`).
    public func containsTime(_ time: CMTime) -> Bool {
        isValid && CMTimeCompare(time, start) >= 0 && CMTimeCompare(time, end) < 0
    }

    /// Whether all of `range` is in this one.
    public func containsTimeRange(_ range: CMTimeRange) -> Bool {
        isValid && range.isValid && CMTimeCompare(range.start, start) >= 0 && CMTimeCompare(range.end, end) <= 0
    }

    /// The time both ranges hold (`CMTimeRangeGetIntersection`): empty, at the later start, when they do not overlap.
    public func intersection(_ other: CMTimeRange) -> CMTimeRange {
        guard isValid, other.isValid else { return .invalid }
        let start = CMTimeMaximum(self.start, other.start)
        let end = CMTimeMinimum(self.end, other.end)
        return CMTimeCompare(end, start) <= 0 ? CMTimeRange(start: start, duration: .zero) : CMTimeRange(start: start, end: end)
    }

    /// The smallest range holding both (`CMTimeRangeGetUnion`).
    public func union(_ other: CMTimeRange) -> CMTimeRange {
        guard isValid, other.isValid else { return .invalid }
        return CMTimeRange(start: CMTimeMinimum(start, other.start), end: CMTimeMaximum(end, other.end))
    }

    /// Two ranges are equal when they hold the same time (`CMTimeRangeEqual`).
    public static func == (lhs: CMTimeRange, rhs: CMTimeRange) -> Bool { lhs.start == rhs.start && lhs.duration == rhs.duration }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(start)
        hasher.combine(duration)
    }
}

/// The range from `start` to `end` (CoreMedia's function).
public func CMTimeRangeFromTimeToTime(start: CMTime, end: CMTime) -> CMTimeRange { CMTimeRange(start: start, end: end) }
/// The time both ranges hold (CoreMedia's function).
public func CMTimeRangeGetIntersection(_ range: CMTimeRange, otherRange: CMTimeRange) -> CMTimeRange { range.intersection(otherRange) }
/// Whether `time` is in `range` (CoreMedia's function).
public func CMTimeRangeContainsTime(_ range: CMTimeRange, time: CMTime) -> Bool { range.containsTime(time) }
