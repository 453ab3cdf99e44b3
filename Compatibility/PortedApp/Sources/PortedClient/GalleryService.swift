// Client code written as an iOS app writes it, with no edit for Linux: `import Photos` and
// `import UniformTypeIdentifiers`, no `#if`, nothing from OpenPhotoKit by name. If it stops compiling, ported apps
// stop compiling.
import Photos
import UniformTypeIdentifiers

/// A small photo service of the kind apps keep beside their UI.
final class GalleryService {
    private let library: PHPhotoLibrary

    init(library: PHPhotoLibrary = .shared()) {
        self.library = library
    }

    /// Favourite photos taken after `date`, newest first.
    func favoritePhotos(after date: Date) -> [PHAsset] {
        let options = PHFetchOptions()
        options.predicate = NSPredicate(
            format: "mediaType == %d AND favorite == YES AND creationDate > %@", PHAssetMediaType.image.rawValue, date as NSDate)
        options.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: false)]
        var assets: [PHAsset] = []
        PHAsset.fetchAssets(with: options).enumerateObjects { asset, _, _ in assets.append(asset) }
        return assets
    }

    /// Saves a photo into a new album, as the share extension of an app does.
    func save(photoAt url: URL, intoAlbumTitled title: String) async throws -> String? {
        nonisolated(unsafe) var identifier: String?
        try await library.performChanges {
            let request = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: url)
            let album = PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: title)
            if let placeholder = request?.placeholderForCreatedAsset {
                album.addAssets([placeholder] as NSArray)
                identifier = placeholder.localIdentifier
            }
        }
        return identifier
    }

    /// The size of an asset's original, from the private key apps read.
    func originalFileSize(of asset: PHAsset) -> Int64? {
        PHAssetResource.assetResources(for: asset).first?.value(forKey: "fileSize") as? Int64
    }

    /// The file name to give an export of a resource: its own name, with the extension its type prefers.
    func exportName(for resource: PHAssetResource) -> String {
        let base = (resource.originalFilename as NSString).deletingPathExtension
        let type = UTType(resource.uniformTypeIdentifier)
        return base + "." + (type?.preferredFilenameExtension ?? "dat")
    }

    /// Whether a resource is a movie (Live Photo videos included).
    func isMovie(_ resource: PHAssetResource) -> Bool {
        UTType(resource.uniformTypeIdentifier)?.conforms(to: .movie) ?? false
    }

    /// The extension for an upload's MIME type.
    func fileExtension(forMIMEType mimeType: String) -> String? {
        UTType(mimeType: mimeType)?.preferredFilenameExtension
    }

    /// Writes a resource's bytes to a file (the async form apps use).
    func export(_ resource: PHAssetResource, to url: URL) async throws {
        // The original may be in iCloud (or on a photos serve): let Photos download it.
        let options = PHAssetResourceRequestOptions()
        options.isNetworkAccessAllowed = true
        try await PHAssetResourceManager.default().writeData(for: resource, toFile: url, options: options)
    }

    /// Module-qualified names, as some apps write them.
    func firstAsset(of result: PHFetchResult<Photos.PHAsset>) -> Photos.PHAsset? { result.firstObject }
}

/// Pre-iOS 14 code: the CoreServices functions and constants, as written then.
enum LegacyTypes {
    static func fileExtension(forUTI uti: String) -> String? {
        guard let ext = UTTypeCopyPreferredTagWithClass(uti as CFString, kUTTagClassFilenameExtension)?.takeRetainedValue() else {
            return nil
        }
        return ext as String
    }

    static func mimeType(forExtension pathExtension: String) -> String {
        if let uti = UTTypeCreatePreferredIdentifierForTag(kUTTagClassFilenameExtension, pathExtension as CFString, nil)?
            .takeRetainedValue(),
            let mime = UTTypeCopyPreferredTagWithClass(uti, kUTTagClassMIMEType)?.takeRetainedValue()
        {
            return mime as String
        }
        return "application/octet-stream"
    }

    static func isImage(_ uti: String) -> Bool { UTTypeConformsTo(uti as CFString, kUTTypeImage) }

    static func isLivePhoto(_ uti: String) -> Bool { UTTypeEqual(uti as CFString, kUTTypeLivePhoto) }
}
