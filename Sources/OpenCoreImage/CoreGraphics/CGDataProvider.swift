import Foundation

/// CoreGraphics' source of bytes for an image: here always bytes in memory.
public final class CGDataProvider: @unchecked Sendable {
    /// The bytes (immutable).
    public let data: CFData?

    /// A provider of a copy of `data`'s bytes.
    public init?(data: CFData) { self.data = data.copy() as? NSData ?? NSData(data: data as Data) }

    /// OpenPhotoKit: a provider of `data`.
    public init(bytes: Data) { self.data = NSData(data: bytes) }

    /// A provider of the bytes of a file; nil when it cannot be read.
    public init?(url: URL) {
        guard let bytes = try? Data(contentsOf: url) else { return nil }
        self.data = NSData(data: bytes)
    }
}
