import BlockingThreads
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
    /// How many ids the membership has, when the store counted them in the read that steps them (the tallies).
    private var expected: Int?

    /// A membership already read.
    package init(_ ids: ContiguousArray<Int64>) {
        self.ids = ids
        complete = true
    }

    private init() {
        ids = []
        complete = false
    }

    /// The id at `index`, waiting until it arrives; nil when the membership ends before it. A slot of the count
    /// told (``expect(_:)``) that never arrived — the read failed, or the count was wrong — is row id 0, which no
    /// asset has: it reads as an object that could not be loaded, and ``failureReason`` says why.
    package func id(at index: Int) -> Int64? {
        condition.lock()
        defer { condition.unlock() }
        while index >= ids.count, !complete { condition.wait() }
        guard index >= 0 else { return nil }
        if index < ids.count { return ids[index] }
        return index < (expected ?? 0) ? 0 : nil
    }

    /// The ids in `range` that the membership has, waiting until its end has arrived (slots that never arrived: 0,
    /// as in ``id(at:)``).
    package func ids(in range: Range<Int>) -> ArraySlice<Int64> {
        condition.lock()
        defer { condition.unlock() }
        while range.upperBound > ids.count, !complete { condition.wait() }
        let upper = Swift.min(range.upperBound, ids.count)
        let arrived = range.lowerBound < upper ? ids[range.lowerBound..<upper] : []
        let end = Swift.min(range.upperBound, Swift.max(expected ?? 0, ids.count))
        guard end > Swift.max(upper, range.lowerBound) else { return arrived }
        return ArraySlice(Array(arrived) + repeatElement(0, count: end - Swift.max(upper, range.lowerBound)))
    }

    /// How many ids the membership has: at once when the read counted them (see ``expect(_:)``), otherwise once
    /// all have arrived. It never changes (a fetch result's count is constant).
    package var count: Int {
        condition.lock()
        defer { condition.unlock() }
        if let expected { return expected }
        while !complete { condition.wait() }
        return ids.count
    }

    /// The number of ids, known before they arrive: the count the store read in the transaction that steps them
    /// (so it is the count of the same state), or a served library's `Photos-Count`.
    package func expect(_ count: Int) { condition.withLock { if !complete { expected = count } } }

    /// How many ids are expected (nil: unknown until all arrive).
    package var expectedCount: Int? { condition.withLock { expected } }

    /// The ids from `start` on that have arrived, at most `limit`, waiting until one has (empty: the membership has
    /// no more). What a server writes as the ids come: the first page at once, then as much as is there.
    package func arrived(from start: Int, limit: Int) -> ArraySlice<Int64> {
        condition.lock()
        defer { condition.unlock() }
        while start >= ids.count, !complete { condition.wait() }
        let upper = Swift.min(ids.count, start + limit)
        return start < upper ? ids[start..<upper] : []
    }

    /// Every id that arrived, once all have (without the slots of a told count that never did).
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
        close(failure)
        condition.unlock()
    }

    /// Completes the membership (the lock held). A membership whose count was told keeps that count, whatever
    /// arrived: cut short, its missing slots read as objects that could not be loaded (see ``id(at:)``); a count
    /// that disagrees with the ids that came (tallies out of step with the rows, which `photos check` reports, or a
    /// server that lies) is the membership's failure.
    private func close(_ failure: (any Error)?) {
        guard !complete else { return }
        var failure = failure
        if failure == nil, let expected, ids.count != expected {
            failure = LibraryError.internalError("the fetch was counted as \(expected) assets but matches \(ids.count)")
        }
        ids = Self.exactSize(ids)
        self.failure = failure
        complete = true
        condition.broadcast()
    }

    /// Waits until `count` ids have arrived or the membership is complete; throws what ended it when no id came.
    package func waitForFirst(_ count: Int) throws {
        condition.lock()
        defer { condition.unlock() }
        while ids.count < count, !complete { condition.wait() }
        // Cut short before the first page: the fetch fails (a part is never taken for the whole). After it, the
        // result has the page and says why the rest is missing.
        if let failure, ids.count < count { throw failure }
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
    /// the same state) and answers how many ids there are when it can tell (see ``expect(_:)``). Throws what the
    /// read threw before the first page.
    /// `afterFirstPage` runs on the background thread once the first page is published, inside the read (tests
    /// hold it there to commit meanwhile).
    static func stream(
        _ statement: SQLFragment, reader: any MetadataReader, firstPage: Int, alongside: (@Sendable (any SQLConnection) throws -> Int?)? = nil,
        afterFirstPage: (@Sendable () -> Void)? = nil
    ) throws -> AssetIDStream {
        let stream = AssetIDStream()
        BlockingThreads.run {
            do {
                try reader.read { db in
                    if let count = try alongside?(db) { stream.expect(count) }
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
                    stream.finish(nil)
                }
            } catch {
                stream.finish(error)
            }
        }
        stream.condition.lock()
        defer { stream.condition.unlock() }
        while stream.ids.count < firstPage, !stream.complete { stream.condition.wait() }
        if let failure = stream.failure, stream.ids.isEmpty { throw failure }
        return stream
    }
}
