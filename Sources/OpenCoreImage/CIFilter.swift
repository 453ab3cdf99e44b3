import Foundation

/// An image filter by name, with key-value inputs, as Core Image's.
///
/// ```swift
/// let filter = CIFilter(name: "CISepiaTone")!
/// filter.setValue(image, forKey: kCIInputImageKey)
/// filter.setValue(0.8, forKey: kCIInputIntensityKey)
/// let output = filter.outputImage
/// ```
///
/// Every filter here has Apple's name, input keys, defaults and ranges (``attributes``); an unknown name gives nil,
/// a key the filter does not have traps with Core Image's message, and so does a value of the wrong type. The
/// typed API of `CIFilterBuiltins` (`CIFilter.sepiaTone()`) sets the same inputs.
open class CIFilter: NSObject, @unchecked Sendable {
    let definition: FilterDefinition
    private var values: [String: Any] = [:]
    private let lock = NSLock()

    /// The filter's name ("CISepiaTone").
    public var name: String { definition.name }

    /// The filter named `name` with its inputs at their defaults; nil for a name Core Image does not have here.
    public init?(name: String) {
        guard let definition = FilterRegistry.definitions[name] else { return nil }
        self.definition = definition
        super.init()
        setDefaults()
    }

    /// The filter named `name` with `parameters` set over its defaults.
    public convenience init?(name: String, parameters params: [String: Any]?) {
        self.init(name: name)
        for (key, value) in params ?? [:] { setValue(value, forKey: key) }
    }

    init(definition: FilterDefinition) {
        self.definition = definition
        super.init()
        setDefaults()
    }

    /// Sets every input that has a default to it (and clears the others: images).
    public func setDefaults() {
        lock.withLock {
            values = [:]
            for input in definition.inputs { if let value = input.defaultValue { values[input.key] = value } }
        }
    }

    /// The names of the filter's inputs.
    public var inputKeys: [String] { definition.inputs.map(\.key) }

    /// The names of its outputs: `outputImage`.
    public var outputKeys: [String] { [kCIOutputImageKey] }

    /// What Core Image says of the filter and each input: class, type, default, minimum, maximum, slider range,
    /// display name, categories.
    public var attributes: [String: Any] { definition.attributes }

    /// Sets an input. Traps when the filter has no such input ("this class is not key value coding-compliant for the
    /// key …", as Core Image raises) or when the value is not of the input's class.
    open func setValue(_ value: Any?, forKey key: String) {
        guard let input = definition.inputs.first(where: { $0.key == key }) else {
            preconditionFailure(
                "[<CIFilter \(name)> setValue:forUndefinedKey:]: this class is not key value coding-compliant for the key \(key).")
        }
        guard let value, !(value is NSNull) else {
            lock.withLock { values[key] = nil }
            return
        }
        guard let converted = input.kind.accept(value) else {
            preconditionFailure(
                "[CIFilter \(name) setValue:forKey:] \(key): expected a value of class \(input.kind.className), got \(type(of: value)).")
        }
        lock.withLock { values[key] = converted }
    }

    /// An input's value, or `outputImage` for that key; traps for a key the filter does not have.
    open func value(forKey key: String) -> Any? {
        if key == kCIOutputImageKey { return outputImage }
        if key == "name" { return name }
        guard definition.inputs.contains(where: { $0.key == key }) else {
            preconditionFailure("[<CIFilter \(name)> valueForUndefinedKey:]: this class is not key value coding-compliant for the key \(key).")
        }
        return lock.withLock { values[key] }
    }

    /// The result: a recipe over the inputs, computed when a context renders it; nil without a required image.
    open var outputImage: CIImage? {
        let inputs = lock.withLock { values }
        return definition.apply(FilterInputs(values: inputs, definition: definition))
    }

    /// Names of the filters in a category (`kCICategoryColorAdjustment` …).
    public class func filterNames(inCategory category: String?) -> [String] {
        filterNames(inCategories: category.map { [$0] })
    }

    /// Names of the filters in all of the categories (every filter for nil or an empty list).
    public class func filterNames(inCategories categories: [String]?) -> [String] {
        FilterRegistry.definitions.values.filter { definition in
            (categories ?? []).allSatisfy { definition.categories.contains($0) }
        }.map(\.name).sorted()
    }

    /// The display name of a filter ("Sepia Tone").
    public class func localizedName(forFilterName filterName: String) -> String? {
        FilterRegistry.definitions[filterName]?.displayName
    }

    public override var description: String { "<CIFilter \(name)>" }

    // Typed access for the builtins.
    func number(_ key: String) -> Float { (value(forKey: key) as? NSNumber)?.floatValue ?? 0 }
    func setNumber(_ value: Float, _ key: String) { setValue(NSNumber(value: value), forKey: key) }
}
