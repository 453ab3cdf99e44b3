import Foundation

/// How one asset or collection changed in a transaction (``PHChange/changeDetails(for:)-(T)``).
///
/// For collections it describes the collection's own properties (title), not its membership: track membership
/// with a fetch result of its contents.
open class PHObjectChangeDetails<ObjectType: PHObject>: NSObject, @unchecked Sendable {
    /// The object you passed in.
    open private(set) var objectBeforeChanges: ObjectType
    /// The object as it is right after the transaction (as if fetched again), or nil when it was deleted.
    open private(set) var objectAfterChanges: ObjectType?
    /// Whether the asset's image or video content changed (re-request images); always false for collections.
    open private(set) var assetContentChanged: Bool
    /// Whether the object was deleted (for assets: moved to Recently Deleted or purged).
    open private(set) var objectWasDeleted: Bool

    init(before: ObjectType, after: ObjectType?, contentChanged: Bool, deleted: Bool) {
        self.objectBeforeChanges = before
        self.objectAfterChanges = after
        self.assetContentChanged = contentChanged
        self.objectWasDeleted = deleted
    }
}
