// Not compiled. The parts of PhotoKit (../shared/spec/PHOTOKIT-API.md) that OpenPhotos does not implement yet.
// Delete lines as they land (the OpenCombine practice).

// MARK: §2 PHAsset
//   From file metadata, still missing: photoDepthEffect from depth/disparity auxiliary images (only EXIF
//   CustomRendered 7/8 today), videoTimelapse, burst user picks (MakerNote pick type), RAW + JPEG pairs,
//   playbackVariation; a Live Photo video imported after its still is not joined to it yet.
extension PHAsset {
    var contentType: UTType { get }                                   // iOS 26
    var adjustmentTimestamp: Date? { get }                            // iOS 18
    func requestContentEditingInput(with options: PHContentEditingInputRequestOptions?,
        completionHandler: @escaping (PHContentEditingInput?, [AnyHashable: Any]) -> Void) -> PHContentEditingInputRequestID
    func cancelContentEditingInputRequest(_ requestID: PHContentEditingInputRequestID)
    class func fetchAssets(withALAssetURLs assetURLs: [URL], options: PHFetchOptions?) -> PHFetchResult<PHAsset>   // deprecated
}

// MARK: §6 PHFetchOptions
//   #Predicate<PHAsset> compiled to the same SQL (NSPredicate(_ predicate: Predicate<PHAsset>)).

// MARK: §8 PHPhotoLibrary
extension PHPhotoLibrary {
    func register(_ observer: PHPhotoLibraryAvailabilityObserver)
    func unregisterAvailabilityObserver(_ observer: PHPhotoLibraryAvailabilityObserver)
    func cloudIdentifierMappings(forLocalIdentifiers: [String]) -> [String: Result<PHCloudIdentifier, Error>]
    func localIdentifierMappings(for: [PHCloudIdentifier]) -> [PHCloudIdentifier: Result<String, Error>]
}

// MARK: §10 Change requests
extension PHAssetChangeRequest {
    var contentEditingOutput: PHContentEditingOutput? { get set }
    func revertAssetContentToOriginal()
}

// MARK: §11 Image manager (issue 5): images, video poster frames, crops, delivery modes, cancellation, caching and
//   requestLivePhoto and requestAVAsset (an AVURLAsset stand-in: URL, duration, size) are done; playback and export
//   objects are not. Crops of video frames are refused.
class AVPlayerItem {}
class AVAssetExportSession {}
extension PHImageManager {
    func requestPlayerItem(forVideo asset: PHAsset, options: PHVideoRequestOptions?,
        resultHandler: @escaping (AVPlayerItem?, [AnyHashable: Any]?) -> Void) -> PHImageRequestID
    func requestExportSession(forVideo asset: PHAsset, options: PHVideoRequestOptions?, exportPreset: String,
        resultHandler: @escaping (AVAssetExportSession?, [AnyHashable: Any]?) -> Void) -> PHImageRequestID
    func requestImageData(for asset: PHAsset, options: PHImageRequestOptions?,
        resultHandler: @escaping (Data?, String?, UIImage.Orientation, [AnyHashable: Any]?) -> Void) -> PHImageRequestID   // deprecated
}

// MARK: §12 Resources
extension PHAssetResource {
    var contentType: UTType { get }
    var dataSize: Int? { get }
}

// MARK: §13 Content editing
class PHContentEditingInputRequestOptions {}
class PHContentEditingInput {}
class PHContentEditingOutput {}
class PHAdjustmentData {}
protocol PHContentEditingController {}

// MARK: §14 Live Photos: PHLivePhoto (size, request(withResourceFileURLs:…), cancelRequest) is done.
class PHLivePhotoEditingContext {}   // with content editing (§13)

// MARK: §15 Cloud identifiers (persistent history is done)
class PHCloudIdentifier {}
