import Foundation
import HTTPTypes
import Logging
import OpenPhotos
@testable import PhotosServer
import PhotosTesting
import Testing

/// Movies browsers cannot play (an iPhone's HEVC, PCM sound) get a web rendering from the background worker, and
/// `/v1/assets/{id}/video` answers with it; a movie browsers play is answered as it is, and gets no rendering.
@Suite("Web videos")
struct WebVideoTests {
    /// The embedded store, and object storage where the test command started it (the rendering then lives in the
    /// store, and a node reads it by ranges).
    static var providers: [any LibraryProvider] {
        LibraryProviders.all.filter { $0 is LocalLibraryProvider || $0 is ObjectStorageLibraryProvider }
    }

    @Test(arguments: providers) func aWorkerRendersMoviesBrowsersCannotPlayAndTheServerPlaysThem(_ provider: any LibraryProvider) async throws {
        let fixture = try ServerFixture(name: "WebVideo", provider: provider)
        defer { fixture.library.remove() }
        let scratch = fixture.library.scratch
        // A 1-second H.264 movie with AAC sound, and a 2-second 1920x1080 HEVC one with PCM sound (an iPhone's).
        let playable = scratch.appendingPathComponent("playable.mp4")
        try TestMedia.writeMovie(to: playable, width: 640, height: 360, seconds: 1, audio: true, audioCodec: "aac")
        let hevc = scratch.appendingPathComponent("IMG_0001.MOV")
        try TestMedia.writeHEVCMovie(to: hevc, width: 1920, height: 1080, seconds: 2)
        var created: [String] = []
        try fixture.library.library.performChangesAndWait {
            for file in [hevc, playable] {
                created.append(PHAssetChangeRequest.creationRequestForAssetFromVideo(atFileURL: file)!.placeholderForCreatedAsset!.localIdentifier)
            }
        }
        let ids = created
        let worker = try RenderingWorker(libraryURL: fixture.library.url, identity: "test-worker", logger: Logger(label: "test"))
        let report = try await blockingOffThePool { try worker.drain() }
        // Each movie's web video; where files are in object storage, each asset's renderings (thumbnails) too.
        let items = provider is ObjectStorageLibraryProvider ? 4 : 2
        #expect(report == RenderingWorker.Report(done: items, failed: 0, moot: 0))

        // Made once: the same item done again finds it.
        let options = fixture.library.options { $0.includeAllBurstAssets = true }
        let assets = PHAsset.fetchAssets(withLocalIdentifiers: ids, options: options)
        let byID = Dictionary(uniqueKeysWithValues: (0..<assets.count).map { (assets.object(at: $0).localIdentifier, assets.object(at: $0)) })
        let hevcAsset = try #require(byID[ids[0]])
        let playableAsset = try #require(byID[ids[1]])
        let hevcVideo = try #require(LibraryWebVideo(hevcAsset))
        #expect(try hevcVideo.make() == .alreadyStored)
        let rendering = try #require(hevcVideo.rendering)
        #expect((rendering.fileURL == nil) == (provider is ObjectStorageLibraryProvider), "a node reads a rendering in the store by ranges")
        #expect(try #require(LibraryWebVideo(playableAsset)).make() == .notNeeded)

        let token = try fixture.token("phone", .authorized)
        let received = try TestMedia.temporaryDirectory("WebVideo")
        defer { try? FileManager.default.removeItem(at: received) }
        try await fixture.test { client in
            // The HEVC movie: its rendering, H.264 and AAC within 1280x720, by ranges too.
            let web = try await client.call("/v1/assets/\(urlID(ids[0]))/video", token: token)
            #expect(web.status == .ok && web.headers[.contentType] == "video/mp4" && web.headers[.cacheControl] == "private, no-cache")
            #expect(web.bytes.count == rendering.size)
            let file = received.appendingPathComponent("web.mp4")
            try Data(web.bytes).write(to: file)
            let streams = try TestMedia.probeStreams(file)
            let video = try #require(streams.first { $0.codec_type == "video" })
            #expect(video.codec_name == "h264" && video.pix_fmt == "yuv420p" && video.width == 1280 && video.height == 720)
            #expect(streams.first { $0.codec_type == "audio" }?.codec_name == "aac")
            let etag = try #require(web.headers[.eTag])
            let range = try await client.call("/v1/assets/\(urlID(ids[0]))/video", token: token, headers: [.range: "bytes=100-199", .ifRange: etag])
            #expect(range.status == .partialContent && range.bytes == Array(web.bytes[100..<200]))
            #expect(range.headers[.contentRange] == "bytes 100-199/\(web.bytes.count)")
            let again = try await client.call("/v1/assets/\(urlID(ids[0]))/video", token: token, headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified)

            // The H.264 movie: itself, as its resource is.
            let original = try await client.call("/v1/assets/\(urlID(ids[1]))/video", token: token)
            let resource = try await client.call("/v1/assets/\(urlID(ids[1]))/resources/video", token: token)
            let playableBytes = [UInt8](try Data(contentsOf: playable))
            #expect(original.status == .ok && original.bytes == playableBytes)
            #expect(original.headers[.eTag] == resource.headers[.eTag] && original.headers[.contentType] == "video/mp4")

            // A photo has no movie.
            let photo = try fixture.library.makeImage(width: 32, height: 24)
            var photoID: String?
            try fixture.library.library.performChangesAndWait {
                photoID = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: photo)?.placeholderForCreatedAsset?.localIdentifier
            }
            let photoURLID = urlID(try #require(photoID))
            let none = try await client.call("/v1/assets/\(photoURLID)/video", token: token)
            #expect(none.status.code == 422, "\(none.status)")
        }
    }

    /// A real iPhone Live Photo (../shared/media): its paired video is HEVC, turned a quarter by its display matrix; the
    /// rendering is H.264 within 1280 × 720, every frame kept, the same turn.
    @Test(.enabled(if: TestMedia.sharedMediaFolder != nil)) func anIPhoneLivePhotosVideoGetsAWebRendering() async throws {
        let folder = try #require(TestMedia.sharedMediaFolder).appendingPathComponent("livephoto")
        let library = try TestLibrary(name: "LiveWebVideo")
        defer { library.remove() }
        let report = try library.library.importItems(at: [
            folder.appendingPathComponent("IMG_4394.HEIC"), folder.appendingPathComponent("IMG_4394.mov"),
        ])
        #expect(report.livePhotosPaired == 1)
        let worker = try RenderingWorker(libraryURL: library.url, identity: "test-worker", logger: Logger(label: "test"))
        #expect(try await blockingOffThePool { try worker.drain() } == RenderingWorker.Report(done: 1, failed: 0, moot: 0))
        let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: report.importedLocalIdentifiers, options: library.options()).firstObject)
        let rendering = try #require(LibraryWebVideo(asset)?.rendering?.fileURL)
        let streams = try TestMedia.probeStreams(rendering, countFrames: true)
        let video = try #require(streams.first { $0.codec_type == "video" })
        #expect(video.codec_name == "h264" && video.width == 960 && video.height == 720 && video.nb_read_frames == "53", "\(video)")
        #expect(video.rotation == -90)
    }

    /// A movie moved to Recently Deleted before the worker came to it still gets its rendering (restored, it plays).
    @Test func aTrashedMovieIsRenderedToo() async throws {
        let library = try TestLibrary(name: "TrashedWebVideo")
        defer { library.remove() }
        let movie = library.scratch.appendingPathComponent("IMG_0003.MOV")
        try TestMedia.writeHEVCMovie(to: movie, width: 320, height: 240, seconds: 1)
        var created: String?
        try library.library.performChangesAndWait {
            created = PHAssetChangeRequest.creationRequestForAssetFromVideo(atFileURL: movie)?.placeholderForCreatedAsset?.localIdentifier
        }
        let id = try #require(created)
        let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [id], options: library.options()).firstObject)
        try library.library.performChangesAndWait { PHAssetChangeRequest.deleteAssets([asset] as NSArray) }
        #expect(PHAsset.fetchAssets(withLocalIdentifiers: [id], options: library.options()).count == 0)
        let worker = try RenderingWorker(libraryURL: library.url, identity: "test-worker", logger: Logger(label: "test"))
        #expect(try await blockingOffThePool { try worker.drain() } == RenderingWorker.Report(done: 1, failed: 0, moot: 0))
        let album = library.options()
        let trashed = try #require(RecentlyDeleted.asset(id, options: library.options(), albumOptions: album))
        #expect(LibraryWebVideo(trashed)?.rendering != nil)
    }
}
