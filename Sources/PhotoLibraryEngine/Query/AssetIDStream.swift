import Foundation

/// The row ids of an asset fetch, in order, as they arrive: a fetch answers with its first page while one read
/// transaction — the fetch's snapshot of the library — goes on stepping the rest on a background thread. Readers
/// of an index wait only until that index has arrived; ``all`` waits for the whole membership. The membership is the
/// one state the read transaction saw, whatever commits meanwhile (PhotoKit's fetch results are frozen at fetch
/// time, their changes come as change details).
package final class AssetIDStream: @unchecked Sendable {
    private let condition = NSCondition()
    private var ids: ContiguousArray<Int64>
    private var complete: Bool
    /// Why the rest could not be read (the ids before it stay; the membership ends there).
    private var failure: (any Error)?

    /// A membership already read.
    package init(_ ids: ContiguousArray<Int64>) {
        self.ids = ids
        complete = true
    }

    private init() {
        ids = []
        complete = false
    }

    /// The id at `index`, waiting until it arrives; nil when the membership ends before it.
    package func id(at index: Int) -> Int64? {
        condition.lock()
        defer { condition.unlock() }
        while index >= ids.count, !complete { condition.wait() }
        return index >= 0 && index < ids.count ? ids[index] : nil
    }

    /// The ids in `range` that the membership has, waiting until its end has arrived.
    package func ids(in range: Range<Int>) -> ArraySlice<Int64> {
        condition.lock()
        defer { condition.unlock() }
        while range.upperBound > ids.count, !complete { condition.wait() }
        let upper = Swift.min(range.upperBound, ids.count)
        return range.lowerBound < upper ? ids[range.lowerBound..<upper] : []
    }

    /// Every id, once all have arrived.
    package var all: ContiguousArray<Int64> {
        condition.lock()
        defer { condition.unlock() }
        while !complete { condition.wait() }
        return ids
    }

    /// Why the membership ended before its end (the read failed), once it is complete; nil otherwise.
    package var failureReason: (any Error)? { condition.withLock { failure } }

    /// Whether every id has arrived (nothing waits).
    package var isComplete: Bool { condition.withLock { complete } }

    /// Bytes held by the ids.
    package var byteCount: Int { condition.withLock { ids.capacity * MemoryLayout<Int64>.stride } }

    /// A membership that arrives from elsewhere — a served library's stream of ids: ``receive(_:)`` adds ids as
    /// they come, ``finish(_:)`` ends it (with the error that cut it short, if one did).
    package static func receiving() -> AssetIDStream { AssetIDStream() }

    /// Adds ids that arrived (in order).
    package func receive(_ batch: UnsafeBufferPointer<Int64>) {
        condition.lock()
        ids.append(contentsOf: batch)
        condition.broadcast()
        condition.unlock()
    }

    /// Ends the membership; `failure`: why the rest could not be read (the ids before it stay).
    package func finish(_ failure: (any Error)?) {
        condition.lock()
        if !complete {
            ids = Self.exactSize(ids)
            self.failure = failure
            complete = true
        }
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until `count` ids have arrived or the membership is complete; throws what ended it when no id came.
    package func waitForFirst(_ count: Int) throws {
        condition.lock()
        defer { condition.unlock() }
        while ids.count < count, !complete { condition.wait() }
        // Cut short before the first page: the fetch fails (a part is never taken for the whole).
        if let failure { throw failure }
    }

    /// Steps `statement` (first column: a row id) in `db`, handing each id to `row`. The hot loop of every fetch (a
    /// million rows for a large library): the store steps its statement directly, no per-row decoding layer.
    static func step(
        _ statement: SQLFragment, in db: any SQLConnection, firstBatch: Int = 4096, _ batch: (UnsafeBufferPointer<Int64>) -> Void
    ) throws {
        try db.forEachInt64(sql: statement.sql, arguments: statement.statementArguments, cached: true, firstBatch: firstBatch, batch)
    }

    /// The ids without growth slack (up to half the buffer): a fetch result holds 8 bytes per asset.
    static func exactSize(_ ids: ContiguousArray<Int64>) -> ContiguousArray<Int64> {
        guard ids.capacity > ids.count + ids.count / 16 else { return ids }
        return ContiguousArray(unsafeUninitializedCapacity: ids.count) { buffer, count in
            _ = ids.withUnsafeBufferPointer { buffer.initialize(from: $0) }
            count = ids.count
        }
    }

    /// Steps `statement` (first column: a row id) in one read transaction of `reader` on a background thread, and
    /// returns once `firstPage` ids have arrived or all have. `alongside` runs first in the same transaction (it sees
    /// the same state). Throws what the read threw before the first page.
    /// `afterFirstPage` runs on the background thread once the first page is published, inside the read (tests
    /// hold it there to commit meanwhile).
    static func stream(
        _ statement: SQLFragment, reader: any MetadataReader, firstPage: Int, alongside: (@Sendable (any SQLConnection) throws -> Void)? = nil,
        afterFirstPage: (@Sendable () -> Void)? = nil
    ) throws -> AssetIDStream {
        let stream = AssetIDStream()
        DispatchQueue.global(qos: .userInitiated).async {
            do {
                try reader.read { db in
                    try alongside?(db)
                    // Published as the store hands the ids over: the first page at once, then every 4,096 ids (few
                    // wake-ups).
                    var published = 0
                    try step(statement, in: db, firstBatch: Swift.max(1, firstPage)) { batch in
                        stream.condition.lock()
                        stream.ids.append(contentsOf: batch)
                        stream.condition.broadcast()
                        stream.condition.unlock()
                        let isFirstPage = published == 0 && batch.count >= firstPage
                        published += batch.count
                        if isFirstPage { afterFirstPage?() }
                    }
                    stream.condition.lock()
                    stream.ids = exactSize(stream.ids)
                    stream.complete = true
                    stream.condition.broadcast()
                    stream.condition.unlock()
                }
            } catch {
                stream.condition.lock()
                stream.failure = error
                stream.complete = true
                stream.condition.broadcast()
                stream.condition.unlock()
            }
        }
        stream.condition.lock()
        defer { stream.condition.unlock() }
        while stream.ids.count < firstPage, !stream.complete { stream.condition.wait() }
        if let failure = stream.failure, stream.ids.isEmpty { throw failure }
        return stream
    }
}
