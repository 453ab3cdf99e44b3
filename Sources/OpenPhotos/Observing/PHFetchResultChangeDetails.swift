import Foundation
import PhotoLibraryEngine

/// How a fetch result changed: the new result and, when incremental, index sets in PhotoKit's frames.
///
/// Apply the details in RICE order to the old list to get ``fetchResultAfterChanges``:
/// 1. remove ``removedIndexes`` (indexes of ``fetchResultBeforeChanges``);
/// 2. insert ``insertedObjects`` at ``insertedIndexes`` (indexes of the new result, ascending);
/// 3. reload ``changedIndexes`` (indexes of the new result);
/// 4. apply the moves of ``enumerateMoves(_:)``: each `fromIndex` is an index in the list as it is after steps 1
///    and 2, each `toIndex` an index in the new result; the moves happen together, and objects that do not move
///    keep their order in the remaining slots (as `UICollectionView` batch updates apply them).
open class PHFetchResultChangeDetails<ObjectType: PHObject>: NSObject, @unchecked Sendable {
    /// The fetch result you passed in.
    open private(set) var fetchResultBeforeChanges: PHFetchResult<ObjectType>
    /// The fetch result as it would be fetched right after the change: keep this one.
    open private(set) var fetchResultAfterChanges: PHFetchResult<ObjectType>
    /// False when only *that* the result changed is known (`wantsIncrementalChangeDetails == false`): reload.
    open private(set) var hasIncrementalChanges: Bool
    let diff: FetchDiff

    init(before: PHFetchResult<ObjectType>, after: PHFetchResult<ObjectType>, diff: FetchDiff, incremental: Bool) {
        self.fetchResultBeforeChanges = before
        self.fetchResultAfterChanges = after
        self.diff = diff
        self.hasIncrementalChanges = incremental
    }

    /// Computes the details between two fetch results of your own; Photos cannot know which objects changed
    /// content between them, so only `changedObjects` are reported as changed.
    public convenience init(from fromResult: PHFetchResult<ObjectType>, to toResult: PHFetchResult<ObjectType>, changedObjects: [ObjectType]) {
        let changed = Set(changedObjects.map(\.localIdentifier))
        let diff = FetchDiff.between(fromResult.localIdentifiers, toResult.localIdentifiers, changed: changed.contains)
        self.init(before: fromResult, after: toResult, diff: diff, incremental: true)
    }

    /// Indexes of the removed objects, relative to ``fetchResultBeforeChanges``; nil when not incremental.
    open var removedIndexes: IndexSet? { hasIncrementalChanges ? diff.removed : nil }
    /// The removed objects.
    open var removedObjects: [ObjectType] { hasIncrementalChanges ? fetchResultBeforeChanges.objects(at: diff.removed) : [] }
    /// Indexes of the inserted objects, relative to ``fetchResultAfterChanges``; nil when not incremental.
    open var insertedIndexes: IndexSet? { hasIncrementalChanges ? diff.inserted : nil }
    /// The inserted objects.
    open var insertedObjects: [ObjectType] { hasIncrementalChanges ? fetchResultAfterChanges.objects(at: diff.inserted) : [] }
    /// Indexes of objects whose content or metadata changed, relative to ``fetchResultAfterChanges``.
    open var changedIndexes: IndexSet? { hasIncrementalChanges ? diff.changed : nil }
    /// The changed objects (empty, not nil, when not incremental).
    open var changedObjects: [ObjectType] { hasIncrementalChanges ? fetchResultAfterChanges.objects(at: diff.changed) : [] }
    /// Whether objects were rearranged; false when not incremental.
    open var hasMoves: Bool { hasIncrementalChanges && !diff.moves.isEmpty }

    /// Calls `handler(fromIndex, toIndex)` for each moved object, in ascending `toIndex` order (frames above).
    open func enumerateMoves(_ handler: @escaping (Int, Int) -> Void) {
        guard hasIncrementalChanges else { return }
        for move in diff.moves.sorted(by: { $0.to < $1.to }) { handler(move.from, move.to) }
    }

    open override var description: String {
        guard hasIncrementalChanges else { return "<PHFetchResultChangeDetails: not incremental>" }
        return
            "<PHFetchResultChangeDetails: removed \(Array(diff.removed)) inserted \(Array(diff.inserted)) changed \(Array(diff.changed)) moves \(diff.moves.map { "\($0.from)→\($0.to)" })>"
    }
}
