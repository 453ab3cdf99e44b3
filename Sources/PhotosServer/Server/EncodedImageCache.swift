import Foundation
import HTTPTypes
import NIOCore
import Synchronization

/// Encoded images by ETag, least recently used first out, bounded in bytes: a grid of thumbnails scrolled back
/// and forth is served from memory without decoding or encoding again. An ETag names content (the version's hash
/// and the rendering's parameters), so an entry is never stale; edits simply make new ETags.
final class EncodedImageCache: Sendable {
    private struct State {
        var entries: [String: (bytes: ByteBuffer, type: String, tick: UInt64)] = [:]
        var byteCount = 0
        var tick: UInt64 = 0
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) { self.capacity = capacity }

    func get(_ key: String) -> (bytes: ByteBuffer, type: String)? {
        state.withLock { state in
            // One lookup, the recency updated in place.
            guard let index = state.entries.index(forKey: key) else { return nil }
            state.tick += 1
            state.entries.values[index].tick = state.tick
            let entry = state.entries.values[index]
            return (entry.bytes, entry.type)
        }
    }

    func put(_ key: String, _ bytes: ByteBuffer, type: String) {
        guard bytes.readableBytes <= capacity / 8 else { return }
        state.withLock { state in
            state.tick += 1
            if let old = state.entries.updateValue((bytes, type, state.tick), forKey: key) { state.byteCount -= old.bytes.readableBytes }
            state.byteCount += bytes.readableBytes
            guard state.byteCount > capacity else { return }
            // Evict the oldest quarter of the entries at once: one sort per many insertions.
            let victims = state.entries.sorted { $0.value.tick < $1.value.tick }.prefix(max(1, state.entries.count / 4))
            for (key, entry) in victims {
                state.entries[key] = nil
                state.byteCount -= entry.bytes.readableBytes
            }
        }
    }
}
