import Foundation

/// An upload waiting to be imported in a library whose files are in object storage: its bytes already in the store
/// (where its import will find them), its record in the library's database — so that any node imports what another
/// received.
package struct SharedUpload: Sendable, Equatable {
    package var id: String
    package var client: String
    /// The name it was sent with.
    package var name: String
    package var size: Int64
    package var sha256: String

    package init(id: String, client: String, name: String, size: Int64, sha256: String) {
        (self.id, self.client, self.name, self.size, self.sha256) = (id, client, name, size, sha256)
    }
}

/// Uploads shared by every node of a library whose files are in object storage (`photos serve` behind a load
/// balancer: the upload and the request that imports it may reach different nodes). The bytes go to the store as a
/// commit would put them (by content, `If-None-Match: *`) and a row of `upload` says whose they are and under what
/// name; the import on any node fetches them into its cache (verified) and finds them stored at commit. An upload
/// never imported is removed from the table after its time, and its bytes — which no committed row names — are
/// removed with it when no asset has them (or, where that could not be done, by ``collectOrphans(olderThan:)``).
extension LibraryEngine {
    /// Whether uploads are shared through the library (its files are in object storage).
    package var sharesUploads: Bool { blobs.sharesContent }

    /// Records a received file as `client`'s upload `id`, then stores its bytes: recorded first, so that removal of
    /// unnamed bytes (which counts uploads as naming theirs, under the write lock) never takes them in between; the
    /// record goes again when storing fails.
    package func shareUpload(_ upload: SharedUpload, file: URL, now: Date = Date()) throws(LibraryError) {
        try writeQueue("record an upload") { db in
            try db.execute(
                sql: "INSERT INTO upload (id, client_id, name, size, sha256, created_date) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [upload.id, upload.client, upload.name, upload.size, upload.sha256, now.timeIntervalSince1970])
        }
        do { try blobs.preload([(file, BlobKey(path: "upload \(upload.id)", sha256: upload.sha256))]) } catch {
            try? removeSharedUploads([upload.id])
            throw error
        }
    }

    /// `client`'s upload `id`, nil when there is none (or it is another client's).
    package func sharedUpload(id: String, client: String) throws(LibraryError) -> SharedUpload? {
        try read { db in
            try SQLRecord.fetchOne(db, sql: "SELECT name, size, sha256 FROM upload WHERE id = ? AND client_id = ?", arguments: [id, client])
        }.map { row in SharedUpload(id: id, client: client, name: row[0], size: row[1], sha256: row[2]) }
    }

    /// The bytes of a shared upload as a new file at `destination`: a copy of this node's verified copy (not a link:
    /// the import takes the file it is given, and a file with another name elsewhere is not its to take).
    package func fetchSharedUpload(_ upload: SharedUpload, to destination: URL) throws(LibraryError) {
        let copy = try blobs.materialize(BlobKey(path: "upload \(upload.id)", sha256: upload.sha256), progress: nil)
        do { try FileManager.default.copyItem(at: copy, to: destination) } catch {
            throw .internalError("cannot place the upload \(upload.id): \(error)")
        }
    }

    /// Forgets uploads (imported, refused, or discarded by their client), and removes the bytes of those that no
    /// asset (or other upload) has: a refused file's.
    package func removeSharedUploads(_ ids: [String]) throws(LibraryError) {
        guard !ids.isEmpty else { return }
        let removed = try writeQueue("forget uploads") { db -> [String] in
            let list = db.dialect.isIn("id", ids.map { .text($0) })
            let digests = try String.fetchAll(db, sql: "SELECT sha256 FROM upload WHERE \(list.sql)", arguments: list.statementArguments)
            try db.execute(sql: "DELETE FROM upload WHERE \(list.sql)", arguments: list.statementArguments)
            return digests
        }
        removeUnreferenced(removed.map { BlobKey(path: "an upload", sha256: $0) })
    }

    /// Forgets uploads older than `age` seconds, and removes their bytes where no asset has them; how many.
    @discardableResult
    package func expireSharedUploads(olderThan age: TimeInterval, now: Date = Date()) throws(LibraryError) -> Int {
        let cutoff = now.timeIntervalSince1970 - age
        let removed = try writeQueue("expire uploads") { db -> [String] in
            let digests = try String.fetchAll(db, sql: "SELECT sha256 FROM upload WHERE created_date < ?", arguments: [cutoff])
            try db.execute(sql: "DELETE FROM upload WHERE created_date < ?", arguments: [cutoff])
            return digests
        }
        removeUnreferenced(removed.map { BlobKey(path: "an upload", sha256: $0) })
        return removed.count
    }

    /// How many uploads `client` has waiting, and their bytes.
    package func sharedUploadTotals(client: String) throws(LibraryError) -> (count: Int, bytes: Int64) {
        try read { db in
            let row = try SQLRecord.fetchOne(
                db, sql: "SELECT count(*), CAST(coalesce(sum(size), 0) AS BIGINT) FROM upload WHERE client_id = ?", arguments: [client])
            return row.map { (Int($0[0] as Int64), $0[1] as Int64) } ?? (0, 0)
        }
    }
}
