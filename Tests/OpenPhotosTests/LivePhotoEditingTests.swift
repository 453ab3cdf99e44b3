import OpenPhotos
import Foundation
import PhotosTesting
import Synchronization
import Testing

/// PHLivePhotoEditingContext as Apple documents it: one frame processor over the still and every video frame, a
/// scaled preview, a save into the output that keeps the pair one Live Photo.
@Suite("Live Photo editing")
struct LivePhotoEditingTests {
    /// A Live Photo: a still stored sideways (64 × 48, orientation 6) and a one-second 64 × 48 video with sound.
    static func livePhoto(_ library: TestLibrary) throws -> (PHAsset, still: Data, video: Data) {
        let still = try library.makeImage(width: 64, height: 48, orientation: 6)
        let movie = library.scratch.appendingPathComponent("live.mov")
        try TestMedia.writeMovie(to: movie, width: 64, height: 48, seconds: 1, audio: true)
        var id = ""
        try library.library.performChangesAndWait {
            let request = PHAssetCreationRequest.forAsset()
            request.addResource(with: .photo, fileURL: still, options: nil)
            request.addResource(with: .pairedVideo, fileURL: movie, options: nil)
            id = request.placeholderForCreatedAsset!.localIdentifier
        }
        let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [id], options: library.options()).firstObject)
        return (asset, try Data(contentsOf: still), try Data(contentsOf: movie))
    }

    struct Seen: Sendable, Equatable {
        var type: Int
        var seconds: Double
        var scale: Double
    }

    static func save(_ context: PHLivePhotoEditingContext, to output: PHContentEditingOutput) async -> (Bool, (any Error)?) {
        await withCheckedContinuation { continuation in
            context.saveLivePhoto(to: output, options: nil) { ok, error in continuation.resume(returning: (ok, error)) }
        }
    }

    @Test func theStillAndEveryFrameAreEditedAndThePairStaysOneLivePhoto() async throws {
        let library = try TestLibrary(name: "LiveEdit")
        defer { library.remove() }
        let (asset, still, video) = try Self.livePhoto(library)
        #expect(asset.mediaSubtypes.contains(.photoLive))
        let input = try await ContentEditingTests.requireInput(asset)
        #expect(input.livePhoto != nil)
        let context = try #require(PHLivePhotoEditingContext(livePhotoEditingInput: input))
        #expect(context.orientation == .right && context.fullSizeImage.extent.size == CGSize(width: 64, height: 48))
        #expect(abs(context.duration.seconds - 1) < 0.05 && abs(context.photoTime.seconds - 0.5) < 0.05)
        let seen = Mutex<[Seen]>([])
        context.frameProcessor = { frame, _ in
            seen.withLock { $0.append(Seen(type: frame.type.rawValue, seconds: frame.time.seconds, scale: Double(frame.renderScale))) }
            return frame.image.applyingFilter("CIColorInvert")
        }
        context.audioVolume = 0.5
        let output = PHContentEditingOutput(contentEditingInput: input)
        let (ok, error) = await Self.save(context, to: output)
        #expect(ok && error == nil, "\(String(describing: error))")
        let frames = seen.withLock { $0 }
        #expect(frames.filter { $0.type == PHLivePhotoFrameType.photo.rawValue }.count == 1, "the still once")
        let videoTimes = frames.filter { $0.type == PHLivePhotoFrameType.video.rawValue }.map(\.seconds)
        #expect(videoTimes.count == 30 && videoTimes == videoTimes.sorted() && Set(videoTimes).count == 30)
        #expect(frames.allSatisfy { $0.scale == 1 })

        output.adjustmentData = PHAdjustmentData(formatIdentifier: "com.example.live", formatVersion: "1.0", data: Data("invert".utf8))
        try library.library.performChangesAndWait { PHAssetChangeRequest(for: asset).contentEditingOutput = output }
        let edited = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [asset.localIdentifier], options: library.options()).firstObject)
        #expect(edited.mediaSubtypes.contains(.photoLive) && edited.hasAdjustments)
        #expect((edited.pixelWidth, edited.pixelHeight) == (48, 64), "the still written upright")
        let resources = PHAssetResource.assetResources(for: edited)
        #expect(
            resources.map(\.type).sorted { $0.rawValue < $1.rawValue } == [
                .photo, .fullSizePhoto, .adjustmentData, .pairedVideo, .fullSizePairedVideo,
            ])
        let editedVideo = try #require(resources.first { $0.type == .fullSizePairedVideo }?.fileURL)
        let streams = try TestMedia.probeStreams(editedVideo, countFrames: true)
        #expect(streams.first { $0.codec_type == "video" }?.nb_read_frames == "30")
        #expect(streams.first { $0.codec_type == "audio" }?.codec_name == "aac", "the audio kept (re-encoded at half volume)")

        // The Live Photo the image manager gives is the edited pair.
        let live = await withCheckedContinuation { continuation in
            let options = PHLivePhotoRequestOptions()
            options.deliveryMode = .highQualityFormat
            PHImageManager.default().requestLivePhoto(
                for: edited, targetSize: CGSize(width: 64, height: 64), contentMode: .aspectFit, options: options
            ) {
                photo, info in
                if (info?[PHLivePhotoInfoIsDegradedKey] as? Bool) != true { continuation.resume(returning: photo) }
            }
        }
        #expect(live != nil)
        #expect(live?.videoURL?.lastPathComponent == editedVideo.lastPathComponent)

        // Revert: the originals, untouched.
        try library.library.performChangesAndWait { PHAssetChangeRequest(for: edited).revertAssetContentToOriginal() }
        let reverted = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [asset.localIdentifier], options: library.options()).firstObject)
        let originals = PHAssetResource.assetResources(for: reverted)
        #expect(originals.map(\.type) == [.photo, .pairedVideo])
        #expect(try Data(contentsOf: try #require(originals[0].fileURL)) == still)
        #expect(try Data(contentsOf: try #require(originals[1].fileURL)) == video)
        #expect(reverted.mediaSubtypes.contains(.photoLive))
    }

    @Test func aPreviewIsScaledAndAFailedFrameFailsTheSave() async throws {
        let library = try TestLibrary(name: "LivePreview")
        defer { library.remove() }
        let (asset, _, _) = try Self.livePhoto(library)
        let input = try await ContentEditingTests.requireInput(asset)
        let context = try #require(PHLivePhotoEditingContext(livePhotoEditingInput: input))
        let scales = Mutex<Set<Double>>([])
        context.frameProcessor = { frame, _ in
            scales.withLock { _ = $0.insert(Double(frame.renderScale)) }
            return frame.image
        }
        let preview = await withCheckedContinuation { continuation in
            context.prepareLivePhotoForPlayback(withTargetSize: CGSize(width: 32, height: 24), options: nil) { photo, error in
                continuation.resume(returning: photo)
            }
        }
        #expect(preview?.size == CGSize(width: 24, height: 32), "half size, upright")
        #expect(scales.withLock { $0 } == [0.5])

        struct Refused: Error {}
        let count = Mutex(0)
        context.frameProcessor = { frame, error in
            if count.withLock({
                $0 += 1; return $0
            }) == 10 {
                error?.pointee = NSError(domain: "com.example.live", code: 7)
                return nil
            }
            return frame.image
        }
        let output = PHContentEditingOutput(contentEditingInput: input)
        let (ok, failure) = await Self.save(context, to: output)
        #expect(!ok && (failure as NSError?)?.code == 7, "\(String(describing: failure))")
        #expect(!FileManager.default.fileExists(atPath: output.renderedContentURL.path))
    }

    @Test func onlyLivePhotosHaveAContext() async throws {
        let library = try TestLibrary(name: "NotLive")
        defer { library.remove() }
        let ids = try library.addImages(1)
        let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: ids, options: library.options()).firstObject)
        let input = try await ContentEditingTests.requireInput(asset)
        #expect(PHLivePhotoEditingContext(livePhotoEditingInput: input) == nil)
    }
}

import PhotoMedia

/// The edited still and video carry the pair's content identifier, so a copy of them (an export, another
/// library) still pairs as one Live Photo, as Apple's edited pairs do.
@Suite("Live Photo editing: the pair's identity")
struct LivePhotoIdentityTests {
    @Test func theEditedPairKeepsItsContentIdentifier() async throws {
        let library = try TestLibrary(name: "LiveIdentity")
        defer { library.remove() }
        let identifier = "5E9D3C1A-7B44-4F7E-9C2B-0123456789AB"
        let (photo, movie) = try LivePhotoTests.pair(library.scratch, still: identifier, video: identifier)
        var id = ""
        try library.library.performChangesAndWait {
            let request = PHAssetCreationRequest.forAsset()
            request.addResource(with: .photo, fileURL: photo, options: nil)
            request.addResource(with: .pairedVideo, fileURL: movie, options: nil)
            id = request.placeholderForCreatedAsset!.localIdentifier
        }
        let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [id], options: library.options()).firstObject)
        let input = try await ContentEditingTests.requireInput(asset)
        let context = try #require(PHLivePhotoEditingContext(livePhotoEditingInput: input))
        context.frameProcessor = { frame, _ in frame.image.applyingFilter("CIColorInvert") }
        let output = PHContentEditingOutput(contentEditingInput: input)
        let (ok, error) = await LivePhotoEditingTests.save(context, to: output)
        #expect(ok, "\(String(describing: error))")
        output.adjustmentData = PHAdjustmentData(formatIdentifier: "com.example.live", formatVersion: "1.0", data: Data("invert".utf8))
        try library.library.performChangesAndWait { PHAssetChangeRequest(for: asset).contentEditingOutput = output }
        let edited = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [id], options: library.options()).firstObject)
        let resources = PHAssetResource.assetResources(for: edited)
        let still = try #require(resources.first { $0.type == .fullSizePhoto }?.fileURL)
        let video = try #require(resources.first { $0.type == .fullSizePairedVideo }?.fileURL)
        #expect(try MediaProbe().probe(still).metadata.contentIdentifier == identifier, "the still's MakerNote")
        #expect(try MediaProbe().probe(video).metadata.contentIdentifier == identifier, "the video's QuickTime key")
    }
}
