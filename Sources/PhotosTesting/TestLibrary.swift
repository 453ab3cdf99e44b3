import Foundation
import OpenPhotos

/// A new, empty photo library for a test, of the kind a ``LibraryProvider`` makes (a folder by default), with a
/// temporary scratch folder for generated media: both removed when ``remove()`` is called.
public final class TestLibrary: @unchecked Sendable {
    /// The library handle: the owner's, or for a served library the test's client's (with full access).
    public let library: PHPhotoLibrary
    /// The owner's handle, who grants access and issues tokens: ``library``, or for a served library the server's
    /// own handle onto it.
    public let owner: PHPhotoLibrary
    /// The library's URL (`PHPhotoLibrary(url:)` opens another handle onto it): for the default provider, its folder.
    public let url: URL
    /// A scratch folder for generated media.
    public let scratch: URL
    /// The kind of library.
    public let provider: any LibraryProvider

    /// Creates an empty library named `name`, opened as its owner.
    public init(name: String = "Test", provider: any LibraryProvider = LocalLibraryProvider()) throws {
        let root = try TestMedia.temporaryDirectory("OpenPhotoKit-\(name)")
        scratch = root.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        self.provider = provider
        url = try provider.makeLibrary(name: name, scratch: scratch)
        do {
            library = try provider.openLibrary(at: url, clientIdentifier: nil)
        } catch {
            provider.removeLibrary(at: url)
            throw error
        }
        owner = provider.owner(ofLibraryAt: url) ?? library
    }

    /// Another handle onto the library, as another process or device opens it, acting for `clientIdentifier` (nil:
    /// as ``library`` does).
    public func open(clientIdentifier: String? = nil) throws -> PHPhotoLibrary {
        try provider.openLibrary(at: url, clientIdentifier: clientIdentifier)
    }

    /// The folder of the library's local files (uploads in progress, writer slots; and originals and renderings
    /// unless they are in object storage): the library's folder, or for a library on a server the `files=` folder of
    /// its URL, or with object storage (`files=s3://…`) this process's folder (`cache=`).
    public var filesFolder: URL {
        if url.isFileURL { return url }
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        let files = items.first { $0.name == "files" }?.value ?? "/nonexistent"
        return URL(fileURLWithPath: files.hasPrefix("s3://") ? (items.first { $0.name == "cache" }?.value ?? "/nonexistent") : files)
    }

    /// Options that fetch from this library.
    public func options(_ configure: (PHFetchOptions) -> Void = { _ in }) -> PHFetchOptions {
        let options = PHFetchOptions()
        options.photoLibrary = library
        configure(options)
        return options
    }

    /// Options that fetch from the owner's handle (``owner``).
    public func ownerOptions(_ configure: (PHFetchOptions) -> Void = { _ in }) -> PHFetchOptions {
        let options = PHFetchOptions()
        options.photoLibrary = owner
        configure(options)
        return options
    }

    /// Writes a generated JPEG into the scratch folder.
    public func makeImage(_ name: String = "image-\(UUID().uuidString).jpg", width: Int = 64, height: Int = 48, orientation: Int = 1) throws -> URL {
        let file = scratch.appendingPathComponent(name)
        try TestMedia.writeImage(to: file, width: width, height: height, orientation: orientation)
        return file
    }

    /// Adds generated images with the given creation dates; returns their local identifiers in order.
    @discardableResult
    public func addImages(
        _ count: Int, startingAt start: Date = Date(timeIntervalSince1970: 1_700_000_000), step: TimeInterval = 60,
        configure: (Int, PHAssetChangeRequest) -> Void = { _, _ in }
    ) throws -> [String] {
        var files: [URL] = []
        for _ in 0..<count { files.append(try makeImage()) }
        var identifiers: [String] = []
        try library.performChangesAndWait {
            for (i, file) in files.enumerated() {
                let request = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)!
                request.creationDate = start.addingTimeInterval(Double(i) * step)
                configure(i, request)
                identifiers.append(request.placeholderForCreatedAsset!.localIdentifier)
            }
        }
        return identifiers
    }

    /// Removes the library and the scratch folder.
    public func remove() {
        provider.removeLibrary(at: url)
        try? FileManager.default.removeItem(at: scratch.deletingLastPathComponent())
    }
}
