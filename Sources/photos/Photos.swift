import ArgumentParser
import Foundation
import OpenPhotos

@main
struct Photos: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "photos",
        abstract: "Manage an OpenPhotoKit photo library (a .photoslibrary folder).",
        discussion: """
            The library is --library PATH, else $PHOTOS_LIBRARY, else ~/Pictures/Photos Library.photoslibrary.
            Every command takes --json; field names are PhotoKit's property names.
            """,
        subcommands: [
            Add.self, List.self, Show.self, Favorite.self, Hide.self, Delete.self, Recover.self, EmptyTrash.self,
            Albums.self, Album.self, Folder.self, MomentsCommand.self, Verify.self, Grant.self, Watch.self, Changes.self, Inspect.self, Import.self,
            Thumbnail.self, Export.self,
            Demo.self, Bench.self,
        ]
    )
}

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "The library folder (default: $PHOTOS_LIBRARY, else ~/Pictures/Photos Library.photoslibrary).")
    var library: String?

    @Flag(name: .long, help: "Print JSON (PhotoKit property names, ISO-8601 dates).")
    var json = false

    var libraryURL: URL {
        library.map { URL(fileURLWithPath: $0) } ?? PHPhotoLibrary.defaultLibraryURL
    }

    func open() throws -> PHPhotoLibrary {
        do {
            return try PHPhotoLibrary(url: libraryURL)
        } catch {
            throw CLIError(describe(error))
        }
    }

    /// Fetch options bound to this command's library.
    func options(_ library: PHPhotoLibrary, _ configure: (PHFetchOptions) -> Void = { _ in }) -> PHFetchOptions {
        let options = PHFetchOptions()
        options.photoLibrary = library
        configure(options)
        return options
    }
}

/// A one-line error: ArgumentParser prints "Error: <message>" and exits non-zero.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func describe(_ error: any Error) -> String {
    if let photos = error as? PHPhotosError { return "\(photos.localizedDescription) (PHPhotosError \(photos.code.rawValue))" }
    if let av = error as? AVError { return "\(av.errorDescription ?? "") (AVError \(av.code.rawValue))" }
    return "\(error)"
}

/// A fetch result, or the error that left it empty: the command must not print "nothing" for "could not read".
func checked<T>(_ result: PHFetchResult<T>) throws -> PHFetchResult<T> {
    if let error = result.fetchError { throw CLIError(describe(error)) }
    return result
}

/// Runs a change block, turning failures into one-line errors.
func perform(_ library: PHPhotoLibrary, _ block: () -> Void) throws {
    do { try library.performChangesAndWait(block) } catch { throw CLIError(describe(error)) }
}

// MARK: - Resolving identifiers

/// Finds an asset by local identifier or a unique prefix of it (hidden and deleted assets included).
func resolveAsset(_ id: String, in library: PHPhotoLibrary, global: GlobalOptions) throws -> PHAsset {
    let exact = try checked(PHAsset.fetchAssets(withLocalIdentifiers: [id], options: global.options(library)))
    if let asset = exact.firstObject { return asset }
    let candidates = PHAsset.fetchAssets(
        with: global.options(library) {
            $0.predicate = NSPredicate(format: "localIdentifier BEGINSWITH[c] %@", id)
            $0.includeHiddenAssets = true
            $0.includeAllBurstAssets = true
            $0.fetchLimit = 2
        })
    if candidates.count == 1 { return candidates[0] }
    if let trashed = trashedAssets(library, global).first(where: { $0.localIdentifier.lowercased().hasPrefix(id.lowercased()) }) {
        return trashed
    }
    throw CLIError(candidates.count > 1 ? "'\(id)' matches several assets; give more of the identifier" : "no asset '\(id)'")
}

func trashedAssets(_ library: PHPhotoLibrary, _ global: GlobalOptions) -> PHFetchResult<PHAsset> {
    guard
        let trash = PHAssetCollection.fetchAssetCollections(
            with: .smartAlbum, subtype: .smartAlbumRecentlyDeleted, options: global.options(library)
        ).firstObject
    else { return PHFetchResult() }
    return PHAsset.fetchAssets(in: trash, options: global.options(library))
}

/// Finds a user album or folder by identifier, identifier prefix or exact title.
func resolveCollection(_ id: String, in library: PHPhotoLibrary, global: GlobalOptions) throws -> PHCollection {
    var all: [PHCollection] = try checked(PHAssetCollection.fetchAssetCollections(with: .album, subtype: .any, options: global.options(library))).map { $0 }
    all += PHCollectionList.fetchCollectionLists(with: .folder, subtype: .any, options: global.options(library)).map { $0 as PHCollection }
    if let exact = all.first(where: { $0.localIdentifier == id }) { return exact }
    let matches = all.filter { $0.localIdentifier.lowercased().hasPrefix(id.lowercased()) || $0.localizedTitle == id }
    if matches.count == 1 { return matches[0] }
    throw CLIError(matches.isEmpty ? "no album or folder '\(id)'" : "'\(id)' matches several albums or folders; use the identifier")
}
