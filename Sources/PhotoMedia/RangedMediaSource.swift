import Foundation
import Synchronization

/// A file a decoder reads by ranges instead of from a path — a movie whose original is in object storage, where
/// reading the whole file to decode its first frame would fetch hundreds of megabytes for a few hundred kilobytes.
///
/// Reads are aligned to blocks of ``blockSize`` and the last few blocks are kept, so the decoder's small reads (64 KiB
/// at a time, back and forth between a movie's index and its first samples) become a handful of ranged requests.
/// ``bytesFetched`` says how much was asked of the source.
package final class RangedMediaSource: Sendable {
    /// The size of the file.
    package let size: Int64
    /// How messages name it.
    package let name: String
    /// Bytes asked of the source in one request.
    package let blockSize: Int
    private let fetch: @Sendable (_ offset: Int64, _ count: Int) throws -> Data
    private let state = Mutex<(blocks: [(index: Int64, data: Data)], fetched: Int64, requests: Int, failure: (any Error)?)>(([], 0, 0, nil))
    private static let keptBlocks = 8

    /// A source of `size` bytes that `fetch` reads (up to `count` bytes at `offset`; fewer at the end).
    package init(size: Int64, name: String, blockSize: Int = 1 << 20, fetch: @escaping @Sendable (_ offset: Int64, _ count: Int) throws -> Data) {
        self.size = size
        self.name = name
        self.blockSize = blockSize
        self.fetch = fetch
    }

    /// The bytes fetched from the source so far, and in how many requests.
    package var bytesFetched: (bytes: Int64, requests: Int) { state.withLock { ($0.fetched, $0.requests) } }

    /// The error of the read that failed, if one did (the decoder only hears "an I/O error"): the source's own (a
    /// network error, a missing file), which the caller reports instead of the decoder's.
    package var failure: (any Error)? { state.withLock { $0.failure } }

    /// Copies up to `count` bytes at `offset` into `buffer`: how many (0 at the end), or -1 when the source failed.
    func read(at offset: Int64, into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int32 {
        guard offset >= 0, offset < size else { return 0 }
        let index = offset / Int64(blockSize)
        guard let block = self.block(index) else { return -1 }
        let start = Int(offset - index * Int64(blockSize))
        let available = min(count, block.count - start, Int(Int32.max))
        guard available > 0 else { return 0 }
        block.withUnsafeBytes { raw in
            buffer.update(from: raw.baseAddress!.advanced(by: start).assumingMemoryBound(to: UInt8.self), count: available)
        }
        return Int32(available)
    }

    private func block(_ index: Int64) -> Data? {
        if let kept = state.withLock({ state in state.blocks.first { $0.index == index }?.data }) { return kept }
        let offset = index * Int64(blockSize)
        let count = Int(min(Int64(blockSize), size - offset))
        let data: Data
        do { data = try fetch(offset, count) } catch {
            state.withLock { $0.failure = error }
            return nil
        }
        guard !data.isEmpty else { return nil }
        state.withLock { state in
            state.fetched += Int64(data.count)
            state.requests += 1
            state.blocks.append((index, data))
            if state.blocks.count > Self.keptBlocks { state.blocks.removeFirst() }
        }
        return data
    }
}
