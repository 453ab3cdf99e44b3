import Foundation

/// Where a library's bytes live: originals, renderings, adjustment data, cached derivatives and files received and
/// not yet imported. The engine reads and writes them only through this seam, so a store whose blobs are not files
/// (object storage) can stand in for the folder beside the database.
///
/// Blobs are named by the key the metadata store keeps for them (a resource's stored path and the SHA-256 of its
/// bytes): a folder store files a blob under its path, a store that ``sharesContent`` under its digest. No key reaches
/// a caller above the engine as a file: the one way out is ``materialize(_:)``, for a decoder that reads files.
package protocol BlobStore: Sendable {
    /// Whether blobs of the same bytes are one stored blob (content-addressed object storage): then a blob may be
    /// removed only when no committed row names its digest, judged under the write lock (see
    /// ``LibraryEngine/removeUnreferenced(_:)``), and a blob put by a transaction that failed is left to collection.
    var sharesContent: Bool { get }

    /// The name ``storedKeys()`` lists a blob under (what verification compares the listing with).
    func storedName(of key: BlobKey) -> String

    /// The size of a stored blob, from the store (never the size the metadata claims).
    /// - throws: ``LibraryError/missingResource(_:)`` when it is not there.
    func size(of key: BlobKey) throws(LibraryError) -> Int64

    /// Opens a stored blob for reading in pieces (a stream of a whole video reads through one handle).
    /// - throws: ``LibraryError/missingResource(_:)`` when it is not there or not a plain blob.
    func open(_ key: BlobKey) throws(LibraryError) -> any BlobReader

    /// A whole small blob (a recipe, a plist): nil when it is missing, not a plain blob, or larger than `limit` —
    /// judged by what is stored, and never more than `limit` bytes read.
    func readSmall(_ key: BlobKey, limit: Int) -> Data?

    /// A local file holding the blob's bytes, for a decoder (libvips, libavformat) or for serving it without a copy:
    /// the stored file itself in a folder store, a cached copy in a store that is not local. Readers must not write it.
    func materialize(_ key: BlobKey) throws(LibraryError) -> URL

    /// ``materialize(_:)``, telling `progress` how much of a download is done (0…1) as it goes; `progress` returning
    /// false stops it (``LibraryError/userCancelled(_:)``). Where the blob is local, no progress is told.
    func materialize(_ key: BlobKey, progress: (@Sendable (Double) -> Bool)?) throws(LibraryError) -> URL

    /// Whether the blob's bytes are on this machine (``materialize(_:)`` needs no network): always in a folder
    /// store; when this node has a copy for object storage.
    func isLocal(_ key: BlobKey) -> Bool

    /// Up to `count` bytes of a stored blob from `offset` (fewer at the end, none past it).
    func read(_ key: BlobKey, offset: Int64, count: Int) throws(LibraryError) -> Data

    /// A cached derivative of an asset (a thumbnail's pixels), nil when there is none.
    func derivative(assetUUID: String, name: String) -> Data?

    /// Stores a derivative, replacing one of the same name atomically (a reader sees the old one or the new one,
    /// never none). Derivatives can always be made again: a failure is not an error.
    func storeDerivative(_ data: Data, assetUUID: String, name: String)

    /// A derivative kept as a file (a web rendering of a video, too large to hold in memory): its size, a tag that
    /// changes when it is stored again, and the local file where this machine has one; nil when there is none.
    func derivativeFile(assetUUID: String, name: String) -> StoredDerivative?

    /// Up to `count` bytes of a derivative file from `offset` (fewer at the end).
    func readDerivative(assetUUID: String, name: String, offset: Int64, count: Int) throws(LibraryError) -> Data

    /// Stores `file` as a derivative (taking it: the file is moved or removed), unless one of that name is stored
    /// already — the first one stored stays, so that every node serves the same bytes.
    func storeDerivativeFile(_ file: URL, assetUUID: String, name: String) throws(LibraryError)

    /// Puts blobs under new keys, in order, and makes them durable before returning: they must be stored before the
    /// rows that name them commit. Each key is appended to `placed` as soon as it is stored, so that after a failure
    /// midway the caller removes exactly those. A key already there is replaced (an orphan of a writer that died:
    /// committed rows never reuse a key).
    func put(_ blobs: [(source: BlobSource, key: BlobKey)], placed: inout [BlobKey]) throws(LibraryError)

    /// The size and SHA-256 (lowercase hex) of a stored blob, from its bytes (what verification compares with the
    /// rows).
    /// - throws: ``LibraryError/missingResource(_:)`` when it is not there.
    func digest(of key: BlobKey) throws(LibraryError) -> (size: Int64, sha256: String)

    /// Every stored original and rendering (not derivatives, not uploads), by name (see ``storedName(of:)``):
    /// verification's listing, to find blobs no row names, and collection's.
    func storedBlobs() throws(LibraryError) -> [StoredBlob]

    /// Sends staged files ahead of their transaction, outside the write lock, where storing is slow (an upload); the
    /// transaction's ``put(_:placed:)`` then only checks they are there. A folder store does nothing here.
    func preload(_ staged: [(file: URL, key: BlobKey)]) throws(LibraryError)

    /// Ends uploads in parts begun before `date` and never completed (a writer killed mid-upload): the store keeps
    /// their parts, unlisted, until then. Returns how it names them. A folder store has none.
    func abortAbandonedUploads(startedBefore date: Date) -> [String]

    /// Upload areas of processes that are gone and were not swept yet (their names, for a report).
    func abandonedUploadAreas() -> [String]

    /// Removes a stored blob (one no committed row references any more); a missing blob is not an error.
    func remove(_ key: BlobKey)

    /// Removes an asset's derivatives whose names begin with `prefix` (those of one rendered version), or all of
    /// them when `prefix` is nil (the asset is gone).
    func removeDerivatives(assetUUID: String, prefix: String?)

    /// A new area of this process for files received and not yet imported (the server's uploads), in the store so
    /// that importing them moves no bytes. It is this process's while the area lives; a process that dies leaves it
    /// to the next writer's recovery.
    func makeUploadArea(label: String) throws(LibraryError) -> ProcessFolder
}

/// A derivative file as the store has it (see ``BlobStore/derivativeFile(assetUUID:name:)``).
package struct StoredDerivative: Sendable, Equatable {
    /// Its size in bytes.
    package var size: Int64
    /// What changes when it is stored again (a file's inode and time, an object's ETag): validators are made of it.
    package var tag: String
    /// The file on this machine, nil when it is read from the store by ranges.
    package var file: URL?

    package init(size: Int64, tag: String, file: URL?) {
        self.size = size
        self.tag = tag
        self.file = file
    }
}

/// A blob as the rows name it: a resource's stored path and the SHA-256 (lowercase hex) of its bytes.
package struct BlobKey: Sendable, Hashable, CustomStringConvertible {
    package var path: String
    package var sha256: String

    package init(path: String, sha256: String) {
        self.path = path
        self.sha256 = sha256
    }

    /// How messages name it: its path.
    package var description: String { path }
}

extension ResourceRecord {
    /// The blob the resource's bytes are.
    package var blobKey: BlobKey { BlobKey(path: path, sha256: sha256) }
}

/// A blob the store lists: its name, the key that removes it, and when it was stored.
package struct StoredBlob: Sendable, Hashable {
    package var name: String
    package var key: BlobKey
    package var modified: Date?

    package init(name: String, key: BlobKey, modified: Date?) {
        self.name = name
        self.key = key
        self.modified = modified
    }
}

/// Where the bytes of a blob being put come from.
package enum BlobSource: Sendable, Hashable {
    /// A file this writer staged (see ``FileStager``): taken by rename in a folder store, uploaded by one that is not
    /// local. It is gone from staging once put.
    case staged(URL)
    /// The bytes of another stored blob (a previous version kept for an edit): a hard link in a folder store, a copy
    /// inside the store elsewhere — never through this process.
    case stored(BlobKey)
}

/// An open stored blob. The folder store's holds the file open, so it reads the file it opened even when the key is
/// removed meanwhile (a superseded rendering).
package protocol BlobReader: AnyObject, Sendable {
    /// The blob's size when it was opened.
    var size: Int64 { get }
    /// Up to `count` bytes from `offset` (fewer at the end, none past it).
    func read(at offset: Int64, count: Int) throws(LibraryError) -> Data
}

extension BlobStore {
    package func preload(_ staged: [(file: URL, key: BlobKey)]) throws(LibraryError) {}

    package func abortAbandonedUploads(startedBefore date: Date) -> [String] { [] }

    package func materialize(_ key: BlobKey, progress: (@Sendable (Double) -> Bool)?) throws(LibraryError) -> URL { try materialize(key) }

    package func isLocal(_ key: BlobKey) -> Bool { true }

    /// Up to `count` bytes of a stored blob from `offset`: through an opened reader.
    package func read(_ key: BlobKey, offset: Int64, count: Int) throws(LibraryError) -> Data {
        try open(key).read(at: offset, count: count)
    }
}
