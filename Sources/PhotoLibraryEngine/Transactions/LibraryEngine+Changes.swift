import Foundation
import PhotoMedia

/// A new asset, ready to be written: files staged and probed, properties decided.
private struct PreparedAsset {
    var localIdentifier: String
    var uuid: String
    var mediaType: MediaType
    var mediaSubtypes: UInt
    var playbackStyle: Int
    var pixelWidth: Int
    var pixelHeight: Int
    var duration: Double
    var creationDate: Date?
    var creationTimeZoneOffset: Int?
    var location: LocationRecord?
    var isFavorite: Bool
    var isHidden: Bool
    var resources: [PreparedResource]
    /// The primary file's metadata (camera, burst, Live Photo key, where the date came from).
    var metadata: MediaMetadata
    /// Rating, caption and keywords: the request's, else what the file says (XMP, IPTC).
    var extended: AssetPropertyChanges
}

private struct PreparedResource {
    var type: ResourceType
    var staged: StagedFile
    var path: String
    var originalFilename: String
    var uniformTypeIdentifier: String
    var info: MediaInfo
}

extension LibraryEngine {
    /// Applies the intents of one change block atomically: all of them, or none (rows and files).
    @discardableResult
    package func apply(_ intents: [ChangeIntent], access: AccessContext, now: Date = Date()) throws(LibraryError) -> CommitSummary {
        if isReadOnly { throw access.denial("changing the library") }
        try checkAccess(intents, access: access)

        // 1. Stage and probe new files outside the write lock (slow I/O must not block other writers).
        var prepared: [PreparedAsset] = []
        var edits: [PreparedEdit] = []
        var staged: [StagedFile] = []
        do {
            for intent in intents {
                guard case .createAsset(let identifier, let resources, let properties) = intent else { continue }
                let asset = try prepareAsset(identifier, resources, properties, now: now, staged: &staged)
                prepared.append(asset)
            }
            edits = try prepareContentChanges(intents, created: prepared, access: access, now: now, staged: &staged)
            // Slow storing (an upload to object storage) before the write lock too: the transaction only checks.
            try blobs.preload(
                prepared.flatMap { $0.resources.map { ($0.staged.url, BlobKey(path: $0.path, sha256: $0.staged.sha256)) } }
                    + edits.flatMap { edit in
                        ([edit.rendering, edit.adjustment] + [edit.pairedVideo?.file].compactMap { $0 }).map {
                            ($0.url, BlobKey(path: "the edit of \(edit.localIdentifier)", sha256: $0.sha256))
                        }
                    })
        } catch {
            for file in staged { try? FileManager.default.removeItem(at: file.url) }
            throw error
        }
        let createdIdentifiers = Set(prepared.map(\.localIdentifier))

        // 2. One write transaction: journal the paths, place the files, write the rows.
        var placed: [BlobKey] = []
        var journals: [URL] = []
        var purged: [BlobKey] = []
        var superseded: [ResourceRecord] = []
        let summary: CommitSummary
        do {
            summary = try commitTransaction("performing changes", clientID: access.clientID, now: now) { db -> CommitSummary in
                var summary = CommitSummary()
                purged = try self.blobsPurged(by: intents, db: db)
                journals.append(try self.slots.writeIntent(prepared.flatMap { $0.resources.map(\.path) } + purged.map(\.path)))
                try self.blobs.put(
                    prepared.flatMap { $0.resources.map { (.staged($0.staged.url), BlobKey(path: $0.path, sha256: $0.staged.sha256)) } },
                    placed: &placed)
                for asset in prepared {
                    let id = try self.insert(asset, access: access, now: now, db: db)
                    summary.note(.init(id: id, localIdentifier: asset.localIdentifier), .inserted)
                }
                // New albums and folders first, so requests in the block can refer to any of them.
                for intent in intents where intent.isCollectionCreation {
                    try self.apply(intent, access: access, now: now, db: db, summary: &summary)
                }
                for intent in intents where !intent.isCollectionCreation {
                    try self.apply(intent, access: access, now: now, db: db, summary: &summary)
                }
                // Content edits and reverts last, once the block's new assets exist.
                try self.applyContentChanges(
                    edits, intents, created: createdIdentifiers, access: access, now: now, db: db, summary: &summary, placed: &placed,
                    journals: &journals, superseded: &superseded)
                return summary
            }
        } catch {
            for file in staged { try? FileManager.default.removeItem(at: file.url) }
            if error.commitOutcomeUnknown {
                // It may have committed: the intent journals decide — now, if the database answers; else the next
                // recovery once this process is gone. Never an undo of files that committed rows may name.
                resolveIntents(journals)
                throw error
            }
            removeUnreferenced(placed)
            for journal in journals { slots.releaseIntent(journal) }
            throw error
        }

        // 3. Committed: remove purged and superseded files (and their cached derivatives) and moved sources, then
        // the journals.
        removeUnreferenced(purged + superseded.map(\.blobKey))
        for key in purged {
            blobs.removeDerivatives(assetUUID: String((key.path as NSString).lastPathComponent.prefix(36)), prefix: nil)
        }
        for rendering in superseded where ResourceType.renderings.contains(rendering.type) {
            blobs.removeDerivatives(
                assetUUID: String(rendering.assetLocalIdentifier.prefix { $0 != "/" }), prefix: Derivatives.namePrefix(sha256: rendering.sha256))
        }
        for file in staged {
            if let source = file.sourceToRemove { try? FileManager.default.removeItem(at: source) }
        }
        for journal in journals { slots.releaseIntent(journal) }
        return summary
    }

    private func checkAccess(_ intents: [ChangeIntent], access: AccessContext) throws(LibraryError) {
        for intent in intents {
            switch intent {
            case .createAsset:
                try access.checkWrite(access.canAddAssets, "adding assets")
            case .updateAsset, .deleteAssets, .recoverAssets:
                try access.checkWrite(access.canModify, "changing assets")
            case .editAssetContent, .revertAssetContent:
                try access.checkWrite(access.canModify, "editing the content of assets")
            case .createCollection, .updateCollection, .deleteCollections:
                try access.checkWrite(access.canManageCollections, "changing albums and folders")
            case .uploadJob:
                // Apple's background uploads need full library access.
                try access.checkWrite(access.canManageCollections, "background upload jobs")
            }
        }
    }

    // MARK: - Preparing new assets

    private func prepareAsset(
        _ localIdentifier: String, _ inputs: [ResourceInput], _ properties: AssetPropertyChanges, now: Date,
        staged: inout [StagedFile]
    ) throws(LibraryError) -> PreparedAsset {
        guard !inputs.isEmpty else {
            throw .invalidResource("a creation request needs at least one resource")
        }
        var types: [ResourceType] = []
        for input in inputs {
            guard let type = ResourceType(rawValue: input.type), type != .unknown else {
                throw .invalidResource("a resource of type \(input.type) cannot be stored (PHAssetResourceType \(input.type))")
            }
            types.append(type)
        }
        let hasPhoto = types.contains(.photo)
        let hasVideo = types.contains(.video)
        guard hasPhoto != hasVideo else {
            throw .invalidResource(
                hasPhoto ? "an asset cannot have both photo and video resources" : "an asset needs a photo or a video resource")
        }
        if types.contains(.pairedVideo), !hasPhoto {
            throw .invalidResource("a paired video needs a photo resource")
        }
        if Set(types).count != types.count {
            throw .invalidResource("each resource type may appear once per asset")
        }
        let uuid = String(localIdentifier.prefix { $0 != "/" })
        var resources: [PreparedResource] = []
        for (input, type) in zip(inputs, types) {
            if let name = input.originalFilename { try ResourceName.validate(name) }
            let file: StagedFile
            switch input.source {
            case .data(let data):
                if data.isEmpty { throw .invalidResource("resource data is empty") }
                file = try stager.stage(data: data)
            case .file(let url, let move):
                file = try stager.stage(file: url, move: move)
            case .staged(let prestaged, _):
                file = prestaged
            }
            staged.append(file)
            let info: MediaInfo
            if case .staged(_, let known?) = input.source {
                info = known
            } else {
                do { info = try configuration.probe.probe(file.url) } catch {
                    let name = input.originalFilename ?? Self.sourceName(input.source)
                    throw .invalidResource("\(name): \(error.description.replacingOccurrences(of: file.url.path, with: "the file"))")
                }
            }
            let wantsImage = [ResourceType.photo, .alternatePhoto].contains(type)
            let wantsMovie = [ResourceType.video, .pairedVideo].contains(type)
            if (wantsImage && !info.isImage) || (wantsMovie && info.isImage) {
                throw .invalidResource(
                    "\(input.originalFilename ?? Self.sourceName(input.source)) holds \(info.format.rawValue) data, which cannot be a resource of type \(input.type)"
                )
            }
            let suffix: String
            switch type {
            case .photo, .video: suffix = ""
            case .pairedVideo: suffix = "_3"
            default: suffix = "_r\(type.rawValue)"
            }
            let path = bundle.originalPath(assetUUID: uuid, suffix: suffix, fileExtension: info.format.preferredFilenameExtension)
            let filename = input.originalFilename ?? Self.defaultFilename(input.source, uuid: uuid, format: info.format)
            resources.append(
                PreparedResource(
                    type: type, staged: file, path: path, originalFilename: filename,
                    uniformTypeIdentifier: input.uniformTypeIdentifier ?? info.format.uniformTypeIdentifier, info: info))
        }
        let primary = resources.first { $0.type == .photo || $0.type == .video }!
        let metadata = primary.info.metadata
        let isLive = resources.contains { $0.type == .pairedVideo }
        let mediaType: MediaType = primary.type == .photo ? .image : .video
        // PHAssetMediaSubtype from what the file says.
        var subtypes: UInt = 0
        if mediaType == .image {
            if metadata.isPanorama { subtypes |= 1 }
            if metadata.isHDR { subtypes |= 2 }
            if metadata.isScreenshot { subtypes |= 4 }
            if isLive { subtypes |= 8 }
            if metadata.isPortrait { subtypes |= 16 }
            if primary.info.frameCount > 1 { subtypes |= 64 }  // photoAnimation
        } else if (metadata.videoFrameRate ?? 0) >= 100 {
            subtypes |= 1 << 17  // videoHighFrameRate
        }
        let animated = primary.info.frameCount > 1
        let playbackStyle = mediaType == .video ? 4 : (isLive ? 3 : (animated ? 2 : 1))

        // The capture date: the request's, else the file's metadata (with its UTC offset), else the file's
        // modification time (a file without a date), else now.
        var creationDate: Date? = nil
        var offset: Int? = nil
        if case .some(let date) = properties.creationDate {
            creationDate = date
            // The file's own date given again (a backup sends it): its time zone goes with it.
            if let date, let own = metadata.creationDate, abs(own.timeIntervalSince(date)) < 0.001 { offset = metadata.timeZoneOffset }
        } else if let date = metadata.creationDate {
            creationDate = date
            offset = metadata.timeZoneOffset
        } else if let modified = primary.staged.sourceModificationDate {
            creationDate = modified
        } else {
            creationDate = now
        }
        var location: LocationRecord? = nil
        if case .some(let value) = properties.location {
            location = value
        } else if let latitude = metadata.latitude, let longitude = metadata.longitude {
            location = LocationRecord(latitude: latitude, longitude: longitude, altitude: metadata.altitude)
        }
        var extended = AssetPropertyChanges()
        extended.rating = properties.rating ?? metadata.rating
        extended.caption = properties.caption ?? metadata.caption.map { .some($0) }
        extended.keywordEdits = metadata.keywords.map(KeywordEdit.add) + properties.keywordEdits
        if properties.livePhotoVideoPlaybackEnabled == false, !isLive {
            throw .changeNotSupported("only a Live Photo's video can be turned off")
        }
        extended.livePhotoVideoPlaybackEnabled = properties.livePhotoVideoPlaybackEnabled
        extended.origin = properties.origin
        if let choice = properties.originalChoice {
            guard choice == 0 || resources.contains(where: { $0.type == .alternatePhoto || $0.info.format == .cameraRAW }) else {
                throw .invalidResource("the RAW original is chosen, and the asset has no RAW (an alternate photo)")
            }
            extended.originalChoice = choice
        }
        return PreparedAsset(
            localIdentifier: localIdentifier, uuid: uuid, mediaType: mediaType, mediaSubtypes: subtypes,
            playbackStyle: playbackStyle, pixelWidth: primary.info.pixelWidth, pixelHeight: primary.info.pixelHeight,
            duration: primary.info.duration, creationDate: creationDate, creationTimeZoneOffset: offset, location: location,
            isFavorite: properties.isFavorite ?? false, isHidden: properties.isHidden ?? false, resources: resources, metadata: metadata,
            extended: extended)
    }

    private static func sourceName(_ source: ResourceSource) -> String {
        switch source {
        case .file(let url, _): url.lastPathComponent
        case .data, .staged: "resource data"
        }
    }

    private static func defaultFilename(_ source: ResourceSource, uuid: String, format: MediaFormat) -> String {
        switch source {
        case .file(let url, _): url.lastPathComponent
        case .data, .staged: "\(uuid).\(format.preferredFilenameExtension.uppercased())"
        }
    }

    // MARK: - Writing rows

    private func insert(_ asset: PreparedAsset, access: AccessContext, now: Date, db: any SQLConnection) throws -> Int64 {
        let inserted = try Int64.fetchOne(
            db,
            sql: """
                INSERT INTO asset (local_id, media_type, media_subtypes, playback_style, pixel_width, pixel_height,
                    creation_date, creation_tz_offset, local_day, place_cell, modification_date, added_date, latitude,
                    longitude, altitude, duration, is_favorite, is_hidden, added_by_client)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
                """,
            arguments: [
                asset.localIdentifier, asset.mediaType, Int64(asset.mediaSubtypes), asset.playbackStyle, asset.pixelWidth,
                asset.pixelHeight, asset.creationDate?.timeIntervalSince1970, asset.creationTimeZoneOffset,
                Moments.localDay(of: asset.creationDate, offsetSeconds: asset.creationTimeZoneOffset),
                Moments.placeCell(asset.location), now.timeIntervalSince1970, now.timeIntervalSince1970,
                asset.location?.latitude, asset.location?.longitude, asset.location?.altitude, asset.duration,
                asset.isFavorite, asset.isHidden, access.clientID,
            ], cached: true)
        guard let assetID = inserted else { throw LibraryError.internalError("the new asset got no row id") }
        let m = asset.metadata
        try db.execute(
            sql: """
                UPDATE asset SET camera_make = ?, camera_model = ?, lens_model = ?, creation_date_source = ?,
                    content_identifier = ?, is_selfie = ? WHERE id = ?
                """,
            arguments: [m.make, m.model, m.lensModel, m.creationDateSource, m.contentIdentifier, m.isSelfie, assetID], cached: true)
        try writeExtendedMetadata(asset.extended, assetID: assetID, db: db, creating: true)
        if let choice = asset.extended.originalChoice, choice != 0 {
            try db.execute(sql: "UPDATE asset SET original_choice = ? WHERE id = ?", arguments: [Int64(choice), assetID])
        }
        if let origin = asset.extended.origin {
            try db.execute(
                sql: "UPDATE asset SET cloud_id = ?, origin_client = ?, origin_id = ? WHERE id = ?",
                arguments: [origin.cloudIdentifier, origin.client, origin.source, assetID], cached: true)
        }
        if asset.extended.livePhotoVideoPlaybackEnabled == false {
            try db.execute(sql: "UPDATE asset SET live_playback_off = 1 WHERE id = ?", arguments: [assetID])
        }
        if let burst = m.burstIdentifier, asset.mediaType == .image {
            // The first photo of a burst represents it (an automatic pick) until the user picks another; the others
            // are hidden from fetches without includeAllBurstAssets.
            let represented =
                try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM asset WHERE burst_identifier = ? AND represents_burst = 1 AND id != ?",
                    arguments: [burst, assetID]) ?? false
            try db.execute(
                sql: """
                    UPDATE asset SET burst_identifier = ?, represents_burst = ?, burst_hidden = ?,
                        burst_selection_types = ? WHERE id = ?
                    """,
                arguments: [burst, !represented, represented, represented ? 0 : 1, assetID])
        }
        for resource in asset.resources {
            try db.execute(
                sql: """
                    INSERT INTO resource (asset_id, type, path, original_filename, uniform_type_identifier, file_size,
                        sha256, pixel_width, pixel_height) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    assetID, resource.type, resource.path, resource.originalFilename, resource.uniformTypeIdentifier,
                    resource.staged.size, resource.staged.sha256, resource.info.pixelWidth, resource.info.pixelHeight,
                ], cached: true)
        }
        try SearchIndex.refresh([assetID], db: db)
        try queueRenderings(assetID: assetID, now: now, db: db)
        if access.isLimited, let client = access.clientID {
            // Assets a limited client creates join its selection (as on iOS 14+).
            try db.execute(
                sql: "INSERT INTO client_selection (client_id, asset_id) VALUES (?, ?) ON CONFLICT DO NOTHING", arguments: [client, assetID])
        }
        return assetID
    }

    private func apply(_ intent: ChangeIntent, access: AccessContext, now: Date, db: any SQLConnection, summary: inout CommitSummary) throws {
        let timestamp = now.timeIntervalSince1970
        switch intent {
        case .createAsset, .editAssetContent, .revertAssetContent:
            break  // inserted above; content changes are applied after every other intent
        case .uploadJob(let identifier, let change):
            try applyUploadJobChange(identifier, change, access: access, now: now, db: db)
        case .updateAsset(let identifier, let changes):
            let id = try visibleAssetID(identifier, access: access, db: db)
            if changes.isEmpty { return }
            if let isFavorite = changes.isFavorite {
                try db.execute(sql: "UPDATE asset SET is_favorite = ? WHERE id = ?", arguments: [isFavorite, id])
            }
            if let isHidden = changes.isHidden {
                try db.execute(sql: "UPDATE asset SET is_hidden = ? WHERE id = ?", arguments: [isHidden, id])
            }
            if let date = changes.creationDate {
                let offset = try Int.fetchOne(db, sql: "SELECT creation_tz_offset FROM asset WHERE id = ?", arguments: [id])
                try db.execute(
                    sql: "UPDATE asset SET creation_date = ?, local_day = ? WHERE id = ?",
                    arguments: [date?.timeIntervalSince1970, Moments.localDay(of: date, offsetSeconds: offset), id])
            }
            if let location = changes.location {
                try db.execute(
                    sql: "UPDATE asset SET latitude = ?, longitude = ?, altitude = ?, place_cell = ? WHERE id = ?",
                    arguments: [location?.latitude, location?.longitude, location?.altitude, Moments.placeCell(location), id])
            }
            try writeExtendedMetadata(changes, assetID: id, db: db)
            if changes.caption != nil || !changes.keywordEdits.isEmpty { try SearchIndex.refresh([id], db: db) }
            if let enabled = changes.livePhotoVideoPlaybackEnabled {
                try setLivePhotoVideoPlayback(enabled, assetID: id, identifier: identifier, db: db)
            }
            if let choice = changes.originalChoice {
                let hasRAW =
                    try Int.fetchOne(
                        db, sql: "SELECT count(*) FROM resource WHERE asset_id = ? AND type = ?",
                        arguments: [id, ResourceType.alternatePhoto.rawValue])
                    ?? 0
                guard choice == 0 || hasRAW > 0 else {
                    throw LibraryError.changeNotSupported("\(identifier) has no RAW original (an alternate photo) to choose")
                }
                try db.execute(sql: "UPDATE asset SET original_choice = ? WHERE id = ?", arguments: [Int64(choice), id])
            }
            try db.execute(sql: "UPDATE asset SET modification_date = ? WHERE id = ?", arguments: [timestamp, id])
            summary.note(.init(id: id, localIdentifier: identifier), .updated)
        case .deleteAssets(let identifiers):
            for identifier in identifiers {
                let id = try visibleAssetID(identifier, access: access, db: db)
                let trashed = try Double.fetchOne(db, sql: "SELECT trashed_date FROM asset WHERE id = ?", arguments: [id])
                if trashed == nil {
                    try db.execute(
                        sql: "UPDATE asset SET trashed_date = ?, modification_date = ? WHERE id = ?", arguments: [timestamp, timestamp, id])
                } else {
                    try db.execute(sql: "DELETE FROM asset WHERE id = ?", arguments: [id])
                }
                summary.note(.init(id: id, localIdentifier: identifier), .deleted)
            }
        case .recoverAssets(let identifiers):
            for identifier in identifiers {
                let id = try visibleAssetID(identifier, access: access, db: db)
                let recovered = try db.execute(
                    sql: "UPDATE asset SET trashed_date = NULL, modification_date = ? WHERE id = ? AND trashed_date IS NOT NULL",
                    arguments: [timestamp, id])
                if recovered > 0 { summary.note(.init(id: id, localIdentifier: identifier), .inserted) }
            }
        case .createCollection(let identifier, let kind, let title):
            let position = (try Int.fetchOne(db, sql: "SELECT max(position) FROM collection WHERE parent_id IS NULL") ?? 0) + 1
            try db.execute(
                sql: """
                    INSERT INTO collection (local_id, kind, type, subtype, title, parent_id, position, creation_date,
                        modification_date, added_by_client) VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, ?)
                    """,
                arguments: [
                    identifier, kind.rawValue, kind == .assetCollection ? 1 : 2, kind == .assetCollection ? 2 : 100, title,
                    position, timestamp, timestamp, access.clientID,
                ])
            summary.insertedCollections.append(.init(localIdentifier: identifier, kind: kind))
        case .updateCollection(let identifier, let kind, let title, let edits, let snapshot):
            let collectionID: Int64?
            if let identifier {
                guard let row = try SQLRecord.fetchOne(db, sql: "SELECT id, kind, type FROM collection WHERE local_id = ?", arguments: [identifier])
                else { throw LibraryError.identifierNotFound("no album or folder \(identifier)") }
                let storedKind: Int = row[1]
                let storedType: Int = row[2]
                guard storedKind == kind.rawValue, (storedKind == 1 && storedType == 1) || (storedKind == 2 && storedType == 2) else {
                    throw LibraryError.changeNotSupported("\(identifier) cannot be changed (only user albums and folders can)")
                }
                collectionID = row[0]
            } else {
                collectionID = nil
                if title != nil { throw LibraryError.changeNotSupported("the top level of user collections (the root folder) cannot be renamed") }
            }
            if let title, let collectionID {
                try db.execute(
                    sql: "UPDATE collection SET title = ?, modification_date = ? WHERE id = ?", arguments: [title, timestamp, collectionID])
            }
            if !edits.isEmpty {
                if kind == .assetCollection, let collectionID {
                    try applyAlbumEdits(edits, snapshot: snapshot, albumID: collectionID, access: access, db: db)
                } else {
                    try applyFolderEdits(edits, snapshot: snapshot, folderID: collectionID, db: db)
                }
                if let collectionID {
                    try db.execute(sql: "UPDATE collection SET modification_date = ? WHERE id = ?", arguments: [timestamp, collectionID])
                }
            }
            if let identifier { summary.noteUpdated(.init(localIdentifier: identifier, kind: kind)) }
        case .deleteCollections(let identifiers, let kind):
            for identifier in identifiers {
                guard let row = try SQLRecord.fetchOne(db, sql: "SELECT id, kind, type FROM collection WHERE local_id = ?", arguments: [identifier])
                else { throw LibraryError.identifierNotFound("no album or folder \(identifier)") }
                let storedKind: Int = row[1]
                let storedType: Int = row[2]
                guard storedKind == kind.rawValue, (storedKind == 1 && storedType == 1) || (storedKind == 2 && storedType == 2) else {
                    throw LibraryError.changeNotSupported("\(identifier) cannot be deleted (only user albums and folders can)")
                }
                // Child collections go with their folder (ON DELETE CASCADE), their assets stay.
                let doomed = try SQLRecord.fetchAll(
                    db,
                    sql: """
                        WITH RECURSIVE down(id) AS (SELECT ? UNION SELECT c.id FROM collection c JOIN down ON c.parent_id = down.id)
                        SELECT c.local_id, c.kind FROM collection c JOIN down ON c.id = down.id
                        """, arguments: [row[0] as Int64])
                try db.execute(sql: "DELETE FROM collection WHERE id = ?", arguments: [row[0] as Int64])
                for item in doomed {
                    let gone = CommitSummary.Collection(
                        localIdentifier: item[0], kind: CollectionKind(rawValue: item[1]) ?? .assetCollection)
                    summary.insertedCollections.removeAll { $0 == gone }
                    summary.updatedCollections.removeAll { $0 == gone }
                    if !summary.deletedCollections.contains(gone) { summary.deletedCollections.append(gone) }
                }
            }
        }
    }

    /// The row id of an asset the client may change (limited clients: only their selection).
    func visibleAssetID(_ identifier: String, access: AccessContext, db: any SQLConnection) throws -> Int64 {
        guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM asset WHERE local_id = ?", arguments: [identifier], cached: true) else {
            throw LibraryError.identifierNotFound("no asset \(identifier)")
        }
        if access.isLimited, let client = access.clientID {
            let selected = try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM client_selection WHERE client_id = ? AND asset_id = ?)", arguments: [client, id])
            if selected != true { throw access.denial("changing assets outside the limited selection") }
        }
        return id
    }

    /// Files that a transaction removes for good (assets deleted from Recently Deleted).
    private func blobsPurged(by intents: [ChangeIntent], db: any SQLConnection) throws -> [BlobKey] {
        var identifiers: [String] = []
        for intent in intents {
            if case .deleteAssets(let ids) = intent { identifiers += ids }
        }
        if identifiers.isEmpty { return [] }
        let deleted = db.dialect.isIn("a.local_id", identifiers.map { .text($0) })
        return try SQLRecord.fetchAll(
            db,
            sql: """
                SELECT r.path, r.sha256 FROM resource r JOIN asset a ON a.id = r.asset_id
                WHERE a.trashed_date IS NOT NULL AND \(deleted.sql)
                """, arguments: deleted.statementArguments
        ).map { BlobKey(path: $0[0], sha256: $0[1]) }
    }

    // MARK: - Ordered membership

    private func applyAlbumEdits(
        _ edits: [MembershipEdit], snapshot: [String]?, albumID: Int64, access: AccessContext, db: any SQLConnection
    ) throws {
        let current = try String.fetchAll(
            db,
            sql: "SELECT a.local_id FROM collection_asset ca JOIN asset a ON a.id = ca.asset_id WHERE ca.collection_id = ? ORDER BY ca.position",
            arguments: [albumID])
        let members = try Self.applyEdits(edits, to: current, snapshot: snapshot, what: "album")
        try db.execute(sql: "DELETE FROM collection_asset WHERE collection_id = ?", arguments: [albumID])
        let insert = try db.prepare(
            sql: "INSERT INTO collection_asset (collection_id, asset_id, position) SELECT ?, id, ? FROM asset WHERE local_id = ?")
        for (position, identifier) in members.enumerated() {
            if try insert.execute(arguments: [albumID, position, identifier]) == 0 {
                throw LibraryError.identifierNotFound("no asset \(identifier) to add to the album")
            }
        }
    }

    private func applyFolderEdits(_ edits: [MembershipEdit], snapshot: [String]?, folderID: Int64?, db: any SQLConnection) throws {
        let current: [String]
        if let folderID {
            current = try String.fetchAll(db, sql: "SELECT local_id FROM collection WHERE parent_id = ? ORDER BY position, id", arguments: [folderID])
        } else {
            current = try String.fetchAll(
                db,
                sql:
                    "SELECT local_id FROM collection WHERE parent_id IS NULL AND ((kind = 1 AND type = 1) OR (kind = 2 AND type = 2)) ORDER BY position, id"
            )
        }
        let children = try Self.applyEdits(edits, to: current, snapshot: snapshot, what: "folder")
        let removed = Set(current).subtracting(children)
        for identifier in removed {
            // A child removed from a folder moves to the top level (a collection always has one parent).
            let top = (try Int.fetchOne(db, sql: "SELECT max(position) FROM collection WHERE parent_id IS NULL") ?? 0) + 1
            try db.execute(sql: "UPDATE collection SET parent_id = NULL, position = ? WHERE local_id = ?", arguments: [top, identifier])
        }
        for (position, identifier) in children.enumerated() {
            guard let row = try SQLRecord.fetchOne(db, sql: "SELECT id, kind, type FROM collection WHERE local_id = ?", arguments: [identifier])
            else {
                throw LibraryError.identifierNotFound("no album or folder \(identifier)")
            }
            let childID: Int64 = row[0]
            let kind: Int = row[1]
            let type: Int = row[2]
            guard (kind == 1 && type == 1) || (kind == 2 && type == 2) else {
                throw LibraryError.changeNotSupported("\(identifier) cannot be placed in a folder")
            }
            if let folderID {
                // Refuse cycles: the folder may not go inside itself or its descendants.
                let cycle =
                    try Bool.fetchOne(
                        db,
                        sql: """
                            WITH RECURSIVE up(id) AS (SELECT ? UNION SELECT c.parent_id FROM collection c JOIN up ON c.id = up.id WHERE c.parent_id IS NOT NULL)
                            SELECT EXISTS (SELECT 1 FROM up WHERE id = ?)
                            """, arguments: [folderID, childID]) ?? false
                if cycle { throw LibraryError.changeNotSupported("a folder cannot contain itself") }
            }
            try db.execute(sql: "UPDATE collection SET parent_id = ?, position = ? WHERE id = ?", arguments: [folderID, position, childID])
        }
    }

    /// Applies PhotoKit's ordered-membership edits (NSMutableArray semantics) to a list of identifiers.
    ///
    /// With a snapshot (the membership the caller fetched), index-based edits address the snapshot; members added
    /// since by someone else are kept (at the end) and members removed since stay removed.
    package static func applyEdits(_ edits: [MembershipEdit], to current: [String], snapshot: [String]?, what: String) throws(LibraryError)
        -> [String]
    {
        var list = snapshot ?? current
        func checkIndexes(_ indexes: IndexSet, count: Int) throws(LibraryError) {
            if let last = indexes.last, last >= count {
                throw .changeNotSupported("index \(last) is beyond the end of the \(what) (\(count) items)")
            }
        }
        for edit in edits {
            switch edit {
            case .add(let ids):
                for id in ids where !list.contains(id) { list.append(id) }
            case .insert(let ids, let indexes):
                guard ids.count == indexes.count else {
                    throw .changeNotSupported("insert needs as many indexes (\(indexes.count)) as items (\(ids.count))")
                }
                list.removeAll { ids.contains($0) }
                try checkIndexes(indexes, count: list.count + ids.count)
                for (id, index) in zip(ids, indexes) { list.insert(id, at: index) }
            case .remove(let ids):
                list.removeAll { ids.contains($0) }
            case .removeAt(let indexes):
                try checkIndexes(indexes, count: list.count)
                for index in indexes.reversed() { list.remove(at: index) }
            case .replace(let indexes, let ids):
                guard ids.count == indexes.count else {
                    throw .changeNotSupported("replace needs as many indexes (\(indexes.count)) as items (\(ids.count))")
                }
                try checkIndexes(indexes, count: list.count)
                for (index, id) in zip(indexes, ids) { list[index] = id }
            case .move(let indexes, let destination):
                try checkIndexes(indexes, count: list.count)
                let moving = indexes.map { list[$0] }
                for index in indexes.reversed() { list.remove(at: index) }
                guard destination <= list.count else {
                    throw .changeNotSupported("move destination \(destination) is beyond the end of the \(what)")
                }
                list.insert(contentsOf: moving, at: destination)
            }
        }
        if let snapshot {
            let currentSet = Set(current)
            let snapshotSet = Set(snapshot)
            list.removeAll { snapshotSet.contains($0) && !currentSet.contains($0) }
            list += current.filter { !snapshotSet.contains($0) && !list.contains($0) }
        }
        var seen = Set<String>()
        return list.filter { seen.insert($0).inserted }
    }
}

extension PreparedAsset: AssetMediaTypeProviding {}
