import Foundation

/// How a fetch result changed, in PhotoKit's frames (`PHFetchResultChangeDetails`).
///
/// Apply in RICE order to the old list to get the new one: remove ``removed`` (indexes of the old list), insert
/// the new objects at ``inserted`` (indexes of the new list, in ascending order), reload ``changed`` (indexes of
/// the new list), then apply ``moves``: each `from` is an index in the list as it is after the removals and
/// insertions, each `to` an index in the new list; the moves happen together, and the objects that do not move
/// keep their relative order in the remaining slots.
package struct FetchDiff: Sendable, Equatable {
    package var removed = IndexSet()
    package var inserted = IndexSet()
    package var changed = IndexSet()
    package var moves: [Move] = []

    package struct Move: Sendable, Equatable {
        package var from: Int
        package var to: Int
    }

    package init() {}

    package var isEmpty: Bool { removed.isEmpty && inserted.isEmpty && changed.isEmpty && moves.isEmpty }

    /// The diff between two complete lists of distinct keys; `changed` says which surviving keys changed.
    package static func between<Key: Hashable>(
        _ before: some RandomAccessCollection<Key>, _ after: some RandomAccessCollection<Key>, changed: (Key) -> Bool
    ) -> FetchDiff {
        var afterIndex: [Key: Int] = [:]
        afterIndex.reserveCapacity(after.count)
        for (index, key) in after.enumerated() { afterIndex[key] = index }
        var diff = FetchDiff()
        // Survivors in old order: (ordinal after the removals, index in the new list).
        var survivors: [(ordinal: Int, to: Int)] = []
        var beforeKeys = Set<Key>(minimumCapacity: before.count)
        for (index, key) in before.enumerated() {
            beforeKeys.insert(key)
            if let to = afterIndex[key] {
                survivors.append((survivors.count, to))
            } else {
                diff.removed.insert(index)
            }
        }
        for (index, key) in after.enumerated() {
            if !beforeKeys.contains(key) {
                diff.inserted.insert(index)
            } else if changed(key) {
                diff.changed.insert(index)
            }
        }
        let staying = longestIncreasingRun(survivors.map(\.to))
        let movers = survivors.enumerated().filter { !staying.contains($0.offset) }.map(\.element)
        diff.moves = slots(of: movers.map(\.ordinal), skipping: diff.inserted).enumerated().map { i, from in
            Move(from: from, to: movers[i].to)
        }
        return diff
    }

    /// The offsets of one longest strictly increasing subsequence of `values` (patience sorting, O(n log n)).
    static func longestIncreasingRun(_ values: [Int]) -> Set<Int> {
        var tails: [Int] = []  // offsets of the smallest tail of each run length
        var previous = [Int](repeating: -1, count: values.count)
        for (offset, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let mid = (low + high) / 2
                if values[tails[mid]] < value { low = mid + 1 } else { high = mid }
            }
            if low > 0 { previous[offset] = tails[low - 1] }
            if low == tails.count { tails.append(offset) } else { tails[low] = offset }
        }
        var run = Set<Int>()
        var cursor = tails.last ?? -1
        while cursor >= 0 {
            run.insert(cursor)
            cursor = previous[cursor]
        }
        return run
    }

    /// Where the elements with the given ordinals (ascending) of the list after the removals sit once the new
    /// objects are inserted at `inserted`: the ordinal-th slot not taken by an insertion.
    static func slots(of ordinals: [Int], skipping inserted: IndexSet) -> [Int] {
        var result: [Int] = []
        result.reserveCapacity(ordinals.count)
        var insertions = inserted.makeIterator()
        var nextInsertion = insertions.next()
        var passed = 0  // insertions at or before the current slot
        for ordinal in ordinals {
            while let next = nextInsertion, next <= ordinal + passed {
                passed += 1
                nextInsertion = insertions.next()
            }
            result.append(ordinal + passed)
        }
        return result
    }
}
