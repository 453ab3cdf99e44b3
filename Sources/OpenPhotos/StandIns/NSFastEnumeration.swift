import Foundation

/// Foundation's `NSFastEnumeration`, which swift-corelibs-foundation lacks. PhotoKit's change requests take
/// their assets and collections as `NSFastEnumeration`; on Apple platforms a Swift array bridges to it. Here
/// arrays, `NSArray`, sets and ``PHFetchResult`` conform, so `[asset] as NSFastEnumeration` compiles unchanged.
public protocol NSFastEnumeration {
    /// The enumerated elements (an implementation detail of the Linux stand-in).
    var _fastEnumerationElements: [Any] { get }
}

extension Array: NSFastEnumeration {
    public var _fastEnumerationElements: [Any] { map { $0 as Any } }
}

extension Set: NSFastEnumeration {
    public var _fastEnumerationElements: [Any] { map { $0 as Any } }
}

extension NSArray: NSFastEnumeration {
    public var _fastEnumerationElements: [Any] { map { $0 as Any } }
}

extension NSOrderedSet: NSFastEnumeration {
    public var _fastEnumerationElements: [Any] { map { $0 as Any } }
}

extension NSFastEnumeration {
    /// The PhotoKit objects among the elements (optionals unwrapped, nils skipped).
    var photoObjects: [PHObject] {
        _fastEnumerationElements.compactMap { element -> PHObject? in
            if let object = element as? PHObject { return object }
            if let optional = element as? PHObject?, let object = optional { return object }
            return nil
        }
    }
}
