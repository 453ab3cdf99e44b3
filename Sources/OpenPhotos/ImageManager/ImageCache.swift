import Foundation
import PhotoLibraryEngine
import PhotoMedia
import Synchronization

/// What identifies a rendering: the original's bytes (SHA-256, so a changed original never matches an old entry)
/// and everything that shapes the output.
package struct RenderKey: Hashable, Sendable {
    package var assetUUID: String
    package var sha256: String
    package var request: RenderRequest

    package init(assetUUID: String, sha256: String, request: RenderRequest) {
        self.assetUUID = assetUUID
        self.sha256 = sha256
        self.request = request
    }

    /// The name of the rendering among the asset's derivatives, readable and unique per key; it begins with the
    /// rendered file's ``Derivatives/namePrefix(sha256:)`` so a superseded version's go with it.
    var derivativeName: String {
        var name = Derivatives.namePrefix(sha256: sha256)
        if let target = request.target { name += "\(target.width)x\(target.height)" } else { name += "max" }
        name += "-\(request.fit == .fit ? "fit" : "fill")-\(request.resize)"
        if let crop = request.crop { name += String(format: "-c%.4f,%.4f,%.4f,%.4f", crop.x, crop.y, crop.width, crop.height) }
        return name + ".pixels"
    }
}

/// Renderings in memory, bounded in bytes, least recently used out first.
package final class ImageMemoryCache: @unchecked Sendable {
    private struct Entry {
        var pixels: PixelBuffer
        var tick: UInt64
    }

    private let state = Mutex<(entries: [RenderKey: Entry], bytes: Int, tick: UInt64)>(([:], 0, 0))
    /// The most bytes of pixels kept.
    package let limit: Int

    package init(limit: Int) { self.limit = limit }

    package func pixels(for key: RenderKey) -> PixelBuffer? {
        state.withLock { state in
            guard var entry = state.entries[key] else { return nil }
            state.tick += 1
            entry.tick = state.tick
            state.entries[key] = entry
            return entry.pixels
        }
    }

    package func insert(_ pixels: PixelBuffer, for key: RenderKey) {
        let cost = pixels.bytes.count
        guard cost <= limit else { return }
        state.withLock { state in
            if let old = state.entries[key] { state.bytes -= old.pixels.bytes.count }
            state.tick += 1
            state.entries[key] = Entry(pixels: pixels, tick: state.tick)
            state.bytes += cost
            while state.bytes > limit, let oldest = state.entries.min(by: { $0.value.tick < $1.value.tick }) {
                state.entries[oldest.key] = nil
                state.bytes -= oldest.value.pixels.bytes.count
            }
        }
    }

    /// The largest uncropped rendering of the same original that is at least `width` × `height` — a source for a
    /// smaller size without decoding the original again.
    package func larger(than width: Int, _ height: Int, sha256: String) -> PixelBuffer? {
        state.withLock { state in
            state.entries.filter { key, entry in
                key.sha256 == sha256 && key.request.crop == nil && !(key.request.fit == .fill && key.request.resize == .exact)
                    && entry.pixels.width >= width && entry.pixels.height >= height
            }.min { $0.value.pixels.bytes.count < $1.value.pixels.bytes.count }?.value.pixels
        }
    }

    package func remove(where shouldRemove: (RenderKey) -> Bool) {
        state.withLock { state in
            for key in state.entries.keys where shouldRemove(key) {
                state.bytes -= state.entries[key]!.pixels.bytes.count
                state.entries[key] = nil
            }
        }
    }

    package var byteCount: Int { state.withLock { $0.bytes } }
    package var count: Int { state.withLock { $0.entries.count } }
}
