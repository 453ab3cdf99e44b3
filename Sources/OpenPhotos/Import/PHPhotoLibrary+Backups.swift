import Foundation
import PhotoLibraryEngine
import PhotoMedia
import UniformTypeIdentifiers

/// OpenPhotoKit: one resource of a device's asset, as a backup request describes it (`photos serve`'s destination
/// for upload jobs). Package API: the server's.
package struct BackupResource: Sendable {
    /// The client that sent it (its grant decides what it may add).
    package var client: String
    /// The identifier the device gives the asset (its local identifier there): one asset per client and source.
    package var source: String
    /// This resource's `PHAssetResourceType` raw value.
    package var type: Int
    /// Every resource type the asset has: it is committed when all have arrived.
    package var resourceTypes: [Int]
    package var filename: String
    package var cloudIdentifier: String?
    package var creationDate: Date?
    package var location: (latitude: Double, longitude: Double, altitude: Double?)?
    package var isFavorite: Bool

    package init(
        client: String, source: String, type: Int, resourceTypes: [Int], filename: String, cloudIdentifier: String? = nil,
        creationDate: Date? = nil, location: (latitude: Double, longitude: Double, altitude: Double?)? = nil, isFavorite: Bool = false
    ) {
        (self.client, self.source, self.type, self.resourceTypes, self.filename) = (client, source, type, resourceTypes, filename)
        (self.cloudIdentifier, self.creationDate, self.location, self.isFavorite) = (cloudIdentifier, creationDate, location, isFavorite)
    }
}

/// OpenPhotoKit: what became of a resource a backup sent.
package enum BackupOutcome: Sendable, Equatable {
    /// Stored; the asset waits for the resources of these types.
    case waiting(missing: [Int])
    /// This resource completed its asset, now committed.
    case committed(localIdentifier: String)
    /// The asset was committed before and has these bytes: nothing was stored.
    case alreadyBackedUp(localIdentifier: String)
}

extension PHPhotoLibrary {
    /// The resource types a backed-up asset may have: its original photo or video (one of them), audio, the RAW of a
    /// RAW + JPEG pair, a Live Photo's video, and an edit — its rendering (full-size photo, video or paired video)
    /// with its adjustment data.
    package static let backupResourceTypes: Set<Int> = [1, 2, 3, 4, 5, 6, 7, 9, 10]

    /// Takes one resource of a device's asset (`file`: the received bytes, with `sha256`, on the library's file
    /// system; taken by the library) and commits the asset once every resource it lists has arrived — in one
    /// change, with its origin, so that it happens once however many servers receive the last resource at once.
    /// Sent again after the asset is committed, a resource stores nothing.
    /// - throws: ``PHPhotosError``: `invalidResource` for a description that makes no asset (or media that cannot
    ///   be imported: the asset's received resources are then forgotten), `changeNotSupported` for different bytes
    ///   sent for an asset already backed up, `accessRestricted` without the right to add.
    package func receiveBackupResource(_ resource: BackupResource, file: URL, size: Int64, sha256: String) throws -> BackupOutcome {
        let types = Set(resource.resourceTypes)
        try Self.checkBackupDescription(resource, types: types)
        let engine: LibraryEngine
        do { engine = try self.engine() } catch { throw PHPhotosError(error) }
        do {
            if let existing = try engine.backedUpAsset(client: resource.client, source: resource.source) {
                guard existing.resources.contains(where: { $0.sha256 == sha256 }) else {
                    throw PHPhotosError(
                        .changeNotSupported,
                        userInfo: [
                            NSLocalizedDescriptionKey:
                                "the asset \(resource.source) was backed up already, without these bytes: an asset changed after its backup is not taken again"
                        ])
                }
                try? FileManager.default.removeItem(at: file)
                // What a server that died between committing the asset and forgetting them left.
                try? engine.forgetIncoming(client: resource.client, source: resource.source)
                return .alreadyBackedUp(localIdentifier: existing.localIdentifier)
            }
            let info = IncomingAssetInfo(
                resourceTypes: resource.resourceTypes, creationDate: resource.creationDate,
                location: resource.location.map { LocationRecord(latitude: $0.latitude, longitude: $0.longitude, altitude: $0.altitude) },
                cloudIdentifier: resource.cloudIdentifier, isFavorite: resource.isFavorite)
            if types == [resource.type] {
                // An asset of one resource (most photos): the received file itself is staged (moved, its digest the
                // one computed as it arrived) and committed at once — each byte written once, hashed once.
                let staged = try engine.stage(file: file, move: true, durable: true, knownSHA256: sha256)
                let probed: MediaInfo
                do { probed = try engine.configuration.probe.probe(staged.url) } catch {
                    engine.discardStaged([staged])
                    throw PHPhotosError(.invalidResource, userInfo: [NSLocalizedDescriptionKey: "\(resource.filename): \(error)"])
                }
                var draft = try BackupDraft(
                    client: resource.client, source: resource.source, files: [resource.type: (file, resource.filename)], info: info)
                draft.staged = [resource.type: (staged, probed)]
                do { return .committed(localIdentifier: try backupCommitter.commit(draft, in: self)) } catch {
                    if let existing = try? engine.backedUpAsset(client: resource.client, source: resource.source),
                        existing.resources.contains(where: { $0.sha256 == sha256 })
                    {
                        return .alreadyBackedUp(localIdentifier: existing.localIdentifier)
                    }
                    throw error
                }
            }
            let received = try engine.receive(
                IncomingResource(
                    client: resource.client, source: resource.source, type: resource.type, sha256: sha256, size: size,
                    filename: resource.filename, info: info),
                file: file)
            let missing = types.subtracting(received.map(\.type)).sorted()
            guard missing.isEmpty else {
                // Another server committed the asset while this resource was received: it has these bytes.
                if let existing = try engine.backedUpAsset(client: resource.client, source: resource.source),
                    existing.resources.contains(where: { $0.sha256 == sha256 })
                {
                    try? engine.forgetIncoming(client: resource.client, source: resource.source)
                    return .alreadyBackedUp(localIdentifier: existing.localIdentifier)
                }
                return .waiting(missing: missing)
            }
            do {
                return try commitBackup(received.filter { types.contains($0.type) }, info: info, engine: engine)
            } catch {
                // Another server committed the asset meanwhile (the origin is unique; its commit forgets what was
                // received): it answers.
                if let existing = try? engine.backedUpAsset(client: resource.client, source: resource.source) {
                    try? engine.forgetIncoming(client: resource.client, source: resource.source)
                    return .committed(localIdentifier: existing.localIdentifier)
                }
                throw error
            }
        } catch let error as PHPhotosError {
            throw error
        } catch let error as LibraryError {
            throw PHPhotosError(error)
        }
    }

    private static func checkBackupDescription(_ resource: BackupResource, types: Set<Int>) throws {
        func invalid(_ message: String) -> PHPhotosError {
            PHPhotosError(.invalidResource, userInfo: [NSLocalizedDescriptionKey: message])
        }
        guard types.count == resource.resourceTypes.count else { throw invalid("a resource type is listed twice") }
        guard types.isSubset(of: backupResourceTypes) else {
            throw invalid(
                "resource types \(types.subtracting(backupResourceTypes).sorted()) cannot be backed up (these can: \(backupResourceTypes.sorted()))")
        }
        guard types.contains(resource.type) else { throw invalid("the resource's type \(resource.type) is not among the asset's") }
        guard types.contains(1) != types.contains(2) else { throw invalid("an asset has one original: a photo (1) or a video (2)") }
        if types.contains(9) || types.contains(4) || types.contains(5) || types.contains(10), !types.contains(1) {
            throw invalid("a paired video, a RAW alternate or a full-size photo goes with a photo")
        }
        if types.contains(6), !types.contains(2) { throw invalid("a full-size video goes with a video") }
        if types.contains(10), !types.contains(9) { throw invalid("a full-size paired video goes with a paired video") }
        let renderings = types.intersection([5, 6, 10])
        if renderings.isEmpty != !types.contains(7) {
            throw invalid("an edit is its adjustment data (7) with its full-size rendering (5 or 6)")
        }
        guard !resource.source.isEmpty, resource.source.utf8.count <= 255 else {
            throw invalid("the asset's identifier must be 1 to 255 bytes")
        }
    }

    /// Commits a backed-up asset from the resources received for it, then forgets them.
    private func commitBackup(_ received: [IncomingResource], info: IncomingAssetInfo, engine: LibraryEngine) throws -> BackupOutcome {
        let client = received[0].client
        let source = received[0].source
        var files: [Int: (url: URL, filename: String)] = [:]
        for resource in received {
            files[resource.type] = (try engine.materializeIncoming(resource), resource.filename)
        }
        let draft: BackupDraft
        do { draft = try BackupDraft(client: client, source: source, files: files, info: info) } catch {
            try? engine.forgetIncoming(client: client, source: source)
            throw error
        }
        let created: String
        do { created = try backupCommitter.commit(draft, in: self) } catch {
            if (try? engine.backedUpAsset(client: client, source: source)) != nil { throw error }
            let photosError = error as? PHPhotosError
            if photosError?.code == .invalidResource || photosError?.code == .changeNotSupported {
                // Media that cannot be imported: sending it again would not help.
                try? engine.forgetIncoming(client: client, source: source)
            }
            throw error
        }
        try? engine.forgetIncoming(client: client, source: source)
        return .committed(localIdentifier: created)
    }

    /// Forgets resources received more than `age` seconds ago for assets never completed (their device stopped
    /// sending), and their bytes; how many assets' worth.
    @discardableResult
    package func expireIncomingBackups(olderThan age: TimeInterval) throws -> Int {
        do { return try engine().expireIncoming(olderThan: age) } catch { throw PHPhotosError(error) }
    }

    /// The cloud identifier of each asset this handle may see: the one its device sent with its backup, else its
    /// own (the asset was made in this library); absent for an identifier of no asset.
    package func storedCloudIdentifiers(forLocalIdentifiers localIdentifiers: [String]) throws -> [String: String] {
        if let remote { do { return try remote.cloudIdentifiers(forLocalIdentifiers: localIdentifiers) } catch { throw PHPhotosError(error) } }
        let found: [String: String]
        do { found = try engine().cloudIdentifiers(forLocalIdentifiers: localIdentifiers) } catch { throw PHPhotosError(error) }
        let visible = try visibleAssets(Array(found.keys))
        return found.filter { visible.contains($0.key) }
    }

    /// The assets this handle may see that each cloud identifier names.
    package func storedLocalIdentifiers(forCloudIdentifiers cloudIdentifiers: [String]) throws -> [String: [String]] {
        if let remote { do { return try remote.localIdentifiers(forCloudIdentifiers: cloudIdentifiers) } catch { throw PHPhotosError(error) } }
        let found: [String: [String]]
        do { found = try engine().localIdentifiers(forCloudIdentifiers: cloudIdentifiers) } catch { throw PHPhotosError(error) }
        let visible = try visibleAssets(found.values.flatMap { $0 })
        return found.mapValues { $0.filter(visible.contains) }.filter { !$0.value.isEmpty }
    }

    /// Which of these assets a client may see (all of them for the owner).
    private func visibleAssets(_ localIdentifiers: [String]) throws -> Set<String> {
        guard clientIdentifier != nil, !localIdentifiers.isEmpty else { return Set(localIdentifiers) }
        let options = PHFetchOptions()
        options.photoLibrary = self
        options.includeHiddenAssets = true
        return Set(PHAsset.fetchAssets(withLocalIdentifiers: localIdentifiers, options: options).map(\.localIdentifier))
    }
}

/// One backed-up asset to commit: its files by resource type, what its device said of it, its edit.
struct BackupDraft: @unchecked Sendable {
    let client: String
    let source: String
    let files: [Int: (url: URL, filename: String)]
    /// Files already staged and probed (taken as they are, not copied).
    var staged: [Int: (file: StagedFile, info: MediaInfo)] = [:]
    let info: IncomingAssetInfo
    let adjustment: AdjustmentSidecar?
    let adjustmentBytes: Data?

    /// - throws: `invalidResource` when the adjustment data is not an adjustment property list.
    init(client: String, source: String, files: [Int: (url: URL, filename: String)], info: IncomingAssetInfo) throws {
        (self.client, self.source, self.files, self.info) = (client, source, files, info)
        if let data = files[7] {
            let bytes = try? FileHandle(forReadingFrom: data.url).read(upToCount: AdjustmentSidecar.maximumFileSize + 1)
            guard let bytes, let parsed = AdjustmentSidecar(plist: bytes) else {
                throw PHPhotosError(
                    .invalidResource, userInfo: [NSLocalizedDescriptionKey: "the adjustment data is not an adjustment property list"])
            }
            (adjustment, adjustmentBytes) = (parsed, bytes)
        } else {
            (adjustment, adjustmentBytes) = (nil, nil)
        }
    }

    /// Makes the asset's creation request in the running change block; its local identifier.
    func makeRequest() -> String {
        let request = PHAssetCreationRequest.forAsset()
        for type in [1, 2, 3, 4, 9] {
            guard let file = files[type], let resourceType = PHAssetResourceType(rawValue: type) else { continue }
            if let staged = staged[type] {
                request.addStagedResource(with: resourceType, staged: staged.file, info: staged.info, originalFilename: file.filename)
                continue
            }
            let options = PHAssetResourceCreationOptions()
            options.originalFilename = file.filename
            request.addResource(with: resourceType, fileURL: file.url, options: options)
        }
        if let date = info.creationDate { request.creationDate = date }
        if let location = info.location {
            request.location = CLLocation(
                coordinate: CLLocationCoordinate2D(latitude: location.latitude, longitude: location.longitude),
                altitude: location.altitude ?? 0, horizontalAccuracy: 0, verticalAccuracy: location.altitude == nil ? -1 : 0,
                timestamp: info.creationDate ?? Date())
        }
        if info.isFavorite { request.isFavorite = true }
        request.backupOrigin = AssetOrigin(client: client, source: source, cloudIdentifier: info.cloudIdentifier)
        if let adjustment, let placeholder = request.placeholderForCreatedAsset {
            let output = PHContentEditingOutput(placeholderForCreatedAsset: placeholder)
            output.adjustmentData = PHAdjustmentData(
                formatIdentifier: adjustment.formatIdentifier, formatVersion: adjustment.formatVersion, data: adjustment.data)
            if let still = files[5] {
                let type: UTType = Self.looksLikeJPEG(still.url) ? .jpeg : .heic
                if let target = try? output.renderedContentURL(for: type) { try? FileManager.default.copyItem(at: still.url, to: target) }
            } else if let movie = files[6] {
                try? FileManager.default.copyItem(at: movie.url, to: output.renderedContentURL)
            }
            if let paired = files[10] { try? FileManager.default.copyItem(at: paired.url, to: output.renderedPairedVideoURL) }
            // The device's property list, byte for byte (its timestamp and editor with it).
            output.keptAdjustmentPropertyList = adjustmentBytes
            request.contentEditingOutput = output
        }
        return request.placeholderForCreatedAsset?.localIdentifier ?? ""
    }

    private static func looksLikeJPEG(_ file: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: file), let head = try? handle.read(upToCount: 2) else { return false }
        try? handle.close()
        return head == Data([0xFF, 0xD8])
    }
}

/// Commits backed-up assets together: while one commit runs, the assets completed meanwhile (by other requests)
/// wait, and the next commit takes them all in one change block — a server receiving many devices' photos at once
/// commits a few transactions, not one per photo. A block that fails is retried one asset at a time, so one bad
/// asset fails alone.
final class BackupCommitter: @unchecked Sendable {
    private final class Pending {
        let draft: BackupDraft
        var result: Result<String, any Error>?
        init(_ draft: BackupDraft) { self.draft = draft }
    }

    private let condition = NSCondition()
    private var waiting: [Pending] = []
    private var committing = false
    /// The most assets one block commits.
    static let maximumBatch = 64

    /// Commits `draft` (with whatever else waits) in `library`; the created asset's local identifier.
    func commit(_ draft: BackupDraft, in library: PHPhotoLibrary) throws -> String {
        let mine = Pending(draft)
        condition.lock()
        waiting.append(mine)
        while mine.result == nil {
            if committing {
                condition.wait()
                continue
            }
            committing = true
            // One draft per asset in a block: two servers' requests completing the same asset at once would make the
            // whole block fail on the asset's unique origin (and with it the others' moved files); the second waits
            // for the next block, where it fails alone and finds the asset committed.
            var batch: [Pending] = []
            var origins = Set<String>()
            var rest: [Pending] = []
            for pending in waiting {
                let origin = pending.draft.client + "\u{1F}" + pending.draft.source
                if batch.count < Self.maximumBatch, origins.insert(origin).inserted { batch.append(pending) } else { rest.append(pending) }
            }
            waiting = rest
            condition.unlock()
            Self.run(batch, in: library)
            condition.lock()
            committing = false
            condition.broadcast()
        }
        condition.unlock()
        return try mine.result!.get()
    }

    private static func run(_ batch: [Pending], in library: PHPhotoLibrary) {
        var identifiers: [String] = []
        do {
            try library.performChangesAndWait { identifiers = batch.map { $0.draft.makeRequest() } }
            for (pending, identifier) in zip(batch, identifiers) { pending.result = .success(identifier) }
            return
        } catch  where batch.count == 1 {
            batch[0].result = .failure(error)
            return
        } catch {}
        for pending in batch {
            var identifier = ""
            do {
                try library.performChangesAndWait { identifier = pending.draft.makeRequest() }
                pending.result = .success(identifier)
            } catch {
                pending.result = .failure(error)
            }
        }
    }
}
