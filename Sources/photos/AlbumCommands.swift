import ArgumentParser
import CommandLineSupport
import Foundation
import OpenPhotos

struct Albums: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List albums and folders (the user's tree), then smart albums.")
    @OptionGroup var global: GlobalOptions
    @Flag(help: "Also list smart albums.") var smart = false

    func run() throws {
        let library = try global.open()
        func tree(_ collections: PHFetchResult<PHCollection>) -> [[String: Any]] {
            collections.map { collection in
                var object = Output.collection(collection)
                if let list = collection as? PHCollectionList {
                    object["collections"] = tree(PHCollection.fetchCollections(in: list, options: nil))
                }
                return object
            }
        }
        let top = try checked(PHCollection.fetchTopLevelUserCollections(with: global.options(library)))
        let smartAlbums = PHAssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .any, options: global.options(library))
        if global.json {
            var object: [String: Any] = ["userCollections": tree(top)]
            if smart { object["smartAlbums"] = smartAlbums.map { Output.collection($0) } }
            Output.printJSON(object)
            return
        }
        func printTree(_ collections: PHFetchResult<PHCollection>, depth: Int) {
            for collection in collections {
                print(Output.collectionLine(collection, depth: depth))
                if let list = collection as? PHCollectionList {
                    printTree(PHCollection.fetchCollections(in: list, options: nil), depth: depth + 1)
                }
            }
        }
        printTree(top, depth: 0)
        if top.count == 0 { print("(no albums)") }
        if smart {
            print("Smart albums:")
            for album in smartAlbums { print(Output.collectionLine(album, depth: 1)) }
        }
    }
}

struct Album: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, rename, fill and delete albums.",
        subcommands: [Create.self, Rename.self, AddAssets.self, RemoveAssets.self, DeleteAlbums.self])

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an album, optionally with assets.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The title.") var title: String
        @Argument(help: "Assets to add.") var assets: [String] = []

        func run() throws {
            let library = try global.open()
            let members = try assets.map { try resolveAsset($0, in: library, global: global) }
            var identifier = ""
            try perform(library) {
                let request = PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: title)
                if !members.isEmpty { request.addAssets(members) }
                identifier = request.placeholderForCreatedAssetCollection.localIdentifier
            }
            try report(identifier, library)
        }

        func report(_ identifier: String, _ library: PHPhotoLibrary) throws {
            let album = try resolveCollection(identifier, in: library, global: global)
            if global.json { Output.printJSON(Output.collection(album)) } else { print(Output.collectionLine(album)) }
        }
    }

    struct Rename: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename an album or folder.")
        @OptionGroup var global: GlobalOptions
        @Argument var id: String
        @Argument var title: String

        func run() throws {
            let library = try global.open()
            let collection = try resolveCollection(id, in: library, global: global)
            try perform(library) {
                if let album = collection as? PHAssetCollection {
                    PHAssetCollectionChangeRequest(for: album)?.title = title
                } else if let folder = collection as? PHCollectionList {
                    PHCollectionListChangeRequest(for: folder)?.title = title
                }
            }
            let renamed = try resolveCollection(collection.localIdentifier, in: library, global: global)
            if global.json { Output.printJSON(Output.collection(renamed)) } else { print(Output.collectionLine(renamed)) }
        }
    }

    struct AddAssets: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add assets to an album.")
        @OptionGroup var global: GlobalOptions
        @Argument var id: String
        @Argument var assets: [String]

        func run() throws {
            try editAlbum(id, assets, global) { request, members in request.addAssets(members) }
        }
    }

    struct RemoveAssets: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove assets from an album.")
        @OptionGroup var global: GlobalOptions
        @Argument var id: String
        @Argument var assets: [String]

        func run() throws {
            try editAlbum(id, assets, global) { request, members in request.removeAssets(members) }
        }
    }

    /// Resolves an album and assets, applies one membership edit, prints the album.
    private static func editAlbum(
        _ id: String, _ assets: [String], _ global: GlobalOptions, _ edit: @escaping (PHAssetCollectionChangeRequest, [PHAsset]) -> Void
    ) throws {
        let library = try global.open()
        guard let album = try resolveCollection(id, in: library, global: global) as? PHAssetCollection else {
            throw CLIError("'\(id)' is a folder, not an album")
        }
        let members = try assets.map { try resolveAsset($0, in: library, global: global) }
        try perform(library) {
            if let request = PHAssetCollectionChangeRequest(for: album) { edit(request, members) }
        }
        let updated = try resolveCollection(album.localIdentifier, in: library, global: global)
        if global.json { Output.printJSON(Output.collection(updated)) } else { print(Output.collectionLine(updated)) }
    }

    struct DeleteAlbums: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete albums (their assets stay).")
        @OptionGroup var global: GlobalOptions
        @Argument var ids: [String]

        func run() throws {
            let library = try global.open()
            let albums = try ids.map { id -> PHAssetCollection in
                guard let album = try resolveCollection(id, in: library, global: global) as? PHAssetCollection else {
                    throw CLIError("'\(id)' is a folder, not an album")
                }
                return album
            }
            try perform(library) { PHAssetCollectionChangeRequest.deleteAssetCollections(albums) }
            if global.json {
                Output.printJSON(["deleted": albums.map(\.localIdentifier)])
            } else {
                for album in albums { print("deleted \(album.localIdentifier)") }
            }
        }
    }
}

struct Folder: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create folders, put albums and folders in them, delete them.",
        subcommands: [Create.self, AddChildren.self, DeleteFolders.self])

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a folder.")
        @OptionGroup var global: GlobalOptions
        @Argument var title: String

        func run() throws {
            let library = try global.open()
            var identifier = ""
            try perform(library) {
                identifier =
                    PHCollectionListChangeRequest.creationRequestForCollectionList(withTitle: title)
                    .placeholderForCreatedCollectionList.localIdentifier
            }
            let folder = try resolveCollection(identifier, in: library, global: global)
            if global.json { Output.printJSON(Output.collection(folder)) } else { print(Output.collectionLine(folder)) }
        }
    }

    struct AddChildren: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Move albums or folders into a folder.")
        @OptionGroup var global: GlobalOptions
        @Argument var folder: String
        @Argument var children: [String]

        func run() throws {
            let library = try global.open()
            guard let list = try resolveCollection(folder, in: library, global: global) as? PHCollectionList else {
                throw CLIError("'\(folder)' is an album, not a folder")
            }
            let items = try children.map { try resolveCollection($0, in: library, global: global) }
            try perform(library) { PHCollectionListChangeRequest(for: list)?.addChildCollections(items) }
            let contents = PHCollection.fetchCollections(in: list, options: nil)
            if global.json {
                Output.printJSON(contents.map { Output.collection($0) })
            } else {
                print(Output.collectionLine(list))
                for child in contents { print(Output.collectionLine(child, depth: 1)) }
            }
        }
    }

    struct DeleteFolders: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete", abstract: "Delete folders with everything in them (assets stay in the library).")
        @OptionGroup var global: GlobalOptions
        @Argument var ids: [String]

        func run() throws {
            let library = try global.open()
            let folders = try ids.map { id -> PHCollectionList in
                guard let folder = try resolveCollection(id, in: library, global: global) as? PHCollectionList else {
                    throw CLIError("'\(id)' is an album, not a folder")
                }
                return folder
            }
            try perform(library) { PHCollectionListChangeRequest.deleteCollectionLists(folders) }
            if global.json {
                Output.printJSON(["deleted": folders.map(\.localIdentifier)])
            } else {
                for folder in folders { print("deleted \(folder.localIdentifier)") }
            }
        }
    }
}

struct MomentsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "moments", abstract: "List moments (assets by local day and place).")
    @OptionGroup var global: GlobalOptions

    func run() throws {
        let library = try global.open()
        // `.moment` is deprecated in PhotoKit's API; its raw value reaches the same fetch without a warning.
        let momentType = PHAssetCollectionType(rawValue: 3)!
        let moments = PHAssetCollection.fetchAssetCollections(with: momentType, subtype: .any, options: global.options(library))
        if global.json {
            Output.printJSON(moments.map { Output.collection($0) })
            return
        }
        for moment in moments {
            let start = Output.isoDate(moment.startDate) as? String ?? "-"
            let place = moment.approximateLocation.map { String(format: " near %.2f,%.2f", $0.coordinate.latitude, $0.coordinate.longitude) } ?? ""
            print("\(moment.localIdentifier)  \(start)  \(moment.estimatedAssetCount) assets\(place)")
        }
    }
}
