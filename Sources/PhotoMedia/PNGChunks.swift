import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// PNG's `eXIf` chunk when it comes after the image data. The PNG specification allows it there, and some
/// writers put it there; libvips 8.14 reads only the chunks before the first `IDAT`, so such a photo would lose its
/// date, place and orientation. A bounded walk over the chunk headers (each chunk's data skipped with a seek, at
/// most ``maximumChunks`` chunks, an `eXIf` of at most 1 MiB) finds it.
package enum PNGChunks {
    static let maximumChunks = 1 << 20
    static let maximumEXIFLength = 1 << 20

    /// The EXIF block of an `eXIf` chunk that follows the image data, or nil.
    package static func trailingEXIF(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        func readExactly(_ count: Int) -> [UInt8]? {
            var buffer = [UInt8](repeating: 0, count: count)
            var done = 0
            while done < count {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, count - done) }
                if n < 0, errno == EINTR { continue }
                if n <= 0 { return nil }
                done += n
            }
            return buffer
        }
        guard readExactly(8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else { return nil }
        var afterImageData = false
        for _ in 0..<maximumChunks {
            guard let header = readExactly(8) else { return nil }
            let length = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
            let type = String(decoding: header[4..<8], as: UTF8.self)
            guard length >= 0, length < 1 << 31 else { return nil }
            switch type {
            case "IDAT":
                afterImageData = true
            case "eXIf" where afterImageData:
                guard length <= maximumEXIFLength else { return nil }
                return readExactly(length)
            case "IEND":
                return nil
            default:
                break
            }
            guard lseek(fd, off_t(length + 4), SEEK_CUR) >= 0 else { return nil }  // data and CRC
        }
        return nil
    }
}
