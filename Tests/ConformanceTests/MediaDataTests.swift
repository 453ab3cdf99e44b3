import Foundation
import Photos
import PhotosTesting
import Testing

/// A photo's bytes (`requestImageDataAndOrientation`), a video's movie (`requestAVAsset`, `requestPlayerItem`) and a
/// Live Photo (`requestLivePhoto`) asked for as apps of an iCloud library ask — with network access allowed — are the
/// stored files, on every kind of library.
@Suite("Image data and videos")
struct MediaDataTests {
    @Test(arguments: LibraryProviders.conformance)
    func imageDataAndVideosAreTheStoredFiles(_ provider: any LibraryProvider) async throws {
        let library = try TestLibrary(name: "MediaData", provider: provider)
        defer { library.remove() }
        let photo = try library.makeImage("IMG_0007.JPG", width: 60, height: 40, orientation: 6)
        let movie = library.scratch.appendingPathComponent("IMG_0008.MOV")
        try TestMedia.writeMovie(to: movie, width: 64, height: 48, seconds: 1)
        var ids: [String] = []
        try library.library.performChangesAndWait {
            ids.append(PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: photo)!.placeholderForCreatedAsset!.localIdentifier)
            ids.append(PHAssetChangeRequest.creationRequestForAssetFromVideo(atFileURL: movie)!.placeholderForCreatedAsset!.localIdentifier)
        }
        let assets = PHAsset.fetchAssets(withLocalIdentifiers: ids, options: library.options())
        let still = try #require(assets.objects(at: IndexSet(0..<assets.count)).first { $0.mediaType == .image })
        let video = try #require(assets.objects(at: IndexSet(0..<assets.count)).first { $0.mediaType == .video })

        let options = PHImageRequestOptions()
        options.isNetworkAccessAllowed = true
        options.isSynchronous = true
        nonisolated(unsafe) var answer: (Data?, String?, CGImagePropertyOrientation)?
        PHImageManager.default().requestImageDataAndOrientation(for: still, options: options) { data, type, orientation, _ in
            answer = (data, type, orientation)
        }
        #expect(answer?.0 == (try Data(contentsOf: photo)))
        #expect(answer?.1 == "public.jpeg")
        #expect(answer?.2 == .right)

        let videoOptions = PHVideoRequestOptions()
        videoOptions.isNetworkAccessAllowed = true
        let movieAsset: AVAsset? = await withCheckedContinuation { continuation in
            PHImageManager.default().requestAVAsset(forVideo: video, options: videoOptions) { asset, _, _ in
                continuation.resume(returning: asset)
            }
        }
        let url = try #require((movieAsset as? AVURLAsset)?.url)
        #expect(try Data(contentsOf: url) == Data(contentsOf: movie))
        #expect(abs((movieAsset?.duration.seconds ?? 0) - 1) < 0.2)
        let item: AVPlayerItem? = await withCheckedContinuation { continuation in
            PHImageManager.default().requestPlayerItem(forVideo: video, options: videoOptions) { item, _ in
                continuation.resume(returning: item)
            }
        }
        #expect(item != nil)

        // A Live Photo: its still and its video, the complete one last.
        let live = library.scratch.appendingPathComponent("live.mov")
        try TestMedia.writeMovie(to: live, width: 64, height: 48, seconds: 1)
        let liveStill = try library.makeImage(width: 64, height: 48)
        var liveID = ""
        try library.library.performChangesAndWait {
            let request = PHAssetCreationRequest.forAsset()
            request.addResource(with: .photo, fileURL: liveStill, options: nil)
            request.addResource(with: .pairedVideo, fileURL: live, options: nil)
            liveID = request.placeholderForCreatedAsset!.localIdentifier
        }
        let liveAsset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [liveID], options: library.options()).firstObject)
        let liveOptions = PHLivePhotoRequestOptions()
        liveOptions.isNetworkAccessAllowed = true
        liveOptions.deliveryMode = .highQualityFormat
        let livePhoto: PHLivePhoto? = await withCheckedContinuation { continuation in
            PHImageManager.default().requestLivePhoto(
                for: liveAsset, targetSize: CGSize(width: 64, height: 48), contentMode: .aspectFit, options: liveOptions
            ) { photo, info in
                guard (info?[PHImageResultIsDegradedKey] as? Bool) != true else { return }
                continuation.resume(returning: photo)
            }
        }
        #expect(livePhoto?.size == CGSize(width: 64, height: 48))
    }
}
