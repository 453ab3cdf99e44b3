import Foundation
import OpenPhotos

/// Records the changes an observer receives, and where it received them: register one with
/// ``OpenPhotos/PHPhotoLibrary/register(_:)`` and take the changes in order with ``next()``.
public final class ChangeRecorder: NSObject, PHPhotoLibraryChangeObserver, @unchecked Sendable {
    /// A recorder that has received nothing yet.
    public override init() {}

    private let lock = NSLock()
    private let arrived = DispatchSemaphore(value: 0)
    /// The changes received and not yet taken by ``next()``, oldest first.
    public private(set) var changes: [PHChange] = []
    /// Whether any change arrived on the main thread (PhotoKit never delivers there).
    public private(set) var onMainThread = false
    /// The threads changes arrived on.
    public private(set) var threads = Set<String>()

    /// Records `changeInstance`.
    public func photoLibraryDidChange(_ changeInstance: PHChange) {
        lock.withLock {
            changes.append(changeInstance)
            if Thread.isMainThread { onMainThread = true }
            threads.insert(Thread.current.description)
        }
        arrived.signal()
    }

    /// Waits for the next change (fails the test after 10 s).
    public func next() throws -> PHChange {
        guard arrived.wait(timeout: .now() + 10) == .success else { throw Timeout() }
        return lock.withLock { changes.removeFirst() }
    }

    /// Whether a change arrives within `seconds`.
    public func nothingArrives(within seconds: Double) -> Bool { arrived.wait(timeout: .now() + seconds) == .timedOut }

    /// No change arrived in time.
    public struct Timeout: Error {}
}

/// Applies details to the identifiers of the old result in RICE order, as a collection view's batch update does:
/// removed (before frame), inserted (at their indexes in the new result), then moves, `from` in the list after
/// removals and insertions and `to` in the new result. The moves are simultaneous: moved and inserted objects sit
/// at their new indexes and every other object keeps its order in the remaining slots.
public func applying<T: PHObject>(_ details: PHFetchResultChangeDetails<T>, to old: [String]) -> [String] {
    var list = old
    for index in (details.removedIndexes ?? []).reversed() { list.remove(at: index) }
    let inserted = details.insertedIndexes ?? []
    for (index, object) in zip(inserted, details.insertedObjects) { list.insert(object.localIdentifier, at: index) }
    var moves: [(Int, Int)] = []
    details.enumerateMoves { moves.append(($0, $1)) }
    guard !moves.isEmpty else { return list }
    var result = [String?](repeating: nil, count: list.count)
    for index in inserted { result[index] = list[index] }
    for (from, to) in moves { result[to] = list[from] }
    let placed = Set(moves.map(\.0)).union(inserted)
    var rest = list.indices.filter { !placed.contains($0) }.map { list[$0] }.makeIterator()
    for slot in result.indices where result[slot] == nil { result[slot] = rest.next() }
    return result.map { $0! }
}

/// The local identifiers of a fetch result, in order.
public func identifiers<T: PHObject>(_ result: PHFetchResult<T>) -> [String] { result.map(\.localIdentifier) }
