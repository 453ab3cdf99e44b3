import PhotoMedia
import Foundation

/// Where a new resource's bytes come from.
package enum ResourceSource: Sendable {
    case file(URL, move: Bool)
    case data(Data)
    /// A file an import already copied into the staging folder and hashed (and maybe probed): it is placed as it
    /// is, so each original is read once.
    case staged(StagedFile, MediaInfo?)
}

/// A resource added to an asset being created (`PHAssetCreationRequest.addResource`).
package struct ResourceInput: Sendable {
    package var type: Int
    package var source: ResourceSource
    package var originalFilename: String?
    package var uniformTypeIdentifier: String?

    package init(type: Int, source: ResourceSource, originalFilename: String?, uniformTypeIdentifier: String?) {
        self.type = type
        self.source = source
        self.originalFilename = originalFilename
        self.uniformTypeIdentifier = uniformTypeIdentifier
    }
}

/// Writable asset properties; nil means "not changed", `.some(nil)` means "set to nil".
package struct AssetPropertyChanges: Sendable {
    package var creationDate: Date??
    package var location: LocationRecord??
    package var isFavorite: Bool?
    package var isHidden: Bool?
    /// 0 (unset) to 5.
    package var rating: Int?
    package var caption: String??
    /// Keywords added and removed, in the order the requests made them; applied to the keywords the asset has when
    /// the block commits (so two clients adding different keywords both keep theirs).
    package var keywordEdits: [KeywordEdit] = []
    /// A Live Photo's video turned on or off.
    package var livePhotoVideoPlaybackEnabled: Bool?
    /// Where a created asset came from: a device's backup (creation only).
    package var origin: AssetOrigin?
    /// Which original of a RAW + JPEG pair the asset shows: 0 the JPEG or HEIC, 1 the RAW.
    package var originalChoice: Int?

    package init() {}

    package var isEmpty: Bool {
        creationDate == nil && location == nil && isFavorite == nil && isHidden == nil && rating == nil && caption == nil
            && keywordEdits.isEmpty && livePhotoVideoPlaybackEnabled == nil && originalChoice == nil
    }
}

/// The device an asset was backed up from: the client that sent it, the identifier the device gave it (one asset per
/// origin: a second creation with the same one fails with `.duplicateOrigin`) and its cloud identifier.
package struct AssetOrigin: Sendable, Equatable {
    package var client: String
    package var source: String
    package var cloudIdentifier: String?

    package init(client: String, source: String, cloudIdentifier: String?) {
        (self.client, self.source, self.cloudIdentifier) = (client, source, cloudIdentifier)
    }
}

/// One keyword added to or removed from an asset.
package enum KeywordEdit: Sendable, Equatable {
    case add(String)
    case remove(String)
}

/// An edit of an ordered membership list (album assets or folder children), PhotoKit's index semantics.
package enum MembershipEdit: Sendable {
    /// Append (or, without a snapshot, anywhere; we append).
    case add([String])
    /// NSMutableArray `insertObjects:atIndexes:` semantics.
    case insert([String], at: IndexSet)
    case remove([String])
    case removeAt(IndexSet)
    case replace(at: IndexSet, with: [String])
    /// Remove the items, then insert them at `to`, an index computed after the removal.
    case move(at: IndexSet, to: Int)
}

/// What an edit was made from: the version its editing input handed to the editor.
package enum EditBasis: Int, Sendable, Codable {
    /// The original (an unedited asset, or an edit reopened whose base is the original).
    case original = 0
    /// The stored base of the last edit (its adjustment base photo), with that edit's adjustment data.
    case adjustmentBase = 1
    /// The current rendering of an edited asset (the editor could not read its adjustment data): edits stack.
    case currentRendering = 2
}

/// A content edit to commit (`PHAssetChangeRequest.contentEditingOutput`): the rendered file, its recipe, and the
/// version it was made from.
package struct ContentEdit: Sendable {
    /// The rendered photo (JPEG or HEIC) or video (QuickTime) the editor wrote; copied in, never moved.
    package var renderedFile: URL
    package var formatIdentifier: String
    package var formatVersion: String
    package var adjustmentData: Data
    package var basis: EditBasis
    /// The asset's content version the input was made from; nil for an asset created in the same change block.
    package var baseContentVersion: Int?
    /// The asset the output was made for (it must be the one it is committed to).
    package var madeFor: String
    /// A Live Photo's edited video (QuickTime), beside the edited still.
    package var renderedPairedVideo: URL?
    /// What the API layer found wrong with the output before the engine saw it (reported as invalid).
    package var problem: String?
    /// An adjustment property list to store as it is (a backup keeps the device's bytes); it must hold the same
    /// format, version and data.
    package var keptPropertyList: Data?

    package init(
        renderedFile: URL, formatIdentifier: String, formatVersion: String, adjustmentData: Data, basis: EditBasis,
        baseContentVersion: Int?, madeFor: String, problem: String? = nil, renderedPairedVideo: URL? = nil
    ) {
        self.madeFor = madeFor
        self.problem = problem
        self.renderedPairedVideo = renderedPairedVideo
        self.renderedFile = renderedFile
        self.formatIdentifier = formatIdentifier
        self.formatVersion = formatVersion
        self.adjustmentData = adjustmentData
        self.basis = basis
        self.baseContentVersion = baseContentVersion
    }
}

/// One intent collected from a change request inside a change block.
package enum ChangeIntent: Sendable {
    case createAsset(localIdentifier: String, resources: [ResourceInput], properties: AssetPropertyChanges)
    case updateAsset(localIdentifier: String, properties: AssetPropertyChanges)
    /// A new rendering and adjustment data for an asset (applied after the block's creations).
    case editAssetContent(localIdentifier: String, ContentEdit)
    /// Back to the original: the edit's renderings, base and adjustment data removed.
    case revertAssetContent(localIdentifier: String)
    case deleteAssets([String])
    case recoverAssets([String])
    case createCollection(localIdentifier: String, kind: CollectionKind, title: String)
    /// `collection == nil` means the top level of user collections.
    case updateCollection(
        localIdentifier: String?, kind: CollectionKind, title: String?, edits: [MembershipEdit], snapshot: [String]?)
    case deleteCollections([String], kind: CollectionKind)
    /// A background upload job made or changed (`PHAssetResourceUploadJobChangeRequest`).
    case uploadJob(localIdentifier: String, UploadJobChange)
}

extension ChangeIntent {
    var isCollectionCreation: Bool {
        if case .createCollection = self { return true }
        return false
    }

    var isContentRevert: Bool {
        if case .revertAssetContent = self { return true }
        return false
    }
}

/// What a committed transaction did: the change journal's record of it (stored as JSON, short keys).
///
/// Assets carry their row id as well as their local identifier, so fetch results (which hold row ids) can find
/// them, even after a purge removed the row. Moving an asset to Recently Deleted and purging it are deletions;
/// recovering it is an insertion: that is how they look from every fetch but Recently Deleted.
package struct CommitSummary: Sendable, Equatable, Codable {
    package struct Asset: Sendable, Hashable, Codable {
        package var id: Int64
        package var localIdentifier: String

        package init(id: Int64, localIdentifier: String) {
            self.id = id
            self.localIdentifier = localIdentifier
        }

        enum CodingKeys: String, CodingKey {
            case id = "r"
            case localIdentifier = "l"
        }
    }

    package struct Collection: Sendable, Hashable, Codable {
        package var localIdentifier: String
        package var kind: CollectionKind

        package init(localIdentifier: String, kind: CollectionKind) {
            self.localIdentifier = localIdentifier
            self.kind = kind
        }

        enum CodingKeys: String, CodingKey {
            case localIdentifier = "l"
            case kind = "k"
        }
    }

    package private(set) var insertedAssets: [Asset] = []
    package private(set) var updatedAssets: [Asset] = []
    package private(set) var deletedAssets: [Asset] = []
    /// Updated assets whose content (pixels) changed: an edit or a revert (`assetContentChanged`).
    package private(set) var contentChangedAssets: [Asset] = []
    /// The same, for constant-time membership while a transaction records its changes.
    private var inserted = Set<Asset>()
    private var updated = Set<Asset>()
    private var deleted = Set<Asset>()
    package var insertedCollections: [Collection] = []
    package var updatedCollections: [Collection] = []
    package var deletedCollections: [Collection] = []

    package init() {}

    /// What a served library's history says of a transaction: objects by local identifier only (row ids are the
    /// server's, and 0 here).
    package init(remote event: RemoteChangeEvent, collectionKinds: (String) -> CollectionKind) {
        func assets(_ identifiers: Set<String>) -> [Asset] { identifiers.sorted().map { Asset(id: 0, localIdentifier: $0) } }
        func collections(_ identifiers: Set<String>) -> [Collection] {
            identifiers.sorted().map { Collection(localIdentifier: $0, kind: collectionKinds($0)) }
        }
        insertedAssets = assets(event.insertedAssets)
        updatedAssets = assets(event.updatedAssets)
        deletedAssets = assets(event.deletedAssets)
        contentChangedAssets = assets(event.contentChangedAssets)
        (inserted, updated, deleted) = (Set(insertedAssets), Set(updatedAssets), Set(deletedAssets))
        insertedCollections = collections(event.insertedCollections)
        updatedCollections = collections(event.updatedCollections)
        deletedCollections = collections(event.deletedCollections)
    }

    enum CodingKeys: String, CodingKey {
        case insertedAssets = "ai", updatedAssets = "au", deletedAssets = "ad", contentChangedAssets = "ac"
        case insertedCollections = "ci", updatedCollections = "cu", deletedCollections = "cd"
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        insertedAssets = try c.decodeIfPresent([Asset].self, forKey: .insertedAssets) ?? []
        updatedAssets = try c.decodeIfPresent([Asset].self, forKey: .updatedAssets) ?? []
        deletedAssets = try c.decodeIfPresent([Asset].self, forKey: .deletedAssets) ?? []
        contentChangedAssets = try c.decodeIfPresent([Asset].self, forKey: .contentChangedAssets) ?? []
        (inserted, updated, deleted) = (Set(insertedAssets), Set(updatedAssets), Set(deletedAssets))
        insertedCollections = try c.decodeIfPresent([Collection].self, forKey: .insertedCollections) ?? []
        updatedCollections = try c.decodeIfPresent([Collection].self, forKey: .updatedCollections) ?? []
        deletedCollections = try c.decodeIfPresent([Collection].self, forKey: .deletedCollections) ?? []
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        if !insertedAssets.isEmpty { try c.encode(insertedAssets, forKey: .insertedAssets) }
        if !updatedAssets.isEmpty { try c.encode(updatedAssets, forKey: .updatedAssets) }
        if !deletedAssets.isEmpty { try c.encode(deletedAssets, forKey: .deletedAssets) }
        if !contentChangedAssets.isEmpty { try c.encode(contentChangedAssets, forKey: .contentChangedAssets) }
        if !insertedCollections.isEmpty { try c.encode(insertedCollections, forKey: .insertedCollections) }
        if !updatedCollections.isEmpty { try c.encode(updatedCollections, forKey: .updatedCollections) }
        if !deletedCollections.isEmpty { try c.encode(deletedCollections, forKey: .deletedCollections) }
    }

    package var isEmpty: Bool {
        insertedAssets.isEmpty && updatedAssets.isEmpty && deletedAssets.isEmpty && insertedCollections.isEmpty
            && updatedCollections.isEmpty && deletedCollections.isEmpty
    }

    /// Row ids of every asset the transaction inserted, updated or deleted.
    package var touchedAssetIDs: Set<Int64> {
        Set((insertedAssets + updatedAssets + deletedAssets).map(\.id))
    }

    /// Records an asset change once per transaction: a later kind of change supersedes an earlier one
    /// (inserted then updated stays inserted; updated then deleted becomes deleted; deleted then recovered is an
    /// update of an asset that never left).
    mutating func note(_ asset: Asset, _ kind: AssetChangeKind) {
        let wasInserted = inserted.contains(asset)
        let wasDeleted = deleted.contains(asset)
        switch kind {
        case .inserted:
            if wasDeleted {
                deleted.remove(asset)
                deletedAssets.removeAll { $0 == asset }
                if updated.insert(asset).inserted { updatedAssets.append(asset) }
            } else if !wasInserted {
                inserted.insert(asset)
                insertedAssets.append(asset)
            }
        case .updated:
            if !wasInserted, !wasDeleted, updated.insert(asset).inserted { updatedAssets.append(asset) }
        case .deleted:
            if updated.remove(asset) != nil { updatedAssets.removeAll { $0 == asset } }
            if wasInserted {
                inserted.remove(asset)
                insertedAssets.removeAll { $0 == asset }
            } else if !wasDeleted {
                deleted.insert(asset)
                deletedAssets.append(asset)
            }
        }
    }

    /// Records that an asset's content changed (an edit or a revert); the asset is noted as updated too.
    mutating func noteContentChanged(_ asset: Asset) {
        note(asset, .updated)
        if !contentChangedAssets.contains(asset) { contentChangedAssets.append(asset) }
    }

    /// Whether the transaction changed the content of the asset with this local identifier.
    package func contentChanged(_ localIdentifier: String) -> Bool {
        contentChangedAssets.contains { $0.localIdentifier == localIdentifier }
    }

    /// Adds a later transaction's changes, as if both had been one transaction.
    package mutating func merge(_ later: CommitSummary) {
        for asset in later.insertedAssets { note(asset, .inserted) }
        for asset in later.updatedAssets { note(asset, .updated) }
        for asset in later.deletedAssets { note(asset, .deleted) }
        for asset in later.contentChangedAssets where !contentChangedAssets.contains(asset) { contentChangedAssets.append(asset) }
        for collection in later.insertedCollections where !insertedCollections.contains(collection) {
            deletedCollections.removeAll { $0 == collection }
            insertedCollections.append(collection)
        }
        for collection in later.updatedCollections { noteUpdated(collection) }
        for collection in later.deletedCollections where !deletedCollections.contains(collection) {
            updatedCollections.removeAll { $0 == collection }
            if insertedCollections.contains(collection) {
                insertedCollections.removeAll { $0 == collection }
            } else {
                deletedCollections.append(collection)
            }
        }
    }

    enum AssetChangeKind { case inserted, updated, deleted }

    mutating func noteUpdated(_ collection: Collection) {
        guard !insertedCollections.contains(collection), !deletedCollections.contains(collection),
            !updatedCollections.contains(collection)
        else { return }
        updatedCollections.append(collection)
    }
}
