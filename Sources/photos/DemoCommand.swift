import ArgumentParser
import CommandLineSupport
import Foundation
import OpenPhotos
import SampleMedia

struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create a demo library from sample media, then list it and show its albums.",
        discussion: """
            Imports ../shared/media when present (PHPhotoLibrary.importItems: metadata, Live Photos paired, bad
            files reported and skipped); otherwise generates images and a movie. The library goes to --library (default ./demo/Demo.photoslibrary).
            """)
    @Option(help: "The library folder to create.") var library = "demo/Demo.photoslibrary"
    @Option(help: "A folder of sample media (default: ../shared/media when present).") var media: String?
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let url = URL(fileURLWithPath: library)
        if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
        let photoLibrary: PHPhotoLibrary
        do { photoLibrary = try PHPhotoLibrary(url: url, clientIdentifier: nil) } catch { throw CLIError(describe(error)) }
        let options = PHFetchOptions()
        options.photoLibrary = photoLibrary

        var files: [URL] = []
        if let folder = media.map({ URL(fileURLWithPath: $0) }) ?? SampleMedia.sharedMediaFolder {
            let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
            while let file = enumerator?.nextObject() as? URL {
                let ext = file.pathExtension.lowercased()
                if ["jpg", "jpeg", "png", "heic", "heif", "webp", "gif", "tif", "tiff", "mov", "mp4"].contains(ext) { files.append(file) }
            }
            files.sort { $0.path < $1.path }
        } else {
            let scratch = try SampleMedia.temporaryDirectory("OpenPhotoKit-demo")
            for (i, size) in [(4032, 3024), (3024, 4032), (1920, 1080), (800, 800)].enumerated() {
                let file = scratch.appendingPathComponent("generated-\(i + 1).jpg")
                try SampleMedia.writeImage(to: file, width: size.0, height: size.1)
                files.append(file)
            }
            let movie = scratch.appendingPathComponent("generated-clip.mp4")
            if (try? SampleMedia.writeMovie(to: movie, width: 640, height: 360, seconds: 2)) != nil { files.append(movie) }
        }

        // The import path: metadata, Live Photo pairs, duplicates and unreadable files reported, thumbnails warmed.
        let report: PHPhotoLibrary.ImportReport
        do { report = try photoLibrary.importItems(at: files) } catch { throw CLIError(describe(error)) }
        let added = report.importedLocalIdentifiers
        let failures = report.failures.map { ($0.file.lastPathComponent, $0.reason) }
        let assets = PHAsset.fetchAssets(withLocalIdentifiers: added, options: options)
        // Favourite every third asset, put the images in an album and the album in a folder.
        try perform(photoLibrary) {
            for (i, asset) in assets.enumerated() where i % 3 == 0 { PHAssetChangeRequest(for: asset).isFavorite = true }
            let album = PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Highlights")
            album.addAssets(assets.filter { $0.mediaType == .image }.prefix(6).map { $0 })
            let videos = PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Clips")
            videos.addAssets(assets.filter { $0.mediaType == .video })
            let folder = PHCollectionListChangeRequest.creationRequestForCollectionList(withTitle: "Demo")
            folder.addChildCollections([album.placeholderForCreatedAssetCollection])
        }

        let all = PHAsset.fetchAssets(with: options)
        if json {
            Output.printJSON([
                "library": url.path, "added": added.count,
                "failures": failures.map { ["file": $0.0, "reason": $0.1] },
                "assets": all.map { Output.asset($0) },
            ])
            return
        }
        print("Demo library: \(url.path)")
        print("Added \(added.count) assets from \(files.count) files (\(report.livePhotosPaired) Live Photos paired).")
        for (file, reason) in failures { print("  skipped \(file): \(reason)") }
        print("\n$ photos ls --library \(library)")
        for asset in all { print(Output.assetLine(asset)) }
        print("\n$ photos albums --library \(library)")
        func printTree(_ collections: PHFetchResult<PHCollection>, depth: Int) {
            for collection in collections {
                print(Output.collectionLine(collection, depth: depth))
                if let list = collection as? PHCollectionList {
                    printTree(PHCollection.fetchCollections(in: list, options: nil), depth: depth + 1)
                }
            }
        }
        printTree(PHCollection.fetchTopLevelUserCollections(with: options), depth: 0)
        let favorites = PHAssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumFavorites, options: options)
        if let favorites = favorites.firstObject {
            print("Smart album Favorites: \(PHAsset.fetchAssets(in: favorites, options: nil).count) assets")
        }
    }
}
