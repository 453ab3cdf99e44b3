import Foundation
import PhotoLibraryEngine

/// A request to create, delete, rename or rearrange a folder (collection list), inside a change block.
open class PHCollectionListChangeRequest: PHChangeRequest, @unchecked Sendable {
    var state: CollectionEditState

    /// Creates a creation request (used by the factory method; not for direct use).
    public required init(_creatingListWithIdentifier identifier: String, title: String) {
        self.state = .creation(identifier, kind: .collectionList, title: title)
        super.init()
    }

    private init(target: String?, snapshot: [String]?) {
        self.state = .change(target, kind: .collectionList, snapshot: snapshot)
        super.init()
    }

    /// A request to create a folder with a title.
    open class func creationRequestForCollectionList(withTitle title: String) -> Self {
        self.init(_creatingListWithIdentifier: LocalIdentifier.newCollectionList(), title: title)
    }

    /// A placeholder for the folder a creation request creates.
    open var placeholderForCreatedCollectionList: PHObjectPlaceholder {
        PHObjectPlaceholder(localIdentifier: state.targetIdentifier ?? "", library: context.library)
    }

    /// Requests that folders be deleted, with every collection inside them (not their assets).
    open class func deleteCollectionLists(_ collectionLists: any NSFastEnumeration) {
        _ = FixedIntentRequest([.deleteCollections(collectionLists.photoObjects.map(\.localIdentifier), kind: .collectionList)])
    }

    /// A request to change a folder; nil when it cannot be changed (moment lists, transient lists).
    public convenience init?(for collectionList: PHCollectionList) {
        self.init(for: collectionList, childCollections: nil)
    }

    /// A request to change a folder with the children you fetched, for index-safe edits.
    public convenience init?(for collectionList: PHCollectionList, childCollections: PHFetchResult<PHCollection>?) {
        guard collectionList.canPerform(.addContent) else { return nil }
        // The root folder's children are the top level.
        self.init(target: collectionList.isRootFolder ? nil : collectionList.localIdentifier, snapshot: childCollections?.localIdentifiers)
    }

    /// A request to rearrange, add or remove collections at the top level of the user's albums and folders.
    public convenience init?(forTopLevelCollectionListUserCollections childCollections: PHFetchResult<PHCollection>?) {
        self.init(target: nil, snapshot: childCollections?.localIdentifiers)
    }

    /// The folder's title.
    open var title: String {
        get { state.newTitle ?? "" }
        set {
            checkInsideBlock()
            state.newTitle = newValue
        }
    }

    /// Adds collections (a collection has one parent: it leaves its previous folder).
    open func addChildCollections(_ collections: any NSFastEnumeration) {
        edit(.add(collections.photoObjects.map(\.localIdentifier)))
    }

    /// Inserts collections at indexes.
    open func insertChildCollections(_ collections: any NSFastEnumeration, at indexes: IndexSet) {
        let ids = collections.photoObjects.map(\.localIdentifier)
        CollectionEditState.checkCounts(ids, indexes, "insertChildCollections")
        edit(.insert(ids, at: indexes))
    }

    /// Removes collections from the folder (they move to the top level).
    open func removeChildCollections(_ collections: any NSFastEnumeration) {
        edit(.remove(collections.photoObjects.map(\.localIdentifier)))
    }

    /// Removes the collections at indexes.
    open func removeChildCollections(at indexes: IndexSet) {
        edit(.removeAt(indexes))
    }

    /// Replaces the collections at indexes.
    open func replaceChildCollections(at indexes: IndexSet, withChildCollections collections: any NSFastEnumeration) {
        let ids = collections.photoObjects.map(\.localIdentifier)
        CollectionEditState.checkCounts(ids, indexes, "replaceChildCollections")
        edit(.replace(at: indexes, with: ids))
    }

    /// Moves the collections at indexes to `toIndex`, computed after removing them.
    open func moveChildCollections(at indexes: IndexSet, to toIndex: Int) {
        edit(.move(at: indexes, to: toIndex))
    }

    private func edit(_ edit: MembershipEdit) {
        checkInsideBlock()
        state.edits.append(edit)
    }

    override func intents() -> [ChangeIntent] { state.intents() }
}
