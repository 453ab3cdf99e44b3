// Not compiled. The parts of PhotoKit (../shared/spec/PHOTOKIT-API.md) that OpenPhotos does not implement yet.
// Delete lines as they land (the OpenCombine practice).

// MARK: §2 PHAsset
//   From file metadata, still missing: photoDepthEffect from depth/disparity auxiliary images (only EXIF
//   CustomRendered 7/8 today), videoTimelapse, burst user picks (MakerNote pick type), RAW + JPEG pairs,
//   playbackVariation; a Live Photo video imported after its still is not joined to it yet.
extension PHAsset {
    var adjustmentTimestamp: Date? { get }                            // iOS 18
    func requestContentEditingInput(with options: PHContentEditingInputRequestOptions?,
        completionHandler: @escaping (PHContentEditingInput?, [AnyHashable: Any]) -> Void) -> PHContentEditingInputRequestID
    func cancelContentEditingInputRequest(_ requestID: PHContentEditingInputRequestID)
}

// MARK: §6 PHFetchOptions
//   #Predicate<PHAsset> compiled to the same SQL (NSPredicate(_ predicate: Predicate<PHAsset>)).

// MARK: §10 Change requests
extension PHAssetChangeRequest {
    var contentEditingOutput: PHContentEditingOutput? { get set }
    func revertAssetContentToOriginal()
}

// MARK: §11 Image manager (issue 5): done — images, video poster frames (crops too), delivery modes, cancellation,
//   caching, requestLivePhoto, requestAVAsset, requestPlayerItem, requestExportSession (AVAssetExportSession on
//   libavformat/libavcodec), deprecated requestImageData. Left: HDR image options and export-session extras.
extension PHImageRequestOptions {
    var preferHDR: Bool { get set }                     // iOS 26
    var targetHDRHeadroom: Float { get set }
}
extension AVAssetExportSession {
    var timeRange: CMTimeRange { get set }              // trimming
    var metadata: [AVMetadataItem]? { get set }
    var fileLengthLimit: Int64 { get set }
    var audioMix: AVAudioMix? { get set }
    var videoComposition: AVVideoComposition? { get set }
}
let AVAssetExportPresetAppleM4A: String                 // audio-only export

// MARK: §13 Content editing
// PHContentEditingInputRequestOptions: done (canHandleAdjustmentData, network, progress).
class PHContentEditingInput {}
class PHContentEditingOutput {}
// PHAdjustmentData: done (NSSecureCoding; the 1 MiB limit and non-empty data are checked at commit, with the output).
protocol PHContentEditingController {}

// MARK: §14 Live Photos: PHLivePhoto (size, request(withResourceFileURLs:…), cancelRequest) is done.
class PHLivePhotoEditingContext {}   // with content editing (§13)

