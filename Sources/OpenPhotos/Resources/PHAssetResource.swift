import Foundation
import PhotoLibraryEngine

/// A file of an asset: the original photo or video, a Live Photo's paired video, …
open class PHAssetResource: NSObject, @unchecked Sendable {
    let record: ResourceRecord
    let library: PHPhotoLibrary?

    init(record: ResourceRecord, library: PHPhotoLibrary?) {
        self.record = record
        self.library = library
    }

    /// The resources of an asset.
    open class func assetResources(for asset: PHAsset) -> [PHAssetResource] {
        if let library = asset.library, let remote = library.remote {
            return ((try? remote.resources(assetID: asset.record.id)) ?? []).map { PHAssetResource(record: $0, library: library) }
        }
        guard let library = asset.library, let engine = library.engineIfAvailable, library.access.canRead else { return [] }
        let records = (try? engine.resources(assetID: asset.record.id)) ?? []
        // A resource of a type this version does not know is kept in the library but not listed: PhotoKit's enum
        // cannot name it (ported code would skip it in `@unknown default` anyway).
        return records.filter { $0.type != .unknown }.map { PHAssetResource(record: $0, library: library) }
    }

    /// The resources of a Live Photo made from a library asset (none for one made from loose files).
    open class func assetResources(for livePhoto: PHLivePhoto) -> [PHAssetResource] {
        livePhoto.asset.map { assetResources(for: $0) } ?? []
    }

    /// The resource of a version of an asset's primary photo or video, or of a Live Photo's paired video: the
    /// engine's ``VersionResolver`` decides, for every caller (image requests, the server's validators, exports).
    package static func resource(
        of asset: PHAsset, version: PHImageRequestOptionsVersion, pairedVideo: Bool = false
    ) -> PHAssetResource? {
        resource(among: assetResources(for: asset), version: version, pairedVideo: pairedVideo, rawChosen: asset.record.originalChoice == 1)
    }

    /// The same, among an asset's resources already read.
    package static func resource(
        among resources: [PHAssetResource], version: PHImageRequestOptionsVersion, pairedVideo: Bool = false, rawChosen: Bool = false
    ) -> PHAssetResource? {
        VersionResolver.resource(
            AssetVersion(rawValue: version.rawValue) ?? .current, pairedVideo ? .pairedVideo : .primary, of: resources, rawChosen: rawChosen
        ) { $0.record.type }
    }

    static func primaryResource(of asset: PHAsset) -> PHAssetResource? {
        resource(of: asset, version: .unadjusted)
    }

    /// The role of the resource.
    open var type: PHAssetResourceType { PHAssetResourceType(rawValue: record.type.rawValue) ?? .photo }
    /// The identifier of the asset the resource belongs to.
    open var assetLocalIdentifier: String { record.assetLocalIdentifier }
    /// The uniform type identifier of the data.
    open var uniformTypeIdentifier: String { record.uniformTypeIdentifier }
    /// The file name the resource had when it was added.
    open var originalFilename: String { record.originalFilename }
    /// The file name of the resource, if it has one (iOS 27; Apple deprecates ``originalFilename`` for it): the name it
    /// was created or imported with; an edit's renderings are named as Photos names them (`FullSizeRender.jpg`).
    open var filename: String? { record.originalFilename.isEmpty ? nil : record.originalFilename }
    /// The uniform type of the data (iOS 26): ``uniformTypeIdentifier`` as a ``UTType``.
    open var contentType: UTType { UTType(record.uniformTypeIdentifier) ?? UTType(importedAs: record.uniformTypeIdentifier) }
    /// The size of the data in bytes (iOS 26); nil when unknown.
    open var dataSize: Int? { Int(exactly: record.fileSize) }
    /// Width in pixels as displayed.
    open var pixelWidth: Int { record.pixelWidth }
    /// Height in pixels as displayed.
    open var pixelHeight: Int { record.pixelHeight }

    /// OpenPhotoKit: the stored file's size in bytes.
    public var fileSize: Int64 { record.fileSize }
    /// OpenPhotoKit: the SHA-256 of the stored bytes (hex).
    public var sha256: String { record.sha256 }
    /// OpenPhotoKit: a local file holding the bytes, for code that reads files (a decoder, `sendfile`): the stored
    /// file itself in a library folder, a local copy where the library keeps its files elsewhere. Read it, never
    /// write it. nil when the bytes are missing or the stored name would leave the library (a damaged or crafted
    /// row is never followed outside it).
    public var fileURL: URL? {
        guard let engine = library?.engineIfAvailable else { return nil }
        return try? engine.materialize(record)
    }

    /// Whether the bytes are on this machine (reading them needs no network: always, for a library folder's files).
    package var isStoredLocally: Bool {
        library?.engineIfAvailable?.isLocal(record) ?? false
    }

    /// Up to `count` of the stored bytes from `offset`, read from where they are kept (ranged reads of object
    /// storage: no whole copy).
    package func readStored(at offset: Int64, count: Int) throws -> Data {
        guard let engine = library?.engineIfAvailable else { throw PHPhotosError(.libraryVolumeOffline) }
        do { return try engine.read(record, offset: offset, count: count) } catch { throw PHPhotosError(error) }
    }

    /// The size of the stored bytes, read from where they are kept (nil when they are missing).
    package var storedSize: Int64? {
        guard let engine = library?.engineIfAvailable else { return nil }
        return try? engine.storedSize(of: record)
    }

    /// The adjustment an `.adjustmentData` resource holds, read within the size an adjustment may have, with the
    /// client that made it and when (nil when the file does not say).
    package var storedAdjustment: (data: PHAdjustmentData, editor: String?, timestamp: Date?)? {
        guard let stored = library?.engineIfAvailable?.adjustment(in: record) else { return nil }
        return (
            PHAdjustmentData(formatIdentifier: stored.formatIdentifier, formatVersion: stored.formatVersion, data: stored.data),
            stored.editor, stored.timestamp.timeIntervalSince1970 == 0 ? nil : stored.timestamp
        )
    }

    /// A name that is safe to create a file with, made from a resource's original name (the last component, control
    /// characters replaced, no leading dot, at most 255 bytes with the extension kept), or `fallback`.
    package static func safeFileName(_ name: String, fallback: String) -> String {
        ResourceName.safeFileName(name, fallback: fallback)
    }

    /// Private keys read with `value(forKey:)` on Apple platforms (`fileSize`, `locallyAvailable`); unknown keys return nil.
    public func value(forKey key: String) -> Any? {
        switch key {
        case "fileSize": return record.fileSize
        case "locallyAvailable": return isStoredLocally
        case "isCurrent": return true
        case "originalFilename": return originalFilename
        case "uniformTypeIdentifier": return uniformTypeIdentifier
        default: return nil
        }
    }

    open override var description: String {
        "<PHAssetResource: type=\(type) \(originalFilename) \(uniformTypeIdentifier) \(pixelWidth)x\(pixelHeight)>"
    }
}

extension PHAssetResource {
    /// The resource an upload job sends; nil when the asset no longer has those bytes (deleted, or edited since).
    public class func assetResource(forUploadJob job: PHAssetResourceUploadJob) -> PHAssetResource? {
        guard let library = job.library else { return nil }
        if library.remote != nil { return job.record.servedResource.map { PHAssetResource(record: $0, library: library) } }
        guard let engine = library.engineIfAvailable, let record = try? engine.uploadJobResource(job.record) else { return nil }
        return PHAssetResource(record: record, library: library)
    }
}
