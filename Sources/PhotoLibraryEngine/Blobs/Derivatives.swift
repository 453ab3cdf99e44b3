import Foundation
import PhotoMedia

/// Cached renderings of an asset (thumbnails, display sizes) kept in the blob store beside its files: raw pixels
/// behind a 20-byte header (`OPKPIX1\0`, width and height as big-endian 32-bit integers, the band count, three zero
/// bytes). A derivative is named by the SHA-256 of the file it was rendered from and everything that shaped it, so a
/// changed original never matches an old one; they go with the asset, or with a superseded rendering.
package enum Derivatives {
    private static let magic = Array("OPKPIX1\0".utf8)

    /// The start of the names of every derivative rendered from the file with this SHA-256.
    package static func namePrefix(sha256: String) -> String { "\(sha256.prefix(16))-" }

    static func encode(_ pixels: PixelBuffer) -> Data {
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        var data = Data(magic + be32(pixels.width) + be32(pixels.height) + [UInt8(pixels.bands), 0, 0, 0])
        data.append(pixels.bytes)
        return data
    }

    /// The pixels of a stored derivative; nil when it is not one whole derivative (cut short, another format).
    static func decode(_ data: Data) -> PixelBuffer? {
        guard data.count > 20, Array(data.prefix(8)) == magic else { return nil }
        let header = Array(data[data.startIndex + 8..<data.startIndex + 20])
        let width = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
        let height = Int(header[4]) << 24 | Int(header[5]) << 16 | Int(header[6]) << 8 | Int(header[7])
        let bands = Int(header[8])
        guard width > 0, height > 0, (1...4).contains(bands), data.count == 20 + width * height * bands else { return nil }
        return PixelBuffer(width: width, height: height, bands: bands, bytes: Data(data[(data.startIndex + 20)...]))
    }
}

extension LibraryEngine {
    /// A cached rendering of an asset, nil when there is none (or it is damaged: it is made again).
    package func derivative(assetUUID: String, name: String) -> PixelBuffer? {
        blobs.derivative(assetUUID: assetUUID, name: name).flatMap(Derivatives.decode)
    }

    /// Keeps a rendering of an asset for the next request (replacing one of the same name atomically).
    package func storeDerivative(_ pixels: PixelBuffer, assetUUID: String, name: String) {
        blobs.storeDerivative(Derivatives.encode(pixels), assetUUID: assetUUID, name: name)
    }
}

extension LibraryEngine {
    /// A rendering kept as a file (a video's web rendering): its size, tag and local file; nil when there is none.
    package func derivativeFile(assetUUID: String, name: String) -> StoredDerivative? {
        blobs.derivativeFile(assetUUID: assetUUID, name: name)
    }

    /// Up to `count` bytes of a rendering kept as a file, from `offset`.
    package func readDerivative(assetUUID: String, name: String, offset: Int64, count: Int) throws(LibraryError) -> Data {
        try blobs.readDerivative(assetUUID: assetUUID, name: name, offset: offset, count: count)
    }

    /// Keeps `file` (taken: moved or removed) as a rendering of an asset, unless one of that name is kept already.
    package func storeDerivativeFile(_ file: URL, assetUUID: String, name: String) throws(LibraryError) {
        try blobs.storeDerivativeFile(file, assetUUID: assetUUID, name: name)
    }
}
