// Not compiled. The parts of PhotoKit (../shared/spec/PHOTOKIT-API.md) that OpenPhotos does not implement yet.
// Delete lines as they land (the OpenCombine practice).

// MARK: §2 PHAsset
//   From file metadata, still missing: photoDepthEffect from depth/disparity auxiliary images (only EXIF
//   CustomRendered 7/8 today), videoTimelapse, burst user picks (MakerNote pick type), RAW + JPEG pairs,
//   playbackVariation; a Live Photo video imported after its still is not joined to it yet.
//   Content editing (issue 14): done — requestContentEditingInput, cancel, adjustmentTimestamp, adjustmentsState.

// MARK: §6 PHFetchOptions
//   #Predicate<PHAsset> compiled to the same SQL (NSPredicate(_ predicate: Predicate<PHAsset>)).

// MARK: §10 Change requests: done (contentEditingOutput and revertAssetContentToOriginal since issue 14).

// MARK: §11 Image manager (issue 5): done — images, video poster frames (crops too), delivery modes, cancellation,
//   caching, requestLivePhoto, requestAVAsset, requestPlayerItem, requestExportSession (AVAssetExportSession on
//   libavformat/libavcodec), deprecated requestImageData. Left: HDR image options and export-session extras.
extension PHImageRequestOptions {
    var preferHDR: Bool { get set }                     // iOS 26
    var targetHDRHeadroom: Float { get set }
}
extension AVAssetExportSession {                        // timeRange and videoComposition: done (issue 15)
    var metadata: [AVMetadataItem]? { get set }
    var fileLengthLimit: Int64 { get set }
    var audioMix: AVAudioMix? { get set }
}
extension AVVideoComposition {                          // done: init(asset:applyingCIFiltersWithHandler:) only
    init(propertiesOf asset: AVAsset)                   // instruction-based compositions
    var instructions: [AVVideoCompositionInstructionProtocol] { get }
}
let AVAssetExportPresetAppleM4A: String                 // audio-only export

// MARK: §13 Content editing
// Done (issue 14): PHContentEditingInputRequestOptions (with iOS 27's skipsDisplaySizeImage), PHContentEditingInput,
// PHContentEditingOutput (init(contentEditingInput:), init(placeholderForCreatedAsset:), renderedContentURL, iOS 17
// content types), PHAdjustmentData (NSSecureCoding; its 1 MiB limit and non-empty data are checked at commit).
extension PHContentEditingOutput: NSSecureCoding {}     // archiving an output (extensions hand them across processes)
extension PHContentEditingInputRequestOptions {
    var originalResourceChoice: PHAsset.OriginalResourceChoice { get set }   // iOS 27 (RAW + JPEG pairs, §22)
}
// PHContentEditingController: done (issue 15) in the PhotosUI module, hosted as child processes (EditingSession).

// MARK: §14 Live Photos: PHLivePhoto (size, request(withResourceFileURLs:…), cancelRequest) is done.
// PHLivePhotoEditingContext: done (issue 15). Not read: the still-image-time metadata track (photoTime is the
// video's middle); the edited still carries no Apple maker note with the content identifier (the library keeps the
// pair by its resources; the video keeps its identifier).


// MARK: §22 iOS 26.1–27 (issue 26). Done: ratings, captions, keywords (PHAsset.Rating, rating, extendedMetadata,
// PHAssetExtendedMetadata, prefetchAssetExtendedMetadata, the change request's rating, caption, addKeyword,
// removeKeyword), the Live Photo video toggle (setLivePhotoVideoPlaybackEnabled, PHAssetEditOperation case),
// PHPhotoLibraryPersistentChangesObserver with register/unregisterPersistentChangesObserver, PHAssetResource.filename
// (originalFilename is not marked deprecated: ported apps would warn), PHCollectionListSubtype.rootFolder.
extension PHAsset {
    enum OriginalResourceChoice: Int { case compressed = 0, raw = 1 }
    var originalResourceChoice: PHAsset.OriginalResourceChoice { get }
}
extension PHAssetChangeRequest {
    func revertAssetContent(to choice: PHAsset.OriginalResourceChoice)
}
extension PHAssetCreationRequest {
    var originalResourceChoice: PHAsset.OriginalResourceChoice { get set }   // .photo + .alternatePhoto in one request
}
extension PHPhotoLibrary {
    func enableUploadJobExtension(with options: PHAssetResourceUploadJobOptions) throws
    func disableUploadJobExtension() throws
    var uploadJobExtensionOptions: PHAssetResourceUploadJobOptions? { get }
}
extension PHAssetResource {
    class func assetResource(forUploadJob job: PHAssetResourceUploadJob) -> PHAssetResource?
}
class PHAssetResourceUploadJob: PHObject {
    enum State: Int { case registered, pending, succeeded, failed, cancelled /* 26.4 */ }   // raw values: Apple's header
    enum Action: Int { case process, acknowledge, retry }
    var destination: URLRequest { get }
    var state: PHAssetResourceUploadJob.State { get }
    var type: /* the job's own type enum, see Apple's page */ Int { get }
    var error: Error? { get }
    var responseHeaderFields: [String: String]? { get }  // 26.4
    class var jobLimit: Int { get }
    class func fetchJobs(action: PHAssetResourceUploadJob.Action, options: PHFetchOptions?) -> PHFetchResult<PHAssetResourceUploadJob>
}
class PHAssetResourceUploadJobChangeRequest: PHChangeRequest {
    class func creationRequestForJob(destination: URLRequest, resource: PHAssetResource) -> PHAssetResourceUploadJobChangeRequest?
    var placeholderForCreatedAssetResourceUploadJob: PHObjectPlaceholder? { get }
    func acknowledge()
    func retry(destination: URLRequest?)
    func cancel()
}
protocol PHBackgroundResourceUploadJobExtension {
    func processJobs() async -> PHBackgroundResourceUploadProcessingResult
    func willTerminate()
}
// Behaviour, not API: cloudIdentifierMappings / localIdentifierMappings answer identifierNotFound for all (they will
// answer from identifiers devices send with their uploads). Done: a resource of a PHAssetResourceType raw value this
// version does not know is kept (copied, verified) and not listed — Swift's enum cannot hold the value, as Apple's
// imported C enum can; an unknown media type reads as .unknown.
