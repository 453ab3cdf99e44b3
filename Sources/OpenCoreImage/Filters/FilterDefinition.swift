import Foundation

/// One input of a filter, with what `attributes` says of it.
struct FilterInput: @unchecked Sendable {
    enum Kind: Sendable {
        case image, number, vector, color, data, colorSpace, transform, string

        var className: String {
            switch self {
            case .image: "CIImage"
            case .number: "NSNumber"
            case .vector: "CIVector"
            case .color: "CIColor"
            case .data: "NSData"
            case .colorSpace: "CGColorSpace"
            case .transform: "NSValue"
            case .string: "NSString"
            }
        }

        /// The value converted to what the filter stores, or nil when it is of the wrong class.
        func accept(_ value: Any) -> Any? {
            switch self {
            case .image: return value as? CIImage
            case .number:
                switch value {
                case let n as NSNumber: return n
                case let n as Double: return NSNumber(value: n)
                case let n as Float: return NSNumber(value: n)
                case let n as CGFloat: return NSNumber(value: Double(n))
                case let n as Int: return NSNumber(value: n)
                case let n as Bool: return NSNumber(value: n)
                default: return nil
                }
            case .vector: return value as? CIVector
            case .color: return value as? CIColor
            case .data:
                if let data = value as? Data { return data }
                if let data = value as? NSData { return data as Data }
                return nil
            case .colorSpace: return value as? CGColorSpace
            case .transform:
                if let t = value as? CGAffineTransform { return t }
                if let v = value as? CIVector, v.count == 6 { return v.cgAffineTransformValue }
                return nil
            case .string: return value as? String
            }
        }
    }

    var key: String
    var kind: Kind
    var defaultValue: Any?
    var minimum: Double?
    var maximum: Double?
    var sliderMinimum: Double?
    var sliderMaximum: Double?
    var identity: Double?
    /// kCIAttributeType…: "CIAttributeTypeScalar", "CIAttributeTypeAngle", "CIAttributeTypePosition" …
    var type: String?
    var displayName: String

    init(
        _ key: String, _ kind: Kind, default defaultValue: Any? = nil, min: Double? = nil, max: Double? = nil,
        sliderMin: Double? = nil, sliderMax: Double? = nil, identity: Double? = nil, type: String? = nil, name: String? = nil
    ) {
        self.key = key
        self.kind = kind
        if let number = defaultValue as? Double {
            self.defaultValue = NSNumber(value: number)
        } else {
            self.defaultValue = defaultValue
        }
        self.minimum = min
        self.maximum = max
        self.sliderMinimum = sliderMin ?? min
        self.sliderMaximum = sliderMax ?? max
        self.identity = identity
        self.type = type ?? (kind == .number ? kCIAttributeTypeScalar : kind == .image ? kCIAttributeTypeImage : nil)
        self.displayName = name ?? FilterInput.displayName(of: key)
    }

    /// "inputSharpness" → "Sharpness".
    static func displayName(of key: String) -> String {
        var name = key.hasPrefix("input") ? String(key.dropFirst(5)) : key
        var spaced = ""
        for (i, c) in name.enumerated() {
            if i > 0, c.isUppercase, let previous = spaced.last, previous.isLowercase { spaced.append(" ") }
            spaced.append(c)
        }
        name = spaced
        return name
    }

    var attributes: [String: Any] {
        var a: [String: Any] = [kCIAttributeClass: kind.className, kCIAttributeDisplayName: displayName]
        if let defaultValue { a[kCIAttributeDefault] = defaultValue }
        if let minimum { a[kCIAttributeMin] = NSNumber(value: minimum) }
        if let maximum { a[kCIAttributeMax] = NSNumber(value: maximum) }
        if let sliderMinimum { a[kCIAttributeSliderMin] = NSNumber(value: sliderMinimum) }
        if let sliderMaximum { a[kCIAttributeSliderMax] = NSNumber(value: sliderMaximum) }
        if let identity { a[kCIAttributeIdentity] = NSNumber(value: identity) }
        if let type { a[kCIAttributeType] = type }
        return a
    }
}

/// A filter: its name, categories, inputs and what it makes of them.
struct FilterDefinition: @unchecked Sendable {
    var name: String
    var displayName: String
    var categories: [String]
    var inputs: [FilterInput]
    var apply: (FilterInputs) -> CIImage?

    var attributes: [String: Any] {
        var a: [String: Any] = [
            kCIAttributeFilterName: name, kCIAttributeFilterDisplayName: displayName, kCIAttributeFilterCategories: categories,
        ]
        for input in inputs { a[input.key] = input.attributes }
        return a
    }
}

/// A filter's input values, read with their defaults.
struct FilterInputs {
    var values: [String: Any]
    var definition: FilterDefinition

    func image(_ key: String = kCIInputImageKey) -> CIImage? { values[key] as? CIImage }
    func number(_ key: String) -> Double { (values[key] as? NSNumber)?.doubleValue ?? 0 }
    func vector(_ key: String) -> CIVector { (values[key] as? CIVector) ?? CIVector([]) }
    func color(_ key: String) -> CIColor { (values[key] as? CIColor) ?? .black }
    func data(_ key: String) -> Data? { values[key] as? Data }
    func colorSpace(_ key: String) -> CGColorSpace? { values[key] as? CGColorSpace }
    func transform(_ key: String) -> CGAffineTransform { (values[key] as? CGAffineTransform) ?? .identity }
}
