import Foundation

/// What every typed filter of `CIFilterBuiltins` has: its output.
public protocol CIFilterProtocol: AnyObject {
    /// The filter's result, computed when a context renders it.
    var outputImage: CIImage? { get }
}
