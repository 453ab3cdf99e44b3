import Foundation
import PhotoLibraryEngine

/// A request to create, delete, rename or change the assets of an album, inside a change block.
open class PHAssetCollectionChangeRequest: PHChangeRequest, @unchecked Sendable {
    var state: CollectionEditState

    /// Creates a creation request (used by the factory method; not for direct use).
    public required init(_creatingCollectionWithIdentifier identifier: String, title: String) {
        self.state = .creation(identifier, kind: .assetCollection, title: title)
        super.init()
    }

    private init(target: String, snapshot: [String]?) {
        self.state = .change(target, kind: .assetCollection, snapshot: snapshot)
        super.init()
    }

    /// A request to create an album with a title.
    open class func creationRequestForAssetCollection(withTitle title: String) -> Self {
        self.init(_creatingCollectionWithIdentifier: LocalIdentifier.newAssetCollection(), title: title)
    }

    /// A placeholder for the album a creation request creates.
    open var placeholderForCreatedAssetCollection: PHObjectPlaceholder {
        PHObjectPlaceholder(localIdentifier: state.targetIdentifier ?? "", library: context.library)
    }

    /// Requests that albums be deleted (their assets stay in the library).
    open class func deleteAssetCollections(_ assetCollections: any NSFastEnumeration) {
        _ = FixedIntentRequest([.deleteCollections(assetCollections.photoObjects.map(\.localIdentifier), kind: .assetCollection)])
    }

    /// A request to change an album; nil when the collection cannot be changed (smart albums, moments, transient).
    public convenience init?(for assetCollection: PHAssetCollection) {
        self.init(for: assetCollection, assets: nil)
    }

    /// A request to change an album, with the membership you fetched: index-based edits then address that
    /// snapshot, and stay right if the album changed since.
    public convenience init?(for assetCollection: PHAssetCollection, assets: PHFetchResult<PHAsset>?) {
        guard assetCollection.canPerform(.addContent) else { return nil }
        self.init(target: assetCollection.localIdentifier, snapshot: assets?.localIdentifiers)
    }

    /// The album's title.
    open var title: String {
        get { state.newTitle ?? "" }
        set {
            checkInsideBlock()
            state.newTitle = newValue
        }
    }

    /// Adds assets (appended at the end).
    open func addAssets(_ assets: any NSFastEnumeration) {
        edit(.add(assets.photoObjects.map(\.localIdentifier)))
    }

    /// Inserts assets at indexes (as many indexes as assets).
    open func insertAssets(_ assets: any NSFastEnumeration, at indexes: IndexSet) {
        let ids = assets.photoObjects.map(\.localIdentifier)
        CollectionEditState.checkCounts(ids, indexes, "insertAssets")
        edit(.insert(ids, at: indexes))
    }

    /// Removes assets from the album (they stay in the library).
    open func removeAssets(_ assets: any NSFastEnumeration) {
        edit(.remove(assets.photoObjects.map(\.localIdentifier)))
    }

    /// Removes the assets at indexes.
    open func removeAssets(at indexes: IndexSet) {
        edit(.removeAt(indexes))
    }

    /// Replaces the assets at indexes.
    open func replaceAssets(at indexes: IndexSet, withAssets assets: any NSFastEnumeration) {
        let ids = assets.photoObjects.map(\.localIdentifier)
        CollectionEditState.checkCounts(ids, indexes, "replaceAssets")
        edit(.replace(at: indexes, with: ids))
    }

    /// Moves the assets at indexes to `toIndex`, an index computed after removing them.
    open func moveAssets(at fromIndexes: IndexSet, to toIndex: Int) {
        edit(.move(at: fromIndexes, to: toIndex))
    }

    private func edit(_ edit: MembershipEdit) {
        checkInsideBlock()
        state.edits.append(edit)
    }

    override func intents() -> [ChangeIntent] { state.intents() }
}
