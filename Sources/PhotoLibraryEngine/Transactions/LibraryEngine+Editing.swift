import Foundation
import PhotoMedia

/// PhotoKit's resource types as the engine stores them: one case per `PHAssetResourceType`, with its raw value
/// (the public API maps them by raw value).
package enum ResourceType: Int, Sendable, Hashable, CaseIterable {
    /// A type this version does not know: a resource written by a newer OpenPhotoKit (or sent by a device with a newer
    /// PhotoKit). Its row and file are kept — copied, verified, removed with the asset — but never shown: PhotoKit's
    /// enum cannot name it (``ResourceRecord/typeRawValue`` keeps the number). Never written.
    case unknown = 0
    case photo = 1
    case video = 2
    case audio = 3
    case alternatePhoto = 4
    case fullSizePhoto = 5
    case fullSizeVideo = 6
    case adjustmentData = 7
    case adjustmentBasePhoto = 8
    case pairedVideo = 9
    case fullSizePairedVideo = 10
    case adjustmentBasePairedVideo = 11
    case adjustmentBaseVideo = 12

    /// The current renderings (what image requests of `.current` render, and cached derivatives are made of).
    package static let renderings: Set<ResourceType> = [.fullSizePhoto, .fullSizeVideo, .fullSizePairedVideo]

    /// The types an edit writes and a revert removes; the originals (photo, video, paired video, …) are never
    /// touched.
    package static let edit: [ResourceType] = [
        .fullSizePhoto, .fullSizeVideo, .adjustmentData, .adjustmentBasePhoto, .fullSizePairedVideo, .adjustmentBasePairedVideo,
        .adjustmentBaseVideo,
    ]
}

extension ResourceType: SQLValueConvertible {}

/// The last edit's recipe as the library stores it (`Adjustments.plist`, the `.adjustmentData` resource).
package struct StoredAdjustment: Sendable, Equatable {
    package var formatIdentifier: String
    package var formatVersion: String
    package var data: Data
    package var timestamp: Date
    /// The client that made the edit (nil: the library's owner).
    package var editor: String?

    package init(formatIdentifier: String, formatVersion: String, data: Data, timestamp: Date, editor: String?) {
        self.formatIdentifier = formatIdentifier
        self.formatVersion = formatVersion
        self.data = data
        self.timestamp = timestamp
        self.editor = editor
    }

    /// The largest adjustment file read back: the data limit (1 MiB) and room for the keys.
    package static let maximumFileSize = (1 << 20) + 64 * 1024

    /// A binary property list with the keys of Apple's `Adjustments.plist`.
    package func propertyList() throws(LibraryError) -> Data {
        var plist: [String: Any] = [
            "adjustmentFormatIdentifier": formatIdentifier, "adjustmentFormatVersion": formatVersion, "adjustmentData": data,
            "adjustmentTimestamp": timestamp,
        ]
        if let editor { plist["adjustmentEditorBundleID"] = editor }
        do { return try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0) } catch {
            throw .internalError("cannot encode the adjustment data: \(error)")
        }
    }

    /// Reads an `Adjustments.plist`; nil when it is not one (the library never interprets the data itself).
    package init?(propertyList: Data) {
        guard propertyList.count <= Self.maximumFileSize,
            let plist = try? PropertyListSerialization.propertyList(from: propertyList, options: [], format: nil) as? [String: Any],
            let identifier = plist["adjustmentFormatIdentifier"] as? String,
            let version = plist["adjustmentFormatVersion"] as? String,
            let data = plist["adjustmentData"] as? Data
        else { return nil }
        self.init(
            formatIdentifier: identifier, formatVersion: version, data: data,
            timestamp: plist["adjustmentTimestamp"] as? Date ?? Date(timeIntervalSince1970: 0),
            editor: plist["adjustmentEditorBundleID"] as? String)
    }
}

/// What an editing input is made from: the asset's versions as stored now.
package struct EditingState: Sendable {
    package var asset: AssetRecord
    /// The original photo or video.
    package var original: ResourceRecord?
    /// The current rendering (fullSizePhoto / fullSizeVideo), when edited.
    package var rendering: ResourceRecord?
    /// The stored base of the last edit, when it is not the original.
    package var adjustmentBase: ResourceRecord?
    /// The adjustment data resource.
    package var adjustmentResource: ResourceRecord?
    /// Whether the last edit can be reopened from its base (false for a video edit stacked on a rendering: videos
    /// keep no previous version).
    package var isResumable: Bool

    /// The file and basis an input gets: the base and the recipe when the editor can handle it and the edit is
    /// resumable, else the current version.
    package func inputSource(editorHandlesAdjustment: Bool) -> (resource: ResourceRecord?, basis: EditBasis) {
        guard asset.hasAdjustments, let rendering else { return (original, .original) }
        if editorHandlesAdjustment, isResumable {
            return adjustmentBase.map { ($0, .adjustmentBase) } ?? (original, .original)
        }
        return (rendering, .currentRendering)
    }
}

/// What editing needs to know of an asset created in the same change block.
protocol AssetMediaTypeProviding {
    var localIdentifier: String { get }
    var mediaType: MediaType { get }
}

/// A content edit staged and validated, ready for its transaction.
struct PreparedEdit {
    var localIdentifier: String
    var edit: ContentEdit
    var rendering: StagedFile
    var renderingInfo: MediaInfo
    var adjustment: StagedFile
    /// A Live Photo's edited video.
    var pairedVideo: (file: StagedFile, info: MediaInfo)?
}

/// Where a content edit's files go and which rows it replaces, decided inside the transaction.
struct EditPlacement {
    var prepared: PreparedEdit
    var assetID: Int64
    var mediaType: MediaType
    var version: Int
    var renderingPath: String
    var adjustmentPath: String
    /// A new stored base: the current rendering, hard-linked under the new version's name.
    var newBase: (from: String, to: String, record: ResourceRecord)?
    /// Rows removed by the edit (their files go after the commit).
    var superseded: [ResourceRecord]
    /// Where a Live Photo's edited video goes.
    var pairedVideoPath: String?
    /// The edited video the stacked edit was made on, kept as its base (a hard link).
    var newPairedBase: (from: String, to: String, record: ResourceRecord)?
    /// Whether the base row is kept as it is (an edit reopened from its stored base).
    var keepsBase: Bool
}

extension LibraryEngine {
    // MARK: - Reading versions

    /// The asset's versions, for an editing input: only for clients that may read it (add-only clients may not;
    /// limited clients only within their selection), and not for assets in Recently Deleted.
    package func editingState(localIdentifier: String, access: AccessContext, rawChosen: Bool = false) throws(LibraryError) -> EditingState {
        guard access.canRead else { throw access.denial("requesting editing input") }
        guard let asset = try asset(localIdentifier: localIdentifier) else { throw .identifierNotFound("no asset \(localIdentifier)") }
        if asset.trashedDate != nil { throw .changeNotSupported("\(localIdentifier) is in Recently Deleted: recover it before editing it") }
        let (resumable, selected) = try read { db in
            (
                try Bool.fetchOne(db, sql: "SELECT adjustment_resumable FROM asset WHERE id = ?", arguments: [asset.id]) ?? false,
                try !access.isLimited
                    || (Bool.fetchOne(
                        db, sql: "SELECT EXISTS (SELECT 1 FROM client_selection WHERE client_id = ? AND asset_id = ?)",
                        arguments: [access.clientID, asset.id]) ?? false)
            )
        }
        if !selected { throw access.denial("editing assets outside the limited selection") }
        let resources = try resources(assetID: asset.id)
        let current = VersionResolver.resource(.current, of: resources)
        return EditingState(
            asset: asset, original: VersionResolver.resource(.unadjusted, of: resources, rawChosen: rawChosen),
            rendering: current.flatMap { ResourceType.renderings.contains($0.type) ? $0 : nil },
            adjustmentBase: resources.first {
                $0.type == ResourceType.adjustmentBasePhoto || $0.type == ResourceType.adjustmentBaseVideo
            },
            adjustmentResource: resources.first { $0.type == ResourceType.adjustmentData }, isResumable: resumable)
    }

    /// The stored adjustment data of an asset's last edit; nil when unedited or unreadable.
    package func adjustment(of state: EditingState) -> StoredAdjustment? {
        guard let record = state.adjustmentResource, let data = blobs.readSmall(record.blobKey, limit: StoredAdjustment.maximumFileSize)
        else { return nil }
        return StoredAdjustment(propertyList: data)
    }

    // MARK: - Staging (outside the write lock)

    /// Stages the block's content edits, after checking that each asset gets at most one content change.
    func prepareContentChanges(
        _ intents: [ChangeIntent], created: [some AssetMediaTypeProviding], access: AccessContext, now: Date, staged: inout [StagedFile]
    ) throws(LibraryError) -> [PreparedEdit] {
        var changed = Set<String>()
        var edits: [PreparedEdit] = []
        for intent in intents {
            let identifier: String
            switch intent {
            case .editAssetContent(let id, _), .revertAssetContent(let id): identifier = id
            default: continue
            }
            guard changed.insert(identifier).inserted else {
                throw .changeNotSupported("\(identifier) can have one content edit or revert per change block")
            }
            guard case .editAssetContent(_, let edit) = intent else { continue }
            let mediaType: MediaType
            if let asset = created.first(where: { $0.localIdentifier == identifier }) {
                mediaType = asset.mediaType
            } else if let record = try asset(localIdentifier: identifier) {
                mediaType = record.mediaType
                // Stale before anything is staged (checked again in the transaction): a committed output's rendering
                // was taken, and committing it again must say why it cannot be, not that it has no rendering.
                if let base = edit.baseContentVersion, base != record.contentVersion {
                    throw .changeNotSupported(Self.staleEditMessage(identifier))
                }
            } else {
                throw .identifierNotFound("no asset \(identifier)")
            }
            edits.append(try prepareEdit(identifier, edit, mediaType: mediaType, now: now, editor: access.clientID, staged: &staged))
        }
        return edits
    }

    /// Stages an edit's rendering in the writer's slot and validates it: a decodable file of the asset's kind
    /// (JPEG or HEIC for photos, QuickTime or MPEG-4 for videos), upright, with acceptable adjustment data.
    func prepareEdit(
        _ localIdentifier: String, _ edit: ContentEdit, mediaType: MediaType, now: Date, editor: String?, staged: inout [StagedFile]
    ) throws(LibraryError) -> PreparedEdit {
        let isPhoto = mediaType == .image
        if let problem = edit.problem { throw .invalidResource(problem) }
        if edit.madeFor != localIdentifier {
            throw .invalidResource("the content editing output was made for another asset (\(edit.madeFor)), not \(localIdentifier)")
        }
        guard mediaType == .image || mediaType == .video else {
            throw .requestNotSupportedForAsset("\(localIdentifier) is neither a photo nor a video: its content cannot be edited")
        }
        if edit.formatIdentifier.isEmpty && edit.formatVersion.isEmpty && edit.adjustmentData.isEmpty {
            throw .invalidResource("the content editing output has no adjustment data")
        }
        if edit.formatIdentifier.isEmpty || edit.formatVersion.isEmpty {
            throw .invalidResource("the content editing output's adjustment data has no format identifier or version")
        }
        if edit.adjustmentData.isEmpty { throw .invalidResource("the content editing output's adjustment data is empty") }
        // PhotoKit's format identifiers are reverse-DNS strings and versions short: 2.5 MB of either was accepted.
        // (Their content is the editor's business and stored as bytes.)
        if edit.formatIdentifier.utf8.count > Self.maximumFormatIdentifierLength || edit.formatVersion.utf8.count > Self.maximumFormatVersionLength {
            throw .invalidResource(
                "the adjustment format identifier and version are at most \(Self.maximumFormatIdentifierLength) and \(Self.maximumFormatVersionLength) bytes"
            )
        }
        if edit.adjustmentData.count > Self.maximumAdjustmentDataSize {
            throw .invalidResource(
                "the adjustment data is \(edit.adjustmentData.count) bytes, more than the \(Self.maximumAdjustmentDataSize) the library keeps")
        }
        var info = stat()
        guard stat(edit.renderedFile.path, &info) == 0 else {
            throw .invalidResource("the content editing output has no rendered file (nothing was written to renderedContentURL)")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .invalidResource("the rendered output is not a regular file") }
        guard info.st_size > 0 else { throw .invalidResource("the rendered output is empty") }
        // An oversized rendering is refused from its header before it is copied (the bound is checked again on the
        // copy, which is what is committed).
        if let declared = try? configuration.probe.probe(edit.renderedFile) {
            try Self.checkRenderingSize(Int64(info.st_size), declared)
        }
        // Written by this process in its editing area: taken by a link, not copied (and removed from there once
        // committed). Anything else — a temporary folder, an extension's output — is copied.
        let rendering = try stager.stage(file: edit.renderedFile, move: isTakeable(edit.renderedFile))
        staged.append(rendering)
        let probed: MediaInfo
        do { probed = try configuration.probe.probe(rendering.url) } catch {
            throw .invalidResource(
                "the rendered output cannot be decoded: \(error.description.replacingOccurrences(of: rendering.url.path, with: "the file"))")
        }
        let accepted: [MediaFormat] = isPhoto ? [.jpeg, .heic] : [.quickTimeMovie, .mpeg4Movie]
        guard accepted.contains(probed.format) else {
            throw .invalidResource(
                "the rendered output holds \(probed.format.rawValue) data; a \(isPhoto ? "photo" : "video") edit must be \(isPhoto ? "JPEG or HEIC" : "a QuickTime movie")"
            )
        }
        // What the pixels can need: a JPEG or HEIC of W × H pixels is at most a few bytes a pixel, plus metadata. A
        // 1.5 GB sparse file with a small image's header and a JPEG trailer was committed.
        try Self.checkRenderingSize(rendering.size, probed)
        if isPhoto, probed.orientation != 1 {
            throw .invalidResource("the rendered output has EXIF orientation \(probed.orientation): bake the orientation in and write it \"up\" (1)")
        }
        if probed.format == .jpeg, !Self.endsWithJPEGTrailer(rendering.url) {
            throw .invalidResource("the rendered JPEG is truncated (it does not end with an end-of-image marker)")
        }
        let adjustment = StoredAdjustment(
            formatIdentifier: edit.formatIdentifier, formatVersion: edit.formatVersion, data: edit.adjustmentData, timestamp: now,
            editor: editor)
        var propertyList = try adjustment.propertyList()
        // Kept only when it says the same (else the one written from the edit is stored).
        if let kept = edit.keptPropertyList, let stored = StoredAdjustment(propertyList: kept), stored.formatIdentifier == edit.formatIdentifier,
            stored.formatVersion == edit.formatVersion, stored.data == edit.adjustmentData
        {
            propertyList = kept
        }
        let plist = try stager.stage(data: propertyList)
        staged.append(plist)
        var pairedVideo: (StagedFile, MediaInfo)?
        if let video = edit.renderedPairedVideo {
            guard isPhoto else { throw .invalidResource("only a Live Photo's edit has a paired video") }
            let file = try stager.stage(file: video, move: isTakeable(video))
            staged.append(file)
            let info: MediaInfo
            do { info = try configuration.probe.probe(file.url) } catch {
                throw .invalidResource(
                    "the edited Live Photo video cannot be read: \(error.description.replacingOccurrences(of: file.url.path, with: "the file"))")
            }
            guard [.quickTimeMovie, .mpeg4Movie].contains(info.format) else {
                throw .invalidResource("the edited Live Photo video holds \(info.format.rawValue) data, not a QuickTime movie")
            }
            pairedVideo = (file, info)
        }
        return PreparedEdit(
            localIdentifier: localIdentifier, edit: edit, rendering: rendering, renderingInfo: probed, adjustment: plist, pairedVideo: pairedVideo)
    }

    static func staleEditMessage(_ identifier: String) -> String {
        "the content of \(identifier) changed since its editing input was requested (or this output was already committed); request a new input"
    }

    /// The largest adjustment data committed (`PHAdjustmentData.maximumDataSize`).
    package static let maximumAdjustmentDataSize = 1 << 20
    /// Refuses a rendered photo larger than its pixels can need.
    /// Refuses a rendering larger than what it holds can need: a photo's 4 bytes a pixel, a movie's
    /// ``maximumVideoBytesPerSecond`` for its duration (ProRes 4444 XQ at 4K is about 290 MB/s), each with room for
    /// metadata.
    static func checkRenderingSize(_ size: Int64, _ info: MediaInfo) throws(LibraryError) {
        if info.isImage {
            let bound = Int64(info.storedPixelWidth) * Int64(info.storedPixelHeight) * 4 + Int64(renderingMetadataAllowance)
            if size > bound {
                throw .invalidResource(
                    "the rendered output is \(size) bytes, more than a \(info.storedPixelWidth)×\(info.storedPixelHeight) image can need (\(bound))")
            }
        } else {
            let seconds = max(1, info.duration.isFinite ? info.duration : 1)
            let bound = Int64(seconds * Double(maximumVideoBytesPerSecond)) + Int64(4 * renderingMetadataAllowance)
            if size > bound {
                throw .invalidResource(
                    "the rendered movie is \(size) bytes, more than \(String(format: "%.1f", seconds)) s of video can need (\(bound))")
            }
        }
    }

    /// The most bytes a second of rendered video may take (see ``checkRenderingSize(_:_:)``).
    package static let maximumVideoBytesPerSecond = 400_000_000

    /// The longest adjustment format identifier (a reverse-DNS string, as a bundle identifier) and version, in bytes.
    package static let maximumFormatIdentifierLength = 255
    package static let maximumFormatVersionLength = 64
    /// What a rendered photo may hold beside its pixels' worst case (4 bytes a pixel): EXIF, XMP, ICC, thumbnails.
    package static let renderingMetadataAllowance = 16 << 20

    /// Whether a JPEG file ends with its end-of-image marker (FF D9), allowing trailing padding bytes of zero.
    static func endsWithJPEGTrailer(_ url: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size >= 4 else { return false }
        let tail = min(size, 4096)
        try? handle.seek(toOffset: size - tail)
        guard let bytes = try? handle.readToEnd() else { return false }
        var end = bytes.count
        while end > 0, bytes[bytes.startIndex + end - 1] == 0 { end -= 1 }
        return end >= 2 && bytes[bytes.startIndex + end - 2] == 0xFF && bytes[bytes.startIndex + end - 1] == 0xD9
    }

    // MARK: - Inside the transaction

    /// The block's content edits and reverts, inside its transaction: plans (reads and checks), reverts, one intent
    /// journal listing the files placed and the files replaced, the files, then the rows. `placed`, `journals` and
    /// `superseded` tell the caller what to undo when the transaction fails, and what to remove when it commits.
    func applyContentChanges(
        _ edits: [PreparedEdit], _ intents: [ChangeIntent], created: Set<String>, access: AccessContext, now: Date, db: any SQLConnection,
        summary: inout CommitSummary, placed: inout [BlobKey], journals: inout [URL], superseded: inout [ResourceRecord]
    ) throws {
        guard !edits.isEmpty || intents.contains(where: \.isContentRevert) else { return }
        let plans = try edits.map { edit in
            try planEdit(edit, createdInBlock: created.contains(edit.localIdentifier), access: access, db: db)
        }
        var replaced = plans.flatMap(\.superseded)
        for case .revertAssetContent(let identifier) in intents {
            replaced += try revert(identifier, access: access, now: now, db: db, summary: &summary)
        }
        journals.append(try slots.writeIntent(plans.flatMap { placements($0).map(\.key.path) } + replaced.map(\.path)))
        try blobs.put(plans.flatMap(placements), placed: &placed)
        for plan in plans { try writeEdit(plan, access: access, now: now, db: db, summary: &summary) }
        superseded = replaced
    }

    /// Decides an edit's paths and checks it against the asset as it is now (same version as the input's, visible
    /// to the client, not deleted).
    func planEdit(
        _ prepared: PreparedEdit, createdInBlock: Bool, access: AccessContext, db: any SQLConnection
    ) throws -> EditPlacement {
        let identifier = prepared.localIdentifier
        let assetID = try editableAssetID(identifier, access: access, db: db)
        guard let row = try SQLRecord.fetchOne(db, sql: "SELECT media_type, content_version FROM asset WHERE id = ?", arguments: [assetID]) else {
            throw LibraryError.identifierNotFound("no asset \(identifier)")
        }
        let mediaType = MediaType(rawValue: row[0] as Int) ?? .unknown
        let version: Int = row[1]
        let isPhoto = mediaType == .image
        if prepared.renderingInfo.isImage != isPhoto {
            throw LibraryError.invalidResource(
                "the rendered output is \(prepared.renderingInfo.isImage ? "an image" : "a movie") but \(identifier) is a \(isPhoto ? "photo" : "video")"
            )
        }
        if !createdInBlock, prepared.edit.baseContentVersion == nil {
            throw LibraryError.invalidResource("the content editing output was made for an asset created in another change block")
        }
        if !createdInBlock, prepared.edit.baseContentVersion != version {
            throw LibraryError.changeNotSupported(Self.staleEditMessage(identifier))
        }
        let current = try editResources(assetID, identifier, db: db)
        let newVersion = version + 1
        let uuid = String(identifier.prefix { $0 != "/" })
        let ext = prepared.renderingInfo.format.preferredFilenameExtension
        let renderingPath = bundle.originalPath(assetUUID: uuid, suffix: "_v\(newVersion)_render", fileExtension: ext)
        let adjustmentPath = bundle.originalPath(assetUUID: uuid, suffix: "_v\(newVersion)_adjustments", fileExtension: "plist")
        let rendering = current.first { $0.type == ResourceType.fullSizePhoto || $0.type == ResourceType.fullSizeVideo }
        var superseded = current
        var newBase: (from: String, to: String, record: ResourceRecord)?
        var keepsBase = false
        switch prepared.edit.basis {
        case .original:
            break
        case .adjustmentBase:
            guard let base = current.first(where: { $0.type == ResourceType.adjustmentBasePhoto }) else {
                throw LibraryError.changeNotSupported("\(identifier) has no stored base to reopen its edit from; request a new input")
            }
            superseded.removeAll { $0.id == base.id }
            keepsBase = true
        case .currentRendering:
            // Photos keep the rendering the editor worked on as the new edit's base; videos keep no previous version.
            if isPhoto, let rendering {
                let basePath = bundle.originalPath(
                    assetUUID: uuid, suffix: "_v\(newVersion)_base", fileExtension: (rendering.path as NSString).pathExtension)
                var record = rendering
                record.type = ResourceType.adjustmentBasePhoto
                record.path = basePath
                record.originalFilename = "PenultimateFullSizeRender.\((rendering.path as NSString).pathExtension.uppercased())"
                newBase = (rendering.path, basePath, record)
            }
        }
        var pairedVideoPath: String?
        var newPairedBase: (from: String, to: String, record: ResourceRecord)?
        if let video = prepared.pairedVideo {
            pairedVideoPath = bundle.originalPath(
                assetUUID: uuid, suffix: "_v\(newVersion)_render_3", fileExtension: video.info.format.preferredFilenameExtension)
            switch prepared.edit.basis {
            case .adjustmentBase:
                if let base = current.first(where: { $0.type == ResourceType.adjustmentBasePairedVideo }) {
                    superseded.removeAll { $0.id == base.id }
                }
            case .currentRendering:
                if let edited = current.first(where: { $0.type == ResourceType.fullSizePairedVideo }) {
                    var record = edited
                    record.type = ResourceType.adjustmentBasePairedVideo
                    record.path = bundle.originalPath(
                        assetUUID: uuid, suffix: "_v\(newVersion)_base_3", fileExtension: (edited.path as NSString).pathExtension)
                    newPairedBase = (edited.path, record.path, record)
                }
            case .original:
                break
            }
        }
        return EditPlacement(
            prepared: prepared, assetID: assetID, mediaType: mediaType, version: newVersion, renderingPath: renderingPath,
            adjustmentPath: adjustmentPath, newBase: newBase, superseded: superseded, pairedVideoPath: pairedVideoPath,
            newPairedBase: newPairedBase, keepsBase: keepsBase)
    }

    /// What an edit stores: the previous version kept as the new base (the current rendering under a second key:
    /// no copy), the staged rendering, paired video and adjustment data.
    func placements(_ plan: EditPlacement) -> [(source: BlobSource, key: BlobKey)] {
        var blobs: [(source: BlobSource, key: BlobKey)] = []
        for base in [plan.newBase, plan.newPairedBase].compactMap({ $0 }) {
            blobs.append((.stored(BlobKey(path: base.from, sha256: base.record.sha256)), base.record.blobKey))
        }
        if let video = plan.prepared.pairedVideo, let path = plan.pairedVideoPath {
            blobs.append((.staged(video.file.url), BlobKey(path: path, sha256: video.file.sha256)))
        }
        blobs.append((.staged(plan.prepared.rendering.url), BlobKey(path: plan.renderingPath, sha256: plan.prepared.rendering.sha256)))
        blobs.append((.staged(plan.prepared.adjustment.url), BlobKey(path: plan.adjustmentPath, sha256: plan.prepared.adjustment.sha256)))
        return blobs
    }

    /// Writes an edit's rows: the new rendering, recipe and base replace the old ones; the asset takes the
    /// rendering's size and a new content version.
    func writeEdit(_ plan: EditPlacement, access: AccessContext, now: Date, db: any SQLConnection, summary: inout CommitSummary) throws {
        let prepared = plan.prepared
        let isPhoto = plan.mediaType == .image
        let ids = plan.superseded.map(\.id)
        if !ids.isEmpty {
            let superseded = db.dialect.isIn("id", ids.map { .integer($0) })
            try db.execute(sql: "DELETE FROM resource WHERE \(superseded.sql)", arguments: superseded.statementArguments)
        }
        let insert = """
            INSERT INTO resource (asset_id, type, path, original_filename, uniform_type_identifier, file_size, sha256,
                pixel_width, pixel_height) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        let info = prepared.renderingInfo
        try db.execute(
            sql: insert,
            arguments: [
                plan.assetID, isPhoto ? ResourceType.fullSizePhoto : ResourceType.fullSizeVideo, plan.renderingPath,
                "FullSizeRender.\(info.format.preferredFilenameExtension == "jpeg" ? "jpg" : info.format.preferredFilenameExtension)",
                info.format.uniformTypeIdentifier, prepared.rendering.size, prepared.rendering.sha256, info.pixelWidth, info.pixelHeight,
            ])
        try db.execute(
            sql: insert,
            arguments: [
                plan.assetID, ResourceType.adjustmentData, plan.adjustmentPath, "Adjustments.plist", "com.apple.property-list",
                prepared.adjustment.size, prepared.adjustment.sha256, 0, 0,
            ])
        for base in [plan.newBase?.record, plan.newPairedBase?.record].compactMap({ $0 }) {
            try db.execute(
                sql: insert,
                arguments: [
                    plan.assetID, base.type, base.path, base.originalFilename, base.uniformTypeIdentifier, base.fileSize, base.sha256,
                    base.pixelWidth, base.pixelHeight,
                ])
        }
        if let video = prepared.pairedVideo, let path = plan.pairedVideoPath {
            try db.execute(
                sql: insert,
                arguments: [
                    plan.assetID, ResourceType.fullSizePairedVideo, path, "FullSizeRender.\(video.info.format.preferredFilenameExtension)",
                    video.info.format.uniformTypeIdentifier, video.file.size, video.file.sha256, video.info.pixelWidth, video.info.pixelHeight,
                ])
        }
        // A video edit stacked on a rendering keeps no base: its recipe cannot be reopened (spec §2).
        let resumable = isPhoto || prepared.edit.basis == .original
        try db.execute(
            sql: """
                UPDATE asset SET pixel_width = ?, pixel_height = ?, duration = CASE WHEN media_type = 2 THEN ? ELSE duration END,
                    has_adjustments = 1, adjustment_format_identifier = ?, adjustment_format_version = ?, adjustment_timestamp = ?,
                    adjustment_client = ?, adjustment_resumable = ?, content_version = ?, modification_date = ? WHERE id = ?
                """,
            arguments: [
                info.pixelWidth, info.pixelHeight, info.duration, prepared.edit.formatIdentifier, prepared.edit.formatVersion,
                now.timeIntervalSince1970, access.clientID, resumable, plan.version, now.timeIntervalSince1970, plan.assetID,
            ])
        try queueRenderings(assetID: plan.assetID, now: now, db: db)
        summary.noteContentChanged(.init(id: plan.assetID, localIdentifier: prepared.localIdentifier))
    }

    /// Reverts an asset to its original inside the transaction; returns the rows removed (their files go after the
    /// commit). An asset whose original file is missing is refused: the revert would leave it without content.
    func revert(_ identifier: String, access: AccessContext, now: Date, db: any SQLConnection, summary: inout CommitSummary) throws
        -> [ResourceRecord]
    {
        let assetID = try editableAssetID(identifier, access: access, db: db)
        guard let row = try SQLRecord.fetchOne(db, sql: "SELECT media_type FROM asset WHERE id = ?", arguments: [assetID]) else {
            throw LibraryError.identifierNotFound("no asset \(identifier)")
        }
        let originalType = (row[0] as Int) == 2 ? ResourceType.video : ResourceType.photo
        guard
            let original = try SQLRecord.fetchOne(
                db, sql: "SELECT path, pixel_width, pixel_height, sha256 FROM resource WHERE asset_id = ? AND type = ?",
                arguments: [assetID, originalType])
        else { throw LibraryError.missingResource("\(identifier) has no original to revert to") }
        let originalKey = BlobKey(path: original[0], sha256: original[3])
        do {
            _ = try blobs.size(of: originalKey)
        } catch {
            let missing = error.code == LibraryError.missingResource("").code
            throw missing ? LibraryError.missingResource("the original of \(identifier) is missing: it cannot be reverted") : error
        }
        let removed = try editResources(assetID, identifier, db: db)
        if !removed.isEmpty {
            let edit = db.dialect.isIn("id", removed.map { .integer($0.id) })
            try db.execute(sql: "DELETE FROM resource WHERE \(edit.sql)", arguments: edit.statementArguments)
        }
        try db.execute(
            sql: """
                UPDATE asset SET pixel_width = ?, pixel_height = ?, has_adjustments = 0, adjustment_format_identifier = NULL,
                    adjustment_format_version = NULL, adjustment_timestamp = ?, adjustment_client = ?, adjustment_resumable = 0,
                    content_version = content_version + 1, modification_date = ? WHERE id = ?
                """,
            arguments: [
                original[1] as Int, original[2] as Int, now.timeIntervalSince1970, access.clientID, now.timeIntervalSince1970, assetID,
            ])
        try queueRenderings(assetID: assetID, now: now, db: db)
        summary.noteContentChanged(.init(id: assetID, localIdentifier: identifier))
        return removed
    }

    /// The rows of an asset's edit (renderings, recipe, previous versions): what a new edit replaces or a revert
    /// removes.
    private func editResources(_ assetID: Int64, _ identifier: String, db: any SQLConnection) throws -> [ResourceRecord] {
        let types = db.dialect.isIn("r.type", ResourceType.edit.map(\.sqlValue))
        return try SQLRecord.fetchAll(
            db,
            sql: """
                SELECT r.id, r.asset_id, ?, r.type, r.path, r.original_filename, r.uniform_type_identifier, r.file_size, r.sha256,
                       r.pixel_width, r.pixel_height
                FROM resource r WHERE r.asset_id = ? AND \(types.sql)
                """, arguments: [identifier, assetID] + types.statementArguments
        ).map(ResourceRecord.init(row:))
    }

    /// The row id of an asset whose content the client may edit: visible to it, not in Recently Deleted.
    private func editableAssetID(_ identifier: String, access: AccessContext, db: any SQLConnection) throws -> Int64 {
        let id = try visibleAssetID(identifier, access: access, db: db)
        let trashed = try Double.fetchOne(db, sql: "SELECT trashed_date FROM asset WHERE id = ?", arguments: [id])
        if trashed != nil { throw LibraryError.changeNotSupported("\(identifier) is in Recently Deleted: recover it before editing it") }
        return id
    }
}
