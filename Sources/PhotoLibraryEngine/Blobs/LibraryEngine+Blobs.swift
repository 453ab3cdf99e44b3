import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

extension LibraryEngine {
    /// A local file holding a resource's bytes, for a decoder that reads files or for serving without a copy (see
    /// ``BlobStore/materialize(_:)``): the one way a file of the library leaves the engine.
    package func materialize(_ resource: ResourceRecord) throws(LibraryError) -> URL {
        try blobs.materialize(resource.blobKey)
    }

    /// ``materialize(_:)``, telling `progress` how much of a download is done (0…1); returning false stops it.
    package func materialize(_ resource: ResourceRecord, progress: (@Sendable (Double) -> Bool)?) throws(LibraryError) -> URL {
        try blobs.materialize(resource.blobKey, progress: progress)
    }

    /// Whether a resource's bytes are on this machine (reading them needs no network).
    package func isLocal(_ resource: ResourceRecord) -> Bool {
        blobs.isLocal(resource.blobKey)
    }

    /// The size of a resource's stored bytes, from the blob store.
    package func storedSize(of resource: ResourceRecord) throws(LibraryError) -> Int64 {
        try blobs.size(of: resource.blobKey)
    }

    /// Up to `count` bytes of a resource from `offset`.
    package func read(_ resource: ResourceRecord, offset: Int64, count: Int) throws(LibraryError) -> Data {
        try blobs.read(resource.blobKey, offset: offset, count: count)
    }

    /// A resource's bytes opened for reading in pieces.
    package func open(_ resource: ResourceRecord) throws(LibraryError) -> any BlobReader {
        try blobs.open(resource.blobKey)
    }

    /// Removes the blobs of `keys` that no committed row names (purged and superseded resources, or what a failed
    /// transaction placed). In a folder store each is its own file and goes at once. In a store that shares content,
    /// another row may name the same bytes — and a writer that found them already stored relies on them — so each is
    /// judged under the write lock, where a writer checks the blobs it relies on are there before its rows commit (see
    /// ``BlobStore/put(_:placed:)``); what cannot be judged now (the database does not answer) is left to collection.
    package func removeUnreferenced(_ keys: [BlobKey]) {
        guard !keys.isEmpty else { return }
        guard blobs.sharesContent else {
            for key in keys { blobs.remove(key) }
            return
        }
        _ = try? removeUnnamed(keys)
    }

    /// Removes the blobs of `keys` that no committed row names — by digest in a store that shares content, by path
    /// in a folder — judged and removed under the write lock, a few hundred at a time. Returns those removed.
    @discardableResult
    func removeUnnamed(_ keys: [BlobKey]) throws(LibraryError) -> [BlobKey] {
        let byDigest = blobs.sharesContent
        var unique: [String: BlobKey] = [:]
        for key in keys { unique[byDigest ? key.sha256 : key.path] = key }
        let sorted = unique.sorted { $0.key < $1.key }
        var removed: [BlobKey] = []
        for start in stride(from: 0, to: sorted.count, by: 500) {
            let batch = sorted[start..<min(start + 500, sorted.count)]
            try write("remove files no asset refers to") { db in
                let column = byDigest ? "sha256" : "path"
                let names = db.dialect.isIn(column, batch.map { .text($0.key) })
                // By digest, an upload waiting to be imported names its bytes too (``shareUpload(_:file:now:)``); a
                // resource received for an asset not complete yet names its bytes either way (``receive(_:file:now:)``).
                let uploads = byDigest ? " UNION SELECT sha256 FROM upload WHERE \(names.sql)" : ""
                let incoming = " UNION SELECT \(column) FROM incoming_resource WHERE \(names.sql)"
                let named = Set(
                    try String.fetchAll(
                        db, sql: "SELECT DISTINCT \(column) FROM resource WHERE \(names.sql)\(uploads)\(incoming)",
                        arguments: names.statementArguments + (byDigest ? names.statementArguments : []) + names.statementArguments))
                for (name, key) in batch where !named.contains(name) {
                    blobs.remove(key)
                    removed.append(key)
                }
            }
        }
        return removed
    }

    /// Removes stored blobs that no asset refers to and that were stored more than `age` seconds ago — what writers
    /// that died between storing and committing left (a younger one may be a live writer's, about to commit: it would
    /// store it again, but need not) — and uploads in parts that were never completed. Returns the names removed.
    package func collectOrphans(olderThan age: TimeInterval, now: Date = Date()) throws(LibraryError) -> [String] {
        if isReadOnly { throw .accessRestricted("the library is read-only: removing orphaned files is not allowed") }
        let cutoff = now.addingTimeInterval(-age)
        let old = try blobs.storedBlobs().filter { ($0.modified ?? .distantPast) <= cutoff }
        let names = Dictionary(old.map { ($0.key, $0.name) }, uniquingKeysWith: { first, _ in first })
        let removed = try removeUnnamed(old.map(\.key)).compactMap { names[$0] }
        return removed.sorted() + blobs.abortAbandonedUploads(startedBefore: cutoff)
    }

    /// The adjustment an `.adjustmentData` resource holds (Apple's `Adjustments.plist` keys), read within the size
    /// an adjustment may have; nil when it is missing, too large or not one.
    package func adjustment(in resource: ResourceRecord) -> StoredAdjustment? {
        guard resource.type == .adjustmentData, let data = blobs.readSmall(resource.blobKey, limit: StoredAdjustment.maximumFileSize)
        else { return nil }
        return StoredAdjustment(propertyList: data)
    }

    /// This engine's folder for editing sessions (an input's copy and the outputs written beside it), inside the
    /// library: a rendering written there is taken by the commit without a copy (see ``isTakeable(_:)``). Nil for a
    /// read-only library; the editing session then uses a temporary folder and its rendering is copied.
    package func editingArea() -> URL? {
        guard !isReadOnly else { return nil }
        return editingFolder.withLock { folder in
            if folder == nil { folder = try? blobs.makeUploadArea(label: "editing") }
            return folder?.url
        }
    }

    /// Whether the commit may take `file` by link instead of copying it: a plain file, with no other link, inside this
    /// engine's editing area — written by code of this process (an extension's output is copied in by its host,
    /// never left as the extension's own file, which it could still change).
    func isTakeable(_ file: URL) -> Bool {
        guard let area = editingFolder.withLock({ $0?.url }) else { return false }
        let prefix = area.standardizedFileURL.resolvingSymlinksInPath().path + "/"
        let resolved = file.standardizedFileURL.resolvingSymlinksInPath().path
        var info = stat()
        guard resolved.hasPrefix(prefix), lstat(file.path, &info) == 0 else { return false }
        return (info.st_mode & S_IFMT) == S_IFREG && info.st_nlink == 1
    }

    /// A new area of this process for files received and not yet imported (``BlobStore/makeUploadArea(label:)``).
    package func makeUploadArea(label: String) throws(LibraryError) -> ProcessFolder {
        if isReadOnly { throw .accessRestricted("the library is read-only: it takes no uploads") }
        return try blobs.makeUploadArea(label: label)
    }
}
