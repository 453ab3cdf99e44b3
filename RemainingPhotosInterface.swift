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
// Done (issue 26): RAW + JPEG — PHAsset.OriginalResourceChoice, PHAsset.originalResourceChoice,
// PHAssetCreationRequest.originalResourceChoice, PHContentEditingInputRequestOptions.originalResourceChoice,
// PHAssetChangeRequest.revertAssetContent(to:); import pairs a RAW with its JPEG or HEIC.
// Done (issue 26): PHAssetResourceUploadJob (State, Action, Type, jobLimit, fetchJobs, destination, state, type,
// error, responseHeaderFields, resource), PHAssetResourceUploadJobChangeRequest (creationRequestForJob, createJob,
// creationRequestForDownloadJob, init(for:), acknowledge, retry(destination:), cancel, the placeholder),
// PHAssetResourceUploadJobOptions, PHPhotoLibrary's uploadJobExtensionEnabled / setUploadJobExtensionEnabled /
// enableUploadJobExtension(with:) / disableUploadJobExtension / uploadJobExtensionOptions /
// setUploadJobExtensionOptions, PHAssetResource.assetResource(forUploadJob:), PHBackgroundResourceUploadJobExtension
// and PHBackgroundResourceUploadProcessingResult; cloud identifier mappings answer from stored identifiers.
// Differs: PHBackgroundResourceUploadJobExtension refines no AppExtension (ExtensionFoundation has no Linux
// counterpart): it asks for init(), and a host (BackgroundUploads' UploadJobHost) runs it in its process.
protocol PHBackgroundResourceUploadJobExtension: AppExtension {}
// The same for the iOS 26.1 protocol PHBackgroundResourceUploadExtension (process(), notifyTermination()), deprecated
// in iOS 27 for the one above.
protocol PHBackgroundResourceUploadExtension: AppExtension {}
// Done: a resource of a PHAssetResourceType raw value this version does not know is kept (copied, verified) and not
// listed — Swift's enum cannot hold the value, as Apple's imported C enum can; an unknown media type reads as .unknown.
