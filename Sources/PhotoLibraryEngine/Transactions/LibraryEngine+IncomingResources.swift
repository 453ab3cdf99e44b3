import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What a device says of an asset it backs up, with each of its resources: the resources the asset has (the server
/// commits the asset once it holds them all), its dates, place and cloud identifier.
package struct IncomingAssetInfo: Sendable, Equatable, Codable {
    /// The asset's resource types (`PHAssetResourceType` raw values), sorted, each once.
    package var resourceTypes: [Int]
    package var creationDate: Date?
    package var location: LocationRecord?
    package var cloudIdentifier: String?
    package var isFavorite: Bool

    package init(resourceTypes: [Int], creationDate: Date?, location: LocationRecord?, cloudIdentifier: String?, isFavorite: Bool) {
        self.resourceTypes = Array(Set(resourceTypes)).sorted()
        (self.creationDate, self.location, self.cloudIdentifier, self.isFavorite) = (creationDate, location, cloudIdentifier, isFavorite)
    }
}

extension LocationRecord: Codable {
    private enum CodingKeys: String, CodingKey { case latitude, longitude, altitude }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            latitude: try container.decode(Double.self, forKey: .latitude), longitude: try container.decode(Double.self, forKey: .longitude),
            altitude: try container.decodeIfPresent(Double.self, forKey: .altitude))
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(latitude, forKey: .latitude)
        try container.encode(longitude, forKey: .longitude)
        try container.encodeIfPresent(altitude, forKey: .altitude)
    }
}

/// A resource received for an asset that is not complete yet: its bytes stored in the library (durably, where any
/// node finds them), its row saying whose it is.
package struct IncomingResource: Sendable, Equatable {
    /// The client that sent it.
    package var client: String
    /// The identifier the device gave the asset (its local identifier there).
    package var source: String
    /// A `PHAssetResourceType` raw value.
    package var type: Int
    package var sha256: String
    package var size: Int64
    package var filename: String
    package var info: IncomingAssetInfo

    package init(client: String, source: String, type: Int, sha256: String, size: Int64, filename: String, info: IncomingAssetInfo) {
        (self.client, self.source, self.type, self.sha256, self.size, self.filename, self.info) =
            (client, source, type, sha256, size, filename, info)
    }

    /// Where its bytes are kept until the asset is committed: by content, so a resource sent twice is stored once.
    var blobKey: BlobKey { BlobKey(path: "originals/incoming/\(sha256.prefix(2))/\(sha256)", sha256: sha256) }
}

/// An asset committed from a backup: the one its origin names.
package struct BackedUpAsset: Sendable, Equatable {
    package var localIdentifier: String
    /// Its resources' types and digests, the current ones.
    package var resources: [(type: Int, sha256: String)]

    package static func == (a: Self, b: Self) -> Bool {
        a.localIdentifier == b.localIdentifier && a.resources.map(\.type) == b.resources.map(\.type)
            && a.resources.map(\.sha256) == b.resources.map(\.sha256)
    }
}

/// Backups into the library (`photos serve` as the destination of devices' upload jobs). Each resource arrives alone,
/// in any order, possibly on different nodes and more than once: it is stored and recorded here (``receive(_:file:now:)``)
/// until the asset has every resource its device listed, then the asset is committed with all of them and its origin
/// (the client and the device's identifier for it: `asset.origin_client`, `asset.origin_id`, unique), which makes
/// the commit happen once however many nodes try, and answers the resources sent again afterwards. Rows of
/// `incoming_resource` name their bytes, so removal of unnamed bytes and verification count them as named.
extension LibraryEngine {
    /// Stores a received file (`file`, on the library's file system, synced here) as `resource` and records it;
    /// answers every resource now received for its asset. A resource of that type received before is replaced.
    @discardableResult
    package func receive(_ resource: IncomingResource, file: URL, now: Date = Date()) throws(LibraryError) -> [IncomingResource] {
        if isReadOnly { throw .accessRestricted("the library is read-only: it takes no backups") }
        let info: String
        do { info = String(decoding: try JSONEncoder().encode(resource.info), as: UTF8.self) } catch {
            throw .internalError("cannot encode what the request says of the asset: \(error)")
        }
        let key = resource.blobKey
        // Recorded first, so that removal of unnamed bytes (which counts these rows as naming theirs, under the write
        // lock) never takes them in between; stored before the request is answered.
        let replaced = try writeQueue("record a received resource") { db -> String? in
            let previous = try String.fetchOne(
                db, sql: "SELECT sha256 FROM incoming_resource WHERE client_id = ? AND source_id = ? AND resource_type = ?",
                arguments: [resource.client, resource.source, Int64(resource.type)])
            try db.execute(
                sql: """
                    INSERT INTO incoming_resource (client_id, source_id, resource_type, path, sha256, size, filename, asset_info,
                        received_date)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (client_id, source_id, resource_type) DO UPDATE SET path = excluded.path,
                        sha256 = excluded.sha256, size = excluded.size, filename = excluded.filename,
                        asset_info = excluded.asset_info, received_date = excluded.received_date, stored = 0
                    """,
                arguments: [
                    resource.client, resource.source, Int64(resource.type), key.path, resource.sha256, resource.size,
                    resource.filename, info, now.timeIntervalSince1970,
                ])
            return previous == resource.sha256 ? nil : previous
        }
        do {
            if blobs.sharesContent {
                try blobs.preload([(file, key)])
            } else {
                // The bytes reach the disk before their name does.
                try Self.syncFile(file)
                var placed: [BlobKey] = []
                try blobs.put([(.staged(file), key)], placed: &placed)
            }
        } catch {
            try? forgetIncoming(client: resource.client, source: resource.source, types: [resource.type])
            throw error
        }
        // Counted as received only now that its bytes are stored: a server that reads the rows to see whether the
        // asset is complete never counts one still on its way (the last resource to be stored sees them all).
        try writeQueue("record a stored resource") { db in
            try db.execute(
                sql: "UPDATE incoming_resource SET stored = 1 WHERE client_id = ? AND source_id = ? AND resource_type = ? AND sha256 = ?",
                arguments: [resource.client, resource.source, Int64(resource.type), resource.sha256])
        }
        if let replaced { removeUnreferenced([BlobKey(path: "originals/incoming/\(replaced.prefix(2))/\(replaced)", sha256: replaced)]) }
        return try incoming(client: resource.client, source: resource.source)
    }

    /// The resources received and stored for one asset of `client`, by type (a row whose bytes are on their way, or
    /// whose server died before it stored them, is not one).
    package func incoming(client: String, source: String) throws(LibraryError) -> [IncomingResource] {
        let rows = try read { db in
            try SQLRecord.fetchAll(
                db,
                sql: """
                    SELECT resource_type, sha256, size, filename, asset_info FROM incoming_resource
                    WHERE client_id = ? AND source_id = ? AND stored = 1 ORDER BY resource_type
                    """,
                arguments: [client, source])
        }
        return rows.compactMap { row in
            let json: String = row[4]
            guard let info = try? JSONDecoder().decode(IncomingAssetInfo.self, from: Data(json.utf8)) else { return nil }
            return IncomingResource(
                client: client, source: source, type: Int(row[0] as Int64), sha256: row[1], size: row[2], filename: row[3], info: info)
        }
    }

    /// A received resource's bytes as a file to read (the stored file in a folder, a verified copy in object storage).
    package func materializeIncoming(_ resource: IncomingResource) throws(LibraryError) -> URL {
        try blobs.materialize(resource.blobKey, progress: nil)
    }

    /// Forgets the resources received for an asset (committed, or given up), and removes their bytes where nothing
    /// else names them.
    package func forgetIncoming(client: String, source: String, types: [Int]? = nil) throws(LibraryError) {
        let removed = try writeQueue("forget received resources") { db -> [String] in
            var condition = "client_id = ? AND source_id = ?"
            var arguments: SQLArguments = [client, source]
            if let types {
                let list = db.dialect.isIn("resource_type", types.map { .integer(Int64($0)) })
                condition += " AND \(list.sql)"
                arguments = arguments + list.statementArguments
            }
            let digests = try String.fetchAll(db, sql: "SELECT sha256 FROM incoming_resource WHERE \(condition)", arguments: arguments)
            try db.execute(sql: "DELETE FROM incoming_resource WHERE \(condition)", arguments: arguments)
            return digests
        }
        removeUnreferenced(removed.map { BlobKey(path: "originals/incoming/\($0.prefix(2))/\($0)", sha256: $0) })
    }

    /// Forgets resources received more than `age` seconds ago for assets never completed; how many.
    @discardableResult
    package func expireIncoming(olderThan age: TimeInterval, now: Date = Date()) throws(LibraryError) -> Int {
        let cutoff = now.timeIntervalSince1970 - age
        let stale = try read { db in
            try SQLRecord.fetchAll(
                db, sql: "SELECT DISTINCT client_id, source_id FROM incoming_resource WHERE received_date < ?", arguments: [cutoff])
        }
        for row in stale { try forgetIncoming(client: row[0], source: row[1]) }
        return stale.count
    }

    /// The asset committed from `client`'s asset `source`, with its current resources; nil when there is none yet.
    package func backedUpAsset(client: String, source: String) throws(LibraryError) -> BackedUpAsset? {
        try read { db -> BackedUpAsset? in
            guard
                let row = try SQLRecord.fetchOne(
                    db, sql: "SELECT id, local_id FROM asset WHERE origin_client = ? AND origin_id = ?", arguments: [client, source],
                    cached: true)
            else { return nil }
            let resources = try SQLRecord.fetchAll(
                db, sql: "SELECT type, sha256 FROM resource WHERE asset_id = ? ORDER BY type, id", arguments: [row[0] as Int64], cached: true)
            return BackedUpAsset(localIdentifier: row[1], resources: resources.map { (Int($0[0] as Int64), $0[1]) })
        }
    }

    /// The cloud identifier of each asset named: the one its device sent with its backup, else the asset's own
    /// (its UUID: the asset was made in this library). Identifiers of no asset are absent.
    package func cloudIdentifiers(forLocalIdentifiers localIdentifiers: [String]) throws(LibraryError) -> [String: String] {
        guard !localIdentifiers.isEmpty else { return [:] }
        return try read { db in
            let list = db.dialect.isIn("local_id", localIdentifiers.map { .text($0) })
            let rows = try SQLRecord.fetchAll(
                db, sql: "SELECT local_id, cloud_id FROM asset WHERE \(list.sql)", arguments: list.statementArguments)
            return Dictionary(
                rows.map { row -> (String, String) in
                    let local: String = row[0]
                    let cloud: String? = row[1]
                    return (local, cloud ?? Self.uuid(ofAsset: local))
                }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// The assets each cloud identifier names (more than one when two assets were backed up with the same one).
    package func localIdentifiers(forCloudIdentifiers cloudIdentifiers: [String]) throws(LibraryError) -> [String: [String]] {
        guard !cloudIdentifiers.isEmpty else { return [:] }
        return try read { db in
            let clouds = db.dialect.isIn("cloud_id", cloudIdentifiers.map { .text($0) })
            var found: [String: [String]] = [:]
            for row in try SQLRecord.fetchAll(
                db, sql: "SELECT cloud_id, local_id FROM asset WHERE \(clouds.sql) ORDER BY id", arguments: clouds.statementArguments)
            {
                found[row[0], default: []].append(row[1])
            }
            // An asset made here is its own cloud identifier's (its UUID), unless it has another.
            let own = cloudIdentifiers.map { "\($0)/L0/001" }
            let locals = db.dialect.isIn("local_id", own.map { .text($0) })
            for row in try SQLRecord.fetchAll(
                db, sql: "SELECT local_id FROM asset WHERE cloud_id IS NULL AND \(locals.sql) ORDER BY id",
                arguments: locals.statementArguments)
            {
                let local: String = row[0]
                found[Self.uuid(ofAsset: local), default: []].append(local)
            }
            return found
        }
    }

    /// The UUID an asset's local identifier begins with (`UUID/L0/001`).
    static func uuid(ofAsset localIdentifier: String) -> String {
        String(localIdentifier.prefix { $0 != "/" })
    }

    private static func syncFile(_ file: URL) throws(LibraryError) {
        let descriptor = Glibc.open(file.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXFiles.posixError("open the received file") }
        let synced = fsync(descriptor)
        Glibc.close(descriptor)
        guard synced == 0 else { throw POSIXFiles.posixError("sync the received file") }
    }
}
