import ArgumentParser
import CommandLineSupport
import Foundation
import Logging
import OpenPhotos

@main
struct Photos: ParsableCommand {
    /// The version of OpenPhotoKit this command is built from.
    static let version = "0.11.0"

    static let configuration = CommandConfiguration(
        commandName: "photos",
        abstract: "Manage an OpenPhotoKit photo library (a .photoslibrary folder).",
        discussion: """
            The library is --library PATH, else $PHOTOS_LIBRARY, else ~/Pictures/Photos Library.photoslibrary; a
            postgres:// URL names a library on a database server, an https:// URL one that photos serve serves (its
            token in $PHOTOS_TOKEN or a 0600 file named by $PHOTOS_TOKEN_FILE; what it does not serve yet fails).
            Every command takes --json (field names are PhotoKit's property names) and --verbose (warnings of the
            library and its decoders); these and --library may come before or after the command.
            Exit status: 0 done; 1 failed; 2 partly done (import: some files could not be imported); 64 usage;
            130 interrupted (Ctrl-C; what was committed stays, the library is consistent).
            Shell completion: photos --generate-completion-script bash|zsh|fish.
            """,
        version: version,
        subcommands: [
            Add.self, List.self, Show.self, Favorite.self, Describe.self, Hide.self, Delete.self, Recover.self, EmptyTrash.self,
            Albums.self, Album.self, Folder.self, MomentsCommand.self, Verify.self, Grant.self, Watch.self, Changes.self, Inspect.self, Import.self,
            Thumbnail.self, Export.self, Edit.self, Revert.self, Extensions.self, Serve.self, Worker.self, Token.self, LibraryCommand.self,
            Uploads.self,
            Demo.self,
        ]
    )
}

extension Photos {
    /// Options every command takes, wherever they are written: `photos --library L ls` works as `photos ls --library L`.
    static let globalOptionsWithValue: Set<String> = ["--library", "--cache-size"]
    static let globalFlags: Set<String> = ["--json", "--verbose"]

    /// Moves the global options written before the command's name to after it, where the command reads them.
    static func arrangingGlobalOptions(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let name = String(argument.prefix { $0 != "=" })
            if globalFlags.contains(argument) || (globalOptionsWithValue.contains(name) && argument.contains("=")) {
                leading.append(argument)
                index += 1
            } else if globalOptionsWithValue.contains(argument), index + 1 < arguments.count {
                leading += [argument, arguments[index + 1]]
                index += 2
            } else {
                break
            }
        }
        let rest = Array(arguments[index...])
        // `photos --json` alone, or before --help/--version: leave it to the parser.
        guard let first = rest.first, !first.hasPrefix("-") else { return arguments }
        return rest + leading
    }

    static func main() {
        let arguments = arrangingGlobalOptions(Array(CommandLine.arguments.dropFirst()))
        // Library and decoder warnings go through swift-log to standard error, shown with --verbose only.
        let verbose = arguments.contains("--verbose")
        LoggingSystem.bootstrap { label in
            var handler = StandardErrorLogHandler(label: label)
            handler.logLevel = verbose ? .info : .critical
            return handler
        }
        Interruption.install()
        main(arguments)
    }
}

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "The library folder (default: $PHOTOS_LIBRARY, else ~/Pictures/Photos Library.photoslibrary).")
    var library: String?

    @Flag(name: .long, help: "Print JSON (PhotoKit property names, ISO-8601 dates).")
    var json = false

    @Flag(name: .long, help: "Show the warnings of the library and of its decoders (libvips, GLib, libheif) on standard error.")
    var verbose = false

    @Option(
        name: .customLong("cache-size"),
        help: "For a library whose files are in object storage: the most bytes of originals this host keeps (512M, 20G).")
    var cacheSize: String?

    var libraryURL: URL {
        let url = library.map(PHPhotoLibrary.libraryURL) ?? PHPhotoLibrary.defaultLibraryURL
        guard let cacheSize else { return url }
        // The address's own `cache_size=`, as the library reads it (a folder's path becomes its file: address).
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false) ?? URLComponents()
        var items = (components.queryItems ?? []).filter { $0.name != "cache_size" }
        items.append(URLQueryItem(name: "cache_size", value: cacheSize))
        components.queryItems = items
        return components.url ?? url
    }

    func validate() throws {
        if let cacheSize, cacheSize.isEmpty || !cacheSize.allSatisfy({ $0.isNumber || "KMGTkmgt".contains($0) }) {
            throw ValidationError("--cache-size is a size such as 512M or 20G")
        }
        // Another user sees a process's arguments (ps, /proc): a password never goes there.
        if let library, library.contains("://"), URLComponents(string: library)?.password != nil {
            throw ValidationError("--library must not hold a password (others can read a command line): set PGPASSWORD or use ~/.pgpass")
        }
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
    // Every asset in Recently Deleted can be named: hidden ones and every frame of a burst too.
    return PHAsset.fetchAssets(
        in: trash,
        options: global.options(library) {
            $0.includeHiddenAssets = true
            $0.includeAllBurstAssets = true
        })
}

/// Finds a user album or folder by identifier, identifier prefix or exact title.
func resolveCollection(_ id: String, in library: PHPhotoLibrary, global: GlobalOptions) throws -> PHCollection {
    var all: [PHCollection] = try checked(PHAssetCollection.fetchAssetCollections(with: .album, subtype: .any, options: global.options(library))).map
    { $0 }
    all += PHCollectionList.fetchCollectionLists(with: .folder, subtype: .any, options: global.options(library)).map { $0 as PHCollection }
    if let exact = all.first(where: { $0.localIdentifier == id }) { return exact }
    let matches = all.filter { $0.localIdentifier.lowercased().hasPrefix(id.lowercased()) || $0.localizedTitle == id }
    if matches.count == 1 { return matches[0] }
    throw CLIError(matches.isEmpty ? "no album or folder '\(id)'" : "'\(id)' matches several albums or folders; use the identifier")
}
