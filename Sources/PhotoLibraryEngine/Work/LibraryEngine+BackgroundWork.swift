import Foundation

/// A piece of background work a commit left: make the renderings (thumbnails, display sizes, a video's poster
/// frames) or the web rendering of a movie, of one content version of one asset, so that no request has to wait for
/// them.
package struct WorkItem: Sendable, Equatable {
    /// What there is to do.
    package enum Kind: String, Sendable {
        /// The renderings of the asset's current version.
        case renderings
        /// A rendering of the current version's movie (a video's, a Live Photo's paired video) that browsers play,
        /// where the movie itself is not one.
        case webVideo = "web-video"
    }

    package var id: Int64
    package var kind: Kind
    /// The asset's local identifier.
    package var assetIdentifier: String
    /// The content version the work is for (an edit or a revert queues the next one).
    package var contentVersion: Int64
    /// How many times it was claimed, this time included.
    package var attempts: Int
}

/// How much work a library's queue holds.
package struct WorkQueueStatus: Sendable, Equatable, Codable {
    /// Items nobody holds, ready to claim.
    package var queued: Int
    /// Items a worker holds (its lease not expired).
    package var claimed: Int
    /// Items given up after ``LibraryEngine/maximumWorkAttempts`` failed attempts (kept, with their last error).
    package var failed: Int

    package init(queued: Int, claimed: Int, failed: Int) {
        self.queued = queued
        self.claimed = claimed
        self.failed = failed
    }
}

/// The work queue: rows of `work_item`, written in the transaction that commits what needs the work (so no commit is
/// without its work, and no work is without its commit), claimed by workers with a lease — a claimer locks the row it
/// takes and skips rows others hold (`FOR UPDATE SKIP LOCKED`; SQLite's writers are one at a time), holds it until
/// its lease expires, and removes it when done. A worker that dies leaves its item to be claimed again once the lease
/// has run out. The work is deterministic (renderings are named by the original's SHA-256 and what shaped them), so
/// an item done twice — a lease that expired under a slow worker — makes the same bytes twice, never two results.
extension LibraryEngine {
    /// Attempts after which an item is given up (and reported by ``workQueueStatus()``).
    package static let maximumWorkAttempts = 5

    /// Whether commits queue the renderings of images: for a library whose files are in object storage, where the
    /// renderings are shared by every node (a node that renders on request would fetch the whole original first). A
    /// library in a folder renders images on request, from the file beside it. Movies' web renderings are queued in
    /// every library: making one takes as long as the movie plays, no request can wait for it.
    package var queuesRenderings: Bool { blobs.sharesContent }

    /// Queues the background work of an asset's current content version (called inside the committing transaction):
    /// its renderings where ``queuesRenderings``, and a web rendering of its movie where it has one.
    func queueRenderings(assetID: Int64, now: Date, db: any SQLConnection) throws {
        if queuesRenderings {
            try db.execute(
                sql: """
                    INSERT INTO work_item (kind, asset_id, content_version, queued_date)
                    SELECT ?, id, content_version, ? FROM asset WHERE id = ? AND media_type IN (?, ?)
                    ON CONFLICT DO NOTHING
                    """,
                arguments: [
                    WorkItem.Kind.renderings.rawValue, now.timeIntervalSince1970, assetID, MediaType.image.rawValue,
                    MediaType.video.rawValue,
                ], cached: true)
        }
        try db.execute(
            sql: """
                INSERT INTO work_item (kind, asset_id, content_version, queued_date)
                SELECT ?, id, content_version, ? FROM asset WHERE id = ? AND (media_type = ? OR (media_subtypes & ?) <> 0)
                ON CONFLICT DO NOTHING
                """,
            arguments: [
                WorkItem.Kind.webVideo.rawValue, now.timeIntervalSince1970, assetID, MediaType.video.rawValue,
                8,  // PHAssetMediaSubtype.photoLive
            ], cached: true)
    }

    /// Claims the oldest item nobody holds, for `lease` seconds, as `worker`; nil when there is none.
    package func claimWork(worker: String, lease: TimeInterval, now: Date = Date()) throws(LibraryError) -> WorkItem? {
        // Looked for first without writing: a worker wakes after every commit, and most find nothing to do (a write
        // transaction each would queue behind the commits it follows).
        let claimable = try read { db in
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM work_item WHERE (lease_until IS NULL OR lease_until < ?) AND attempts < ?)",
                arguments: [now.timeIntervalSince1970, Self.maximumWorkAttempts], cached: true) ?? false
        }
        guard claimable else { return nil }
        return try writeQueue("claim background work") { db -> WorkItem? in
            let time = now.timeIntervalSince1970
            guard
                let id = try Int64.fetchOne(
                    db,
                    sql: """
                        SELECT id FROM work_item WHERE (lease_until IS NULL OR lease_until < ?) AND attempts < ?
                        ORDER BY id LIMIT 1\(db.dialect.claimingRows)
                        """,
                    arguments: [time, Self.maximumWorkAttempts])
            else { return nil }
            try db.execute(
                sql: "UPDATE work_item SET claimed_by = ?, lease_until = ?, attempts = attempts + 1 WHERE id = ?",
                arguments: [worker, time + lease, id])
            guard
                let row = try SQLRecord.fetchOne(
                    db,
                    sql: """
                        SELECT w.kind, a.local_id, w.content_version, w.attempts FROM work_item w JOIN asset a ON a.id = w.asset_id
                        WHERE w.id = ?
                        """,
                    arguments: [id])
            else { return nil }
            let kind: String = row[0]
            return WorkItem(
                id: id, kind: WorkItem.Kind(rawValue: kind) ?? .renderings, assetIdentifier: row[1], contentVersion: row[2],
                attempts: Int(row[3] as Int64))
        }
    }

    /// Whether the item's asset still has the content version the item is for (an edit since makes it moot).
    package func isCurrent(_ item: WorkItem) -> Bool {
        (try? read { db in
            try Int64.fetchOne(db, sql: "SELECT content_version FROM asset WHERE local_id = ?", arguments: [item.assetIdentifier])
        }) == item.contentVersion
    }

    /// Removes a done item (whoever holds it now: done is done).
    package func finishWork(_ item: WorkItem) throws(LibraryError) {
        try writeQueue("finish background work") { db in
            try db.execute(sql: "DELETE FROM work_item WHERE id = ?", arguments: [item.id])
        }
    }

    /// Gives a failed item back, to be claimed again after `retryAfter` seconds (until it has had
    /// ``maximumWorkAttempts``), with its error.
    package func failWork(_ item: WorkItem, error: String, retryAfter: TimeInterval, now: Date = Date()) throws(LibraryError) {
        try writeQueue("fail background work") { db in
            try db.execute(
                sql: "UPDATE work_item SET claimed_by = NULL, lease_until = ?, last_error = ? WHERE id = ?",
                arguments: [now.timeIntervalSince1970 + retryAfter, String(error.prefix(1000)), item.id])
        }
    }

    /// How many items are queued, claimed and given up.
    package func workQueueStatus(now: Date = Date()) throws(LibraryError) -> WorkQueueStatus {
        try read { db in
            let row = try SQLRecord.fetchOne(
                db,
                sql: """
                    SELECT
                        coalesce(sum(CASE WHEN attempts < ? AND (lease_until IS NULL OR lease_until < ? OR claimed_by IS NULL) THEN 1 ELSE 0 END), 0),
                        coalesce(sum(CASE WHEN claimed_by IS NOT NULL AND lease_until >= ? THEN 1 ELSE 0 END), 0),
                        coalesce(sum(CASE WHEN attempts >= ? AND (claimed_by IS NULL OR lease_until < ?) THEN 1 ELSE 0 END), 0)
                    FROM work_item
                    """,
                arguments: [
                    Self.maximumWorkAttempts, now.timeIntervalSince1970, now.timeIntervalSince1970, Self.maximumWorkAttempts,
                    now.timeIntervalSince1970,
                ])
            guard let row else { return WorkQueueStatus(queued: 0, claimed: 0, failed: 0) }
            return WorkQueueStatus(queued: Int(row[0] as Int64), claimed: Int(row[1] as Int64), failed: Int(row[2] as Int64))
        }
    }

    @discardableResult
    func writeQueue<T>(_ operation: String, _ body: (any SQLConnection) throws -> T) throws(LibraryError) -> T {
        if isReadOnly { throw .accessRestricted("the library is read-only: \(operation) is not allowed") }
        do { return try metadata.writeQueue(body) } catch let error as LibraryError { throw error } catch {
            throw .internalError("\(operation) failed: \(error)")
        }
    }
}
