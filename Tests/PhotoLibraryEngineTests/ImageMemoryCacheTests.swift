import Foundation
import OpenPhotos
import PhotoMedia
import Testing

/// The image manager's memory cache: bounded in bytes, least recently used out first.
@Suite("Image memory cache")
struct ImageMemoryCacheTests {
    func key(_ n: Int) -> RenderKey {
        RenderKey(assetUUID: "A\(n)", sha256: String(repeating: "\(n)", count: 64), request: RenderRequest(target: (n, n), fit: .fit, resize: .exact))
    }

    func pixels(_ bytes: Int) -> PixelBuffer { PixelBuffer(width: bytes / 3, height: 1, bands: 3, bytes: Data(count: bytes)) }

    @Test func theLeastRecentlyUsedGoFirstAndTheBoundHolds() {
        let cache = ImageMemoryCache(limit: 1000)
        cache.insert(pixels(300), for: key(1))
        cache.insert(pixels(300), for: key(2))
        cache.insert(pixels(300), for: key(3))
        #expect(cache.byteCount == 900)
        _ = cache.pixels(for: key(1))  // 1 is now more recent than 2
        cache.insert(pixels(300), for: key(4))
        #expect(cache.byteCount == 900)
        #expect(cache.pixels(for: key(2)) == nil)
        #expect(cache.pixels(for: key(1)) != nil && cache.pixels(for: key(3)) != nil && cache.pixels(for: key(4)) != nil)
        // Larger than the whole bound: not kept, nothing evicted for it.
        cache.insert(pixels(3000), for: key(5))
        #expect(cache.pixels(for: key(5)) == nil && cache.count == 3)
        // Replacing an entry counts its new size once.
        cache.insert(pixels(600), for: key(4))
        #expect(cache.byteCount <= 1000)
        #expect(cache.pixels(for: key(4))?.bytes.count == 600)
    }
}
