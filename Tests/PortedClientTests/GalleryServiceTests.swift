import Foundation
@testable import PortedClient
import Photos
import PhotosTestHarness
import PhotosTesting
import Testing
import UniformTypeIdentifiers

/// The iOS-style client above, run against a real library: the shared library (`$PHOTOS_LIBRARY`, set here before
/// anything in this process asks for it, as an app's environment would) — a folder, or in a child process of this
/// suite a library `photos serve` serves (`PHOTOS_LIBRARY=http://…`, `PHOTOS_TOKEN`), as an app on another machine.
@Suite("A ported client", .serialized)
struct GalleryServiceTests {
    /// Set in the child process that runs the client against a served library: the library's URL.
    static let servedVariable = "OPENPHOTOKIT_PORTED_SERVED_LIBRARY"

    /// The shared library of this test process.
    static let sharedLibraryURL: URL = {
        if let served = ProcessInfo.processInfo.environment[servedVariable], let url = URL(string: served) {
            setenv("PHOTOS_LIBRARY", served, 1)
            return url
        }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("OpenPhotoKit-ported-\(UUID().uuidString)")
        let url = root.appendingPathComponent("Shared.photoslibrary")
        setenv("PHOTOS_LIBRARY", url.path, 1)
        return url
    }()

    /// The same client, unchanged, in a child process whose shared library is a served one: what it saved is on
    /// the server.
    @Test func theServiceWorksAgainstAServedLibrary() throws {
        guard ProcessInfo.processInfo.environment[Self.servedVariable] == nil else { return }  // the child itself
        let library = try TestLibrary(name: "PortedServed", provider: ServedLibraryProvider())
        defer { library.remove() }
        let token = try library.owner.createAccessToken(for: ServedLibraryProvider.testClient).secret
        var environment = ProcessInfo.processInfo.environment
        environment[Self.servedVariable] = library.url.absoluteString
        environment["PHOTOS_TOKEN"] = token
        environment["PHOTOS_CLIENT_ID"] = nil
        let log = library.scratch.appendingPathComponent("child.log")
        let child = try ChildProcess(
            URL(fileURLWithPath: CommandLine.arguments[0]),
            ["--testing-library", "swift-testing", "--filter", "GalleryServiceTests/theServiceWorksAsOnIOS"], environment: environment,
            standardError: log
        ).wait(samplingMemory: false)
        let output = String(decoding: child.standardOutput + ((try? Data(contentsOf: log)) ?? Data()), as: UTF8.self)
        #expect(child.status == 0, "\(output.suffix(4000))")
        #expect(output.contains("theServiceWorksAsOnIOS()") && output.contains("passed"), "\(output.suffix(4000))")
        // What the client saved, as the server's owner sees it.
        let albums = PHAssetCollection.fetchAssetCollections(with: .album, subtype: .any, options: library.ownerOptions())
        #expect(albums.map(\.localizedTitle) == ["Trip"])
        let favorites = PHAsset.fetchAssets(with: library.ownerOptions { $0.predicate = NSPredicate(format: "favorite == YES") })
        #expect(favorites.count == 1)
    }

    @Test func theServiceWorksAsOnIOS() async throws {
        let url = Self.sharedLibraryURL
        try #require(
            PHPhotoLibrary.shared().libraryURL.standardizedFileURL == url.standardizedFileURL, "another test opened the shared library first")
        let service = GalleryService()
        let media = try TestMedia.temporaryDirectory("ported-media")
        defer { try? FileManager.default.removeItem(at: media) }
        let photo = media.appendingPathComponent("IMG_0001.JPG")
        try TestMedia.writeImage(to: photo, width: 40, height: 30)

        let identifier = try #require(try await service.save(photoAt: photo, intoAlbumTitled: "Trip"))
        let saved = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [identifier], options: nil).firstObject)
        try await PHPhotoLibrary.shared().performChanges { PHAssetChangeRequest(for: saved).isFavorite = true }

        let favorites = service.favoritePhotos(after: Date(timeIntervalSince1970: 0))
        #expect(favorites.map(\.localIdentifier).contains(identifier))
        let resource = try #require(PHAssetResource.assetResources(for: saved).first)
        #expect(service.originalFileSize(of: saved) == Int64(try Data(contentsOf: photo).count))
        #expect(service.exportName(for: resource) == "IMG_0001.jpeg")
        #expect(!service.isMovie(resource))
        #expect(service.fileExtension(forMIMEType: "video/quicktime") == "mov")
        let exported = media.appendingPathComponent("exported.jpg")
        try await service.export(resource, to: exported)
        #expect(try Data(contentsOf: exported) == Data(contentsOf: photo))
        #expect(service.firstAsset(of: PHAsset.fetchAssets(withLocalIdentifiers: [identifier], options: nil))?.localIdentifier == identifier)
        let albums = PHAssetCollection.fetchAssetCollections(with: .album, subtype: .any, options: nil)
        #expect(albums.firstObject?.localizedTitle == "Trip")
        if url.isFileURL { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    }
}

@Suite("Pre-iOS 14 type functions")
struct LegacyTypesTests {
    @Test func coreServicesFunctionsAnswerAsUTTypeDoes() {
        #expect(LegacyTypes.fileExtension(forUTI: "public.jpeg") == "jpeg")
        #expect(LegacyTypes.fileExtension(forUTI: kUTTypeQuickTimeMovie as String) == "mov")
        #expect(LegacyTypes.fileExtension(forUTI: "com.example.unknown") == nil)
        #expect(LegacyTypes.mimeType(forExtension: "HEIC") == "image/heic")
        #expect(LegacyTypes.mimeType(forExtension: "zzz") == "application/octet-stream")
        #expect(LegacyTypes.isImage("public.png") && !LegacyTypes.isImage("public.mpeg-4"))
        #expect(LegacyTypes.isLivePhoto("COM.APPLE.LIVE-PHOTO"))
        let dynamic = UTTypeCreatePreferredIdentifierForTag(kUTTagClassFilenameExtension, "zzz", kUTTypeData)?.takeRetainedValue()
        #expect(dynamic.map(UTTypeIsDynamic) == true && dynamic.map(UTTypeIsDeclared) == false)
        #expect(UTTypeCopyAllTagsWithClass(kUTTypeJPEG, kUTTagClassFilenameExtension)?.takeRetainedValue() == ["jpeg", "jpg", "jpe"])
        #expect(UTTypeCopyDescription(kUTTypePNG)?.takeRetainedValue() == "PNG image")
    }
}
