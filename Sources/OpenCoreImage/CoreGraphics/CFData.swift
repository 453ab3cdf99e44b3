import Foundation
import UniformTypeIdentifiers

/// CoreFoundation's immutable bytes, as CoreGraphics hands them out on Linux: `NSData`, so
/// `cgImage.dataProvider?.data as Data?`, `CFDataGetBytePtr(data)` and `CFDataGetLength(data)` compile as written.
/// The bytes stay where they are while the object lives.
public typealias CFData = NSData

/// The address of the bytes of `data`, valid while `data` lives.
public func CFDataGetBytePtr(_ data: CFData) -> UnsafePointer<UInt8>! {
    data.length == 0 ? nil : data.bytes.assumingMemoryBound(to: UInt8.self)
}

/// The number of bytes of `data`.
public func CFDataGetLength(_ data: CFData) -> CFIndex { data.length }
