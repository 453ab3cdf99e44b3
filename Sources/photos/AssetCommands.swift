import BuiltInEditor
import ArgumentParser
import CommandLineSupport
import Foundation
import OpenPhotos

struct Add: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Add photos and videos (one asset per file, all or nothing).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Image or video files.") var files: [String]

    func run() throws {
        if let problem = files.lazy.compactMap(undecodableArgument).first { throw CLIError(problem) }
        let library = try global.open()
        var identifiers: [String] = []
        try perform(library) {
            for path in files {
                let url = URL(fileURLWithPath: path)
                let request = PHAssetCreationRequest.forAsset()
                let type: PHAssetResourceType = ["mov", "mp4", "m4v"].contains(url.pathExtension.lowercased()) ? .video : .photo
                request.addResource(with: type, fileURL: url, options: nil)
                identifiers.append(request.placeholderForCreatedAsset!.localIdentifier)
            }
        }
        let assets = try checked(PHAsset.fetchAssets(withLocalIdentifiers: identifiers, options: global.options(library)))
        // Read before anything is printed: an asset that could not be read back (the database went away after the
        // commit) is a placeholder without an identifier, never printed as a photo.
        let json = assets.map { Output.asset($0) }
        let lines = assets.map { Output.assetLine($0) }
        // (An add-only client reads back nothing, by design: only placeholders are an error.)
        if assets.map(\.localIdentifier).contains("") {
            throw CLIError(
                "the photos were added, but they could not be read back (is the database still reachable?): \(identifiers.joined(separator: " "))")
        }
        if global.json {
            Output.printJSON(json)
        } else {
            for line in lines { print(line) }
        }
    }
}

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls", abstract: "List assets (PHAsset.fetchAssets) with PhotoKit's predicates and sort keys.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var selection: AssetSelection
    @Option(help: "At most this many assets.") var limit: Int?

    func run() throws {
        let library = try global.open()
        let assets = try selection.fetch(library, global: global, limit: limit)
        if global.json {
            let objects = assets.map { Output.asset($0) }
            // A served library's result can fail after the fetch (the rest of it did not arrive): no partial JSON.
            _ = try checked(assets)
            Output.printJSON(objects)
        } else {
            for asset in assets { print(Output.assetLine(asset)) }
            _ = try checked(assets)
        }
    }
}

/// Which assets a command lists or watches: PhotoKit's fetch options, an album or a smart album.
struct AssetSelection: ParsableArguments {
    @Option(help: "An NSPredicate format string, e.g. \"mediaType == 1 AND favorite == NO\".") var predicate: String?
    @Option(help: "A sort key with an optional direction, e.g. creationDate:desc (repeatable).") var sort: [String] = []
    @Flag(help: "Include hidden assets.") var includeHidden = false
    @Flag(help: "Include every photo of bursts.") var includeAllBurstAssets = false
    @Option(help: "Only the assets of this album (identifier or title).") var album: String?
    @Option(help: "Only the assets of this smart album (e.g. favorites, videos, recently-deleted).") var smartAlbum: String?
    @Option(
        help: ArgumentHelp(
            "Only assets whose caption, keywords, file name or date match, e.g. \"beach 2019\".",
            discussion:
                "Each word must match a word (case and accents aside), the last one also the words it begins; 2019, 2019-07, 2019-07-14 and month names match the capture date."
        )) var search: String?

    /// Runs the fetch these options describe.
    func fetch(_ library: PHPhotoLibrary, global: GlobalOptions, limit: Int? = nil) throws -> PHFetchResult<PHAsset> {
        var parsedPredicate: NSPredicate?
        if let predicate {
            do { parsedPredicate = try NSPredicate(validatingFormat: predicate) } catch { throw CLIError("\(error)") }
        }
        let options = global.options(library) { options in
            options.predicate = parsedPredicate
            options.searchText = search
            // --json prints captions and keywords: loaded with each page, not asset by asset.
            options.prefetchAssetExtendedMetadata = true
            options.sortDescriptors = sort.map { spec in
                let parts = spec.split(separator: ":", maxSplits: 1).map(String.init)
                return NSSortDescriptor(key: parts[0], ascending: parts.count < 2 || parts[1].lowercased().hasPrefix("asc"))
            }
            options.fetchLimit = limit ?? 0
            options.includeHiddenAssets = includeHidden
            options.includeAllBurstAssets = includeAllBurstAssets
        }
        do { try options.validate(for: PHAsset.self) } catch { throw CLIError("\(error)") }
        if let album {
            guard let collection = try resolveCollection(album, in: library, global: global) as? PHAssetCollection else {
                throw CLIError("'\(album)' is a folder, not an album")
            }
            return try checked(PHAsset.fetchAssets(in: collection, options: options))
        }
        if let smartAlbum {
            let wanted = smartAlbum.lowercased().replacingOccurrences(of: "-", with: "").replacingOccurrences(of: " ", with: "")
            let all = try checked(PHAssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .any, options: global.options(library)))
            guard
                let collection = all.first(where: {
                    let subtype = "\($0.assetCollectionSubtype)".lowercased()
                    let title = ($0.localizedTitle ?? "").lowercased().replacingOccurrences(of: " ", with: "").replacingOccurrences(of: "-", with: "")
                    return subtype == wanted || subtype == "smartalbum" + wanted || title == wanted
                })
            else {
                throw CLIError("no smart album '\(smartAlbum)'; try: " + all.compactMap(\.localizedTitle).joined(separator: ", "))
            }
            return try checked(PHAsset.fetchAssets(in: collection, options: options))
        }
        return try checked(PHAsset.fetchAssets(with: options))
    }
}

struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show one asset with its resources, its versions and its adjustment (format, version, editor, time).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Local identifier (or a unique prefix).") var id: String

    func run() throws {
        let library = try global.open()
        let asset = try resolveAsset(id, in: library, global: global)
        let resources = PHAssetResource.assetResources(for: asset)
        let versions = Self.versions(resources)
        let adjustment = asset.hasAdjustments ? Self.adjustment(resources) : nil
        if global.json {
            var object = Output.asset(asset, resources: true)
            object["versions"] = versions.map { ["version": $0.name, "resourceType": "\($0.resource.type)", "sha256": $0.resource.sha256] }
            object["adjustment"] = adjustment ?? NSNull()
            object["adjustmentTimestamp"] = asset.adjustmentTimestamp.map { Output.isoDate($0) } ?? NSNull()
            Output.printJSON(object)
            return
        }
        print(Output.assetLine(asset))
        for resource in resources {
            print(
                "  \(resource.type)  \(resource.originalFilename)  \(resource.uniformTypeIdentifier)  \(resource.pixelWidth)x\(resource.pixelHeight)  \(resource.fileSize) bytes  sha256:\(resource.sha256)"
            )
        }
        for version in versions {
            print("  version \(version.name): \(version.resource.type) \(version.resource.pixelWidth)x\(version.resource.pixelHeight)")
        }
        if let adjustment {
            print(
                "  adjustment: \(adjustment["formatIdentifier"] ?? "?") \(adjustment["formatVersion"] ?? "?"), editor \(adjustment["editor"] as? String ?? "owner"), \(adjustment["timestamp"] ?? "?")"
            )
            if let recipe = adjustment["recipe"] as? [String] { print("  recipe: \(recipe.joined(separator: ", "))") }
        } else if let stamp = asset.adjustmentTimestamp {
            print("  reverted to the original at \(Output.isoDate(stamp))")
        }
        let albums = PHAssetCollection.fetchAssetCollectionsContaining(asset, with: .album, options: nil)
        for album in albums { print("  in album: \(album.localizedTitle ?? album.localIdentifier)") }
    }

    /// The asset's versions (spec §2): the original, the current rendering, and the previous version (the input of
    /// the last edit: its stored base, else the original).
    static func versions(_ resources: [PHAssetResource]) -> [(name: String, resource: PHAssetResource)] {
        guard let original = PHAssetResource.resource(among: resources, version: .unadjusted) else { return [] }
        guard let current = PHAssetResource.resource(among: resources, version: .current), current !== original else {
            return [("original", original), ("current", original)]
        }
        let previous = resources.first { $0.type == .adjustmentBasePhoto || $0.type == .adjustmentBaseVideo } ?? original
        return [("original", original), ("previous", previous), ("current", current)]
    }

    /// The adjustment as the library stores it (its `.adjustmentData` resource, Apple's Adjustments.plist keys); the
    /// built-in editor's recipe spelled out.
    static func adjustment(_ resources: [PHAssetResource]) -> [String: Any]? {
        guard let adjustment = resources.first(where: { $0.type == .adjustmentData })?.storedAdjustment else { return nil }
        var object: [String: Any] = [
            "formatIdentifier": adjustment.data.formatIdentifier, "formatVersion": adjustment.data.formatVersion,
            "editor": adjustment.editor ?? NSNull(), "timestamp": adjustment.timestamp.map { Output.isoDate($0) } ?? NSNull(),
            "dataSize": adjustment.data.data.count,
        ]
        if let recipe = PhotoEditRecipe(adjustmentData: adjustment.data) {
            object["recipe"] = recipe.steps.map { "\($0)" }
        }
        return object
    }
}

/// Sets a Boolean property of assets.
private func setFlag(_ ids: [String], _ global: GlobalOptions, _ apply: @escaping (PHAssetChangeRequest) -> Void) throws {
    let library = try global.open()
    let assets = try ids.map { try resolveAsset($0, in: library, global: global) }
    try perform(library) { for asset in assets { apply(PHAssetChangeRequest(for: asset)) } }
    let updated = PHAsset.fetchAssets(withLocalIdentifiers: assets.map(\.localIdentifier), options: global.options(library))
    if global.json {
        Output.printJSON(updated.map { Output.asset($0) })
    } else {
        for asset in updated { print(Output.assetLine(asset)) }
    }
}

struct Favorite: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Mark assets as favorites (or not, with --off).")
    @OptionGroup var global: GlobalOptions
    @Flag(help: "Remove the mark.") var off = false
    @Argument var ids: [String]
    func run() throws { try setFlag(ids, global) { [off] in $0.isFavorite = !off } }
}

struct Describe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rate, caption and keyword assets (PHAssetChangeRequest's rating, caption, addKeyword, removeKeyword).",
        discussion: """
            All of it in one change to every asset named. Keywords are added after those an asset has (one it has stays \
            where it is) and removed where it has them, so two people keywording the same photos keep each other's.
            """)
    @OptionGroup var global: GlobalOptions
    @Option(help: "Stars, 0 (unset) to 5.") var rating: Int?
    @Option(help: "The caption (an empty one removes it).") var caption: String?
    @Option(name: .customLong("add-keyword"), help: "A keyword to add (repeatable).") var add: [String] = []
    @Option(name: .customLong("remove-keyword"), help: "A keyword to remove (repeatable).") var remove: [String] = []
    @Option(help: "A Live Photo's video: on or off (off shows it as a still; its video is kept).") var liveVideo: String?
    @Argument(help: "Local identifiers (or unique prefixes).") var ids: [String]

    func validate() throws {
        if let rating, !(0...5).contains(rating) { throw ValidationError("--rating is 0 (unset) to 5") }
        if let liveVideo, !["on", "off"].contains(liveVideo) { throw ValidationError("--live-video is on or off") }
        if rating == nil, caption == nil, add.isEmpty, remove.isEmpty, liveVideo == nil {
            throw ValidationError("give --rating, --caption, --add-keyword, --remove-keyword or --live-video")
        }
    }

    func run() throws {
        let (rating, caption, add, remove, liveVideo) = (rating, caption, add, remove, liveVideo)
        try setFlag(ids, global) { request in
            if let rating { request.rating = PHAsset.Rating(rawValue: rating) ?? .unset }
            if let caption { request.caption = caption.isEmpty ? nil : caption }
            for keyword in add { request.addKeyword(keyword) }
            for keyword in remove { request.removeKeyword(keyword) }
            if let liveVideo { request.setLivePhotoVideoPlaybackEnabled(liveVideo == "on") }
        }
    }
}

struct Hide: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Hide assets (or show them again, with --off).")
    @OptionGroup var global: GlobalOptions
    @Flag(help: "Show the assets again.") var off = false
    @Argument var ids: [String]
    func run() throws { try setFlag(ids, global) { [off] in $0.isHidden = !off } }
}

struct Delete: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Move assets to Recently Deleted (assets already there are removed for good).")
    @OptionGroup var global: GlobalOptions
    @Argument var ids: [String]

    func run() throws {
        let library = try global.open()
        let assets = try ids.map { try resolveAsset($0, in: library, global: global) }
        try perform(library) { PHAssetChangeRequest.deleteAssets(assets) }
        if global.json {
            Output.printJSON(["deleted": assets.map(\.localIdentifier)])
        } else {
            for asset in assets { print("deleted \(asset.localIdentifier)") }
        }
    }
}

struct Recover: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Put assets back from Recently Deleted.")
    @OptionGroup var global: GlobalOptions
    @Argument var ids: [String]

    func run() throws {
        let library = try global.open()
        let assets = try ids.map { try resolveAsset($0, in: library, global: global) }
        try perform(library) { PHAssetChangeRequest.recoverAssets(assets) }
        if global.json {
            Output.printJSON(["recovered": assets.map(\.localIdentifier)])
        } else {
            for asset in assets { print("recovered \(asset.localIdentifier)") }
        }
    }
}

struct EmptyTrash: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Remove everything in Recently Deleted for good.",
        discussion: "Transactions of a few hundred assets; Ctrl-C stops between them (what was purged stays purged), exit 130.")
    @OptionGroup var global: GlobalOptions

    func run() throws {
        let library = try global.open()
        Interruption.cooperate()
        let bar = LazyProgress("empty-trash", unit: "assets", json: global.json)
        let count: Int
        do {
            count = try library.emptyTrash(progress: { bar.update($0, of: $1) }, isCancelled: { Interruption.requested })
        } catch { throw CLIError(describe(error)) }
        bar.finish()
        let interrupted = Interruption.requested
        if global.json {
            Output.printJSON(["purged": count, "interrupted": interrupted])
        } else {
            print("purged \(count) assets\(interrupted ? " (interrupted: the rest is still in Recently Deleted)" : "")")
        }
        if interrupted { throw ExitCode(Interruption.exitStatus) }
    }
}

struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check every stored file (present, size, SHA-256) and look for orphans; exits 1 on problems.",
        discussion: """
            Ctrl-C stops the check and reports what it found so far (exit 130).
            --remove-orphans first removes stored files no asset refers to that are older than --orphan-age hours (24): \
            what writers that died between storing a file and committing left, and unfinished uploads to object storage.
            """)
    @OptionGroup var global: GlobalOptions
    @Flag(help: "Remove orphaned files older than --orphan-age before the check.") var removeOrphans = false
    @Option(help: "How many hours old an orphaned file must be to be removed (younger ones may be a live writer's).")
    var orphanAge: Double = 24

    func run() throws {
        let library = try global.open()
        var removed: [String] = []
        if removeOrphans {
            guard orphanAge >= 0 else { throw CLIError("--orphan-age is a number of hours, 0 or more") }
            do { removed = try library.removeOrphanedFiles(olderThan: orphanAge * 3600) } catch { throw CLIError(describe(error)) }
            if !global.json {
                for name in removed { print(Output.printable("removed orphan: \(name)")) }
            }
        }
        Interruption.cooperate()
        let bar = LazyProgress("verify", unit: "files", json: global.json)
        let report: LibraryVerificationReport
        do {
            report = try library.verify(progress: { bar.update($0, of: $1) }, isCancelled: { Interruption.requested })
        } catch { throw CLIError(describe(error)) }
        bar.finish()
        if global.json {
            Output.printJSON([
                "checkedFiles": report.checkedFiles, "complete": report.isComplete,
                "problems": report.problems.map { ["kind": $0.kind, "path": $0.path, "detail": $0.detail] }, "removedOrphans": removed,
            ])
        } else {
            for problem in report.problems { print(Output.printable(problem.description)) }
            print(
                "\(report.checkedFiles) files checked, \(report.problems.count) problems"
                    + (report.isComplete ? "" : " (interrupted: the check is incomplete)"))
        }
        if !report.isComplete { throw ExitCode(Interruption.exitStatus) }
        if !report.isHealthy { throw ExitCode(1) }
    }
}
