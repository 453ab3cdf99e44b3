import Foundation

extension LibraryEngine {
    /// An asset fetch's membership in this engine's state, and how it differs from `before`.
    ///
    /// With `touched` (the row ids one transaction inserted, updated or deleted, `before` being the membership
    /// right before it) and a fetch whose membership and order depend only on each asset's own row, only the
    /// touched rows are read again: the untouched ones keep their order, the touched ones that still match are
    /// placed among them by binary search on their sort keys. That costs one pass over `before` plus
    /// O(touched × log n) row reads, instead of running the whole fetch again. Otherwise the fetch runs again and
    /// the two lists are compared.
    package func assetFetchChange(
        before: ContiguousArray<Int64>, scope: AssetScope, options: FetchOptionsSpec, access: AccessContext,
        touched: Set<Int64>?, updated: Set<Int64>
    ) throws -> (after: ContiguousArray<Int64>, diff: FetchDiff) {
        guard access.canRead else {
            return ([], FetchDiff.between(before, ContiguousArray<Int64>(), changed: { _ in false }))
        }
        let query = try FetchPlanner(access: access, dialect: metadata.dialect).assetQuery(scope: scope, options: options)
        if let touched, query.isRowLocal {
            return try reader.read { db in try Self.incrementalChange(db, before: before, query: query, touched: touched, updated: updated) }
        }
        let after = try selectIDs(query.statement)
        return (after, FetchDiff.between(before, after, changed: updated.contains))
    }

    private static func incrementalChange(
        _ db: any SQLConnection, before: ContiguousArray<Int64>, query: AssetQuery, touched: Set<Int64>, updated: Set<Int64>
    ) throws -> (after: ContiguousArray<Int64>, diff: FetchDiff) {
        // 1. Where the touched assets sat: one pass, a 64 Kbit filter in front of the set.
        var filter = [UInt64](repeating: 0, count: 1024)
        for id in touched {
            let h = UInt64(bitPattern: id) & 0xFFFF
            filter[Int(h >> 6)] |= 1 << (h & 63)
        }
        var touchedPositions: [Int] = []
        before.withUnsafeBufferPointer { ids in
            filter.withUnsafeBufferPointer { bits in
                for i in 0..<ids.count {
                    let h = UInt64(bitPattern: ids[i]) & 0xFFFF
                    if bits[Int(h >> 6)] & (1 << (h & 63)) != 0, touched.contains(ids[i]) { touchedPositions.append(i) }
                }
            }
        }
        var positionBefore: [Int64: Int] = [:]
        for p in touchedPositions { positionBefore[before[p]] = p }

        // 2. The touched assets that match now, in result order, with their sort keys.
        let expressions = query.order.map(\.expression).joined(separator: ", ")
        let orderBy = query.order.map { db.dialect.orderTerm($0.expression, ascending: $0.ascending) }.joined(separator: ", ")
        let dialect = db.dialect
        let touchedIDs = dialect.isIn("a.id", touched.map { .integer($0) })
        let rows = try SQLRecord.fetchAll(
            db,
            sql: """
                SELECT a.id, \(expressions) FROM asset a WHERE \(query.whereClause.sql) \
                AND \(touchedIDs.sql) ORDER BY \(orderBy)
                """,
            arguments: SQLArguments(query.whereClause.arguments + touchedIDs.arguments))
        let width = query.order.count
        let matching: [(id: Int64, key: [SQLValue])] = rows.map { row in
            (row[0], Array(row.values[1...width]))
        }

        // 3. Place each among the untouched assets (still in order) by binary search on their sort keys. The
        //    searches go in step, so that each round reads the keys it needs with one statement (a round trip
        //    per probe costs too much on a server database): about log2(n) statements in all.
        let directions = query.order.map(\.ascending)
        func precedes(_ a: [SQLValue], _ b: [SQLValue]) -> Bool {
            for (i, ascending) in directions.enumerated() where i < a.count && i < b.count {
                let c = dialect.compare(a[i], b[i])
                if c != 0 { return ascending ? c < 0 : c > 0 }
            }
            return false
        }
        let untouchedCount = before.count - touchedPositions.count
        /// The index in `before` of the r-th untouched asset.
        func untouchedIndex(_ r: Int) -> Int {
            var low = 0
            var high = touchedPositions.count
            while low < high {
                let mid = (low + high) / 2
                if touchedPositions[mid] - mid <= r { low = mid + 1 } else { high = mid }
            }
            return r + low
        }
        // Per matching asset: how many untouched assets precede it, searched in lows[i]..<highs[i].
        var lows = [Int](repeating: 0, count: matching.count)
        var highs = [Int](repeating: untouchedCount, count: matching.count)
        var keys: [Int64: [SQLValue]] = [:]
        while true {
            // The matching assets are in result order, so their answers are too: each bounds its neighbours'.
            for i in matching.indices.dropFirst() { lows[i] = max(lows[i], lows[i - 1]) }
            for i in matching.indices.reversed().dropFirst() { highs[i] = min(highs[i], highs[i + 1]) }
            var probes: [(item: Int, id: Int64)] = []
            for i in matching.indices where lows[i] < highs[i] {
                probes.append((i, before[untouchedIndex((lows[i] + highs[i]) / 2)]))
            }
            if probes.isEmpty { break }
            let unknown = Set(probes.lazy.map(\.id).filter { keys[$0] == nil })
            if !unknown.isEmpty {
                let ids = dialect.isIn("a.id", unknown.map { .integer($0) })
                for row in try SQLRecord.fetchAll(
                    db, sql: "SELECT a.id, \(expressions) FROM asset a WHERE \(ids.sql)", arguments: SQLArguments(ids.arguments))
                {
                    keys[row[0]] = Array(row.values[1...width])
                }
            }
            for probe in probes {
                let mid = (lows[probe.item] + highs[probe.item]) / 2
                if precedes(keys[probe.id] ?? [], matching[probe.item].key) {
                    lows[probe.item] = mid + 1
                } else {
                    highs[probe.item] = mid
                }
            }
        }
        let untouchedBefore = lows

        // 4. The new membership: untouched assets with the matching touched ones merged in.
        var after = ContiguousArray<Int64>()
        after.reserveCapacity(untouchedCount + matching.count)
        var nextTouched = 0
        var cursor = 0
        func appendUntouched(upTo index: Int) {
            while cursor < index {
                if nextTouched < touchedPositions.count, touchedPositions[nextTouched] == cursor {
                    nextTouched += 1
                } else {
                    after.append(before[cursor])
                }
                cursor += 1
            }
        }
        for (i, item) in matching.enumerated() {
            appendUntouched(upTo: untouchedBefore[i] == 0 ? 0 : untouchedIndex(untouchedBefore[i] - 1) + 1)
            after.append(item.id)
        }
        appendUntouched(upTo: before.count)

        // 5. The details.
        var diff = FetchDiff()
        let matchingIDs = Set(matching.map(\.id))
        for p in touchedPositions where !matchingIDs.contains(before[p]) { diff.removed.insert(p) }
        var kept: [(position: Int, gapBefore: Int, gapAfter: Int, to: Int)] = []
        for (i, item) in matching.enumerated() {
            let to = i + untouchedBefore[i]
            if let p = positionBefore[item.id] {
                if updated.contains(item.id) { diff.changed.insert(to) }
                let touchedAhead = touchedPositions.partitioningIndex { $0 >= p }
                kept.append((p, p - touchedAhead, untouchedBefore[i], to))
            } else {
                diff.inserted.insert(to)
            }
        }
        kept.sort { $0.position < $1.position }
        // Kept assets stay put when they sit between the same untouched neighbours and keep their mutual order.
        let candidates = kept.indices.filter { kept[$0].gapBefore == kept[$0].gapAfter }
        let staying = Set(FetchDiff.longestIncreasingRun(candidates.map { kept[$0].to }).map { candidates[$0] })
        let movers = kept.indices.filter { !staying.contains($0) }.map { kept[$0] }
        let ordinals = movers.map { mover in mover.position - diff.removed.count(in: 0..<mover.position) }
        diff.moves = zip(FetchDiff.slots(of: ordinals, skipping: diff.inserted), movers).map { FetchDiff.Move(from: $0, to: $1.to) }
        return (after, diff)
    }
}

extension Array where Element == Int {
    /// The first index whose element satisfies `predicate` (the array is partitioned by it).
    fileprivate func partitioningIndex(where predicate: (Int) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if predicate(self[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
