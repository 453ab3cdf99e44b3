import BlockingThreads
import Foundation
import PhotoLibraryEngine
import PhotoMedia
import Synchronization

/// Renders assets' images at the sizes an app asks for.
///
/// Rendering runs on a pool as wide as the machine's cores (libvips: shrink-on-load for JPEG, the embedded
/// thumbnail of HEIC when it is large enough); images are display-oriented (EXIF orientation applied) and sRGB.
///
/// Apple delivers asynchronous results on the main thread. Linux programs rarely run a main loop (servers,
/// command-line tools), so OpenPhotoKit delivers them on a serial queue of the manager — never the main thread;
/// hop to the main queue yourself where a UI needs it.
open class PHImageManager: NSObject, @unchecked Sendable {
    private static let shared = PHImageManager()

    /// Where asynchronous results are delivered, one at a time.
    let delivery = DispatchQueue(label: "OpenPhotoKit.image-results")
    /// The rendering pool.
    let workers: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = max(1, ProcessInfo.processInfo.activeProcessorCount)
        queue.qualityOfService = .userInitiated
        return queue
    }()
    /// Downloads of a served library's renderings: six at a time (as a browser asks one server), on threads for
    /// blocking work — not the rendering pool, whose few threads a slow server would hold.
    let downloads = BlockingLane(width: 6)
    /// Request IDs: the next one, the asynchronous requests still running, and those of them cancelled. Only running
    /// requests are remembered, so cancelling finished ones (a grid does it on every cell reuse) costs no memory.
    private let requests = Mutex<(next: Int32, running: Set<Int32>, cancelled: Set<Int32>)>((1, [], []))
    /// Renderings in memory (128 MB of pixels by default).
    let memory = ImageMemoryCache(limit: 128 << 20)
    /// Renderings being made, shared by requests for the same key.
    private let inFlight = Mutex<[RenderKey: DispatchGroup]>([:])
    /// Each asset's original, by local identifier and modification date (a change of the asset asks again).
    private let sources = Mutex<[String: Source]>([:])
    /// Whether finished renderings are also written to the library's derivatives (caching managers do).
    var persistsDerivatives: Bool { false }

    /// A manager of its own (``default()`` is the shared one).
    public override init() {}

    /// The shared image manager.
    open class func `default`() -> PHImageManager { shared }

    /// OpenPhotoKit: the most pixels one rendering may have (100 megapixels: 400 MB of RGBA). An image is
    /// rendered into memory whole, so a request for more — `PHImageManagerMaximumSize` of a 16000 × 16000 PNG —
    /// fails with ``PHPhotosError/Code/limitExceeded`` in `PHImageErrorKey` rather than exhaust the memory. Smaller
    /// target sizes of the same image are fine (JPEG and HEIC shrink on load); `photos thumbnail --size max` streams
    /// full-size files of any size.
    public static let maximumRenderedPixelCount = 100_000_000

    // MARK: - Images

    /// Requests an image of `asset` at `targetSize` (pixels), fitted or filled as `contentMode` says.
    ///
    /// Asynchronous by default: with `.opportunistic` the handler gets a degraded image first
    /// (`PHImageResultIsDegradedKey` true) and the final one later; `.highQualityFormat` and `.fastFormat` call it
    /// once. After ``cancelImageRequest(_:)`` no final image is delivered (the handler may not be called at all).
    /// With `isSynchronous`, the handler is called exactly once, on the calling thread, before this returns.
    /// Errors (missing or damaged original, zero or negative size, a crop outside the unit square) come as a nil
    /// image with `PHImageErrorKey`.
    @discardableResult
    open func requestImage(
        for asset: PHAsset, targetSize: CGSize, contentMode: PHImageContentMode, options: PHImageRequestOptions?,
        resultHandler: @escaping (UIImage?, [AnyHashable: Any]?) -> Void
    ) -> PHImageRequestID {
        let options = (options?.copy() as? PHImageRequestOptions) ?? PHImageRequestOptions()
        if let remote = asset.library?.remote {
            return requestRemoteImage(
                remote, for: asset, targetSize: targetSize, contentMode: contentMode, options: options, resultHandler: resultHandler)
        }
        let id = nextRequestID(running: !options.isSynchronous)
        nonisolated(unsafe) let handler = resultHandler
        let plan: RenderPlan
        do { plan = try self.plan(asset, targetSize: targetSize, contentMode: contentMode, options: options, id: id) } catch {
            let failed = Result(image: nil, info: Self.info(id, degraded: false, error: error))
            if options.isSynchronous {
                handler(nil, failed.info)
            } else {
                delivery.async {
                    defer { self.finish(id) }
                    if !self.isCancelled(id) { handler(nil, failed.info) }
                }
            }
            return id
        }
        if options.isSynchronous {
            let result = render(plan, id: id, degraded: false)
            handler(result.image, result.info)
            return id
        }
        // Cached at full quality: one call, as Apple does.
        let wantsDegraded = options.deliveryMode == .opportunistic && !isCached(plan)
        let fast = options.deliveryMode == .fastFormat
        workers.addOperation { [self] in
            if wantsDegraded, let degraded = plan.degradedPlan, !isCancelled(id) {
                let result = render(degraded, id: id, degraded: true)
                if result.image != nil {
                    delivery.async { if !self.isCancelled(id) { handler(result.image, result.info) } }
                }
            }
            guard !isCancelled(id) else { return finish(id) }
            let result = render(fast && !isCached(plan) ? (plan.degradedPlan ?? plan) : plan, id: id, degraded: false)
            delivery.async {
                defer { self.finish(id) }
                guard !self.isCancelled(id) else { return }
                handler(result.image, result.info)
            }
        }
        return id
    }

    /// OpenPhotoKit: the final image of a request (no degraded image), or the error.
    open func requestImage(
        for asset: PHAsset, targetSize: CGSize, contentMode: PHImageContentMode, options: PHImageRequestOptions? = nil
    ) async throws -> UIImage {
        let options = (options?.copy() as? PHImageRequestOptions) ?? PHImageRequestOptions()
        if options.deliveryMode == .opportunistic { options.deliveryMode = .highQualityFormat }
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<UIImage, any Error>) in
            requestImage(for: asset, targetSize: targetSize, contentMode: contentMode, options: options) { image, info in
                if let image {
                    continuation.resume(returning: image)
                } else {
                    continuation.resume(throwing: ImageResultInfo(info).error ?? PHPhotosError(.internalError))
                }
            }
        }
    }

    /// Cancels an asynchronous request: no final image is delivered after this returns.
    open func cancelImageRequest(_ requestID: PHImageRequestID) {
        guard requestID != PHInvalidImageRequestID else { return }
        requests.withLock { state in
            if state.running.contains(requestID) { state.cancelled.insert(requestID) }
        }
    }

    /// The original (or current) bytes of a photo, their uniform type identifier and orientation — called exactly
    /// once; the delivery mode is ignored.
    @discardableResult
    open func requestImageDataAndOrientation(
        for asset: PHAsset, options: PHImageRequestOptions?,
        resultHandler: @escaping (Data?, String?, CGImagePropertyOrientation, [AnyHashable: Any]?) -> Void
    ) -> PHImageRequestID {
        let options = (options?.copy() as? PHImageRequestOptions) ?? PHImageRequestOptions()
        let id = nextRequestID(running: !options.isSynchronous)
        nonisolated(unsafe) let handler = resultHandler
        struct DataResult: @unchecked Sendable {
            var data: Data?
            var type: String?
            var orientation: CGImagePropertyOrientation
            var info: [AnyHashable: Any]
        }
        let work = { @Sendable () -> DataResult in
            do {
                let source = try self.cachedSource(asset, version: options.version)
                guard !source.isVideo else {
                    throw PHPhotosError(
                        .requestNotSupportedForAsset, userInfo: [NSLocalizedDescriptionKey: "\(asset.localIdentifier) is a video, not image data"])
                }
                let file = try source.file.url(NetworkAccess(options, requestID: id))
                let data = try Data(contentsOf: file, options: .mappedIfSafe)
                let stored = (try? MediaProbe().probe(file).orientation) ?? 1
                let orientation = CGImagePropertyOrientation(rawValue: UInt32(stored)) ?? .up
                return DataResult(
                    data: data, type: source.uniformTypeIdentifier, orientation: orientation, info: Self.info(id, degraded: false, error: nil))
            } catch {
                var info = Self.info(id, degraded: false, error: error)
                if (error as? PHPhotosError)?.code == .networkAccessRequired { info[PHImageResultIsInCloudKey] = true }
                return DataResult(data: nil, type: nil, orientation: .up, info: info)
            }
        }
        if options.isSynchronous {
            let r = work()
            handler(r.data, r.type, r.orientation, r.info)
        } else {
            workers.addOperation {
                let r = work()
                self.delivery.async {
                    defer { self.finish(id) }
                    if self.isCancelled(id) { return }
                    handler(r.data, r.type, r.orientation, r.info)
                }
            }
        }
        return id
    }

    /// The bytes of a photo with UIKit's orientation: the iOS 8 form of
    /// ``requestImageDataAndOrientation(for:options:resultHandler:)``, which it calls.
    @available(*, deprecated, renamed: "requestImageDataAndOrientation(for:options:resultHandler:)")
    @discardableResult
    open func requestImageData(
        for asset: PHAsset, options: PHImageRequestOptions?,
        resultHandler: @escaping (Data?, String?, UIImage.Orientation, [AnyHashable: Any]?) -> Void
    ) -> PHImageRequestID {
        nonisolated(unsafe) let handler = resultHandler
        return requestImageDataAndOrientation(for: asset, options: options) { data, type, orientation, info in
            handler(data, type, UIImage.Orientation(exifOrientation: Int(orientation.rawValue)), info)
        }
    }

    // MARK: - Videos

    /// A video asset's file as an `AVAsset` (an ``AVURLAsset`` of the stored original), on the manager's queue.
    /// Assets that are not videos get nil and `PHImageErrorKey` (`requestNotSupportedForAsset`).
    @discardableResult
    open func requestAVAsset(
        forVideo asset: PHAsset, options: PHVideoRequestOptions?, resultHandler: @escaping (AVAsset?, AVAudioMix?, [AnyHashable: Any]?) -> Void
    ) -> PHImageRequestID {
        nonisolated(unsafe) let handler = resultHandler
        return requestVideo(asset, options: options, make: { $0 }) { video, info in handler(video, nil, info) }
    }

    /// A video asset as an ``AVPlayerItem`` for playback, on the manager's queue. Assets that are not videos get nil
    /// and `PHImageErrorKey` (`requestNotSupportedForAsset`).
    @discardableResult
    open func requestPlayerItem(
        forVideo asset: PHAsset, options: PHVideoRequestOptions?, resultHandler: @escaping (AVPlayerItem?, [AnyHashable: Any]?) -> Void
    ) -> PHImageRequestID {
        requestVideo(asset, options: options, make: { AVPlayerItem(asset: $0) }, deliver: resultHandler)
    }

    /// A video asset in an ``AVAssetExportSession`` set up with `exportPreset`, on the manager's queue; set its
    /// `outputURL` and `outputFileType` and start it. Assets that are not videos get nil and `PHImageErrorKey`
    /// (`requestNotSupportedForAsset`); an unknown preset gets nil and `invalidResource`.
    @discardableResult
    open func requestExportSession(
        forVideo asset: PHAsset, options: PHVideoRequestOptions?, exportPreset: String,
        resultHandler: @escaping (AVAssetExportSession?, [AnyHashable: Any]?) -> Void
    ) -> PHImageRequestID {
        requestVideo(
            asset, options: options,
            make: { video in
                guard let session = AVAssetExportSession(asset: video, presetName: exportPreset) else {
                    throw PHPhotosError(.invalidResource, userInfo: [NSLocalizedDescriptionKey: "unknown export preset \(exportPreset)"])
                }
                return session
            }, deliver: resultHandler)
    }

    /// The common walk of the video requests: the asset's stored file as an ``AVURLAsset``, shaped by `make`, handed
    /// to `deliver` on the delivery queue unless cancelled.
    private func requestVideo<Value>(
        _ asset: PHAsset, options: PHVideoRequestOptions?, make: @escaping (AVURLAsset) throws -> Value,
        deliver: @escaping (Value?, [AnyHashable: Any]?) -> Void
    ) -> PHImageRequestID {
        let id = nextRequestID()
        let version: PHImageRequestOptionsVersion = options?.version == .original ? .original : .current
        nonisolated(unsafe) let make = make
        nonisolated(unsafe) let deliver = deliver
        workers.addOperation { [self] in
            var value: Value?
            var error: (any Error)?
            if asset.mediaType != .video {
                error = PHPhotosError(.requestNotSupportedForAsset, userInfo: [NSLocalizedDescriptionKey: "\(asset.localIdentifier) is not a video"])
            } else {
                do {
                    let file = try cachedSource(asset, version: version).file.url(NetworkAccess(options, requestID: id))
                    value = try make(AVURLAsset(url: file))
                } catch let failure { error = failure }
            }
            var info = Self.info(id, degraded: false, error: error)
            if (error as? PHPhotosError)?.code == .networkAccessRequired { info[PHImageResultIsInCloudKey] = true }
            let result = Result(image: nil, info: info)
            nonisolated(unsafe) let delivered = value
            delivery.async {
                defer { self.finish(id) }
                guard !self.isCancelled(id) else { return }
                deliver(delivered, result.info)
            }
        }
        return id
    }

    // MARK: - Live Photos

    /// A Live Photo asset as a ``PHLivePhoto``: with `.opportunistic`, the still first (degraded), then the complete
    /// one. An asset that is not a Live Photo gets nil and `PHImageErrorKey` (`requestNotSupportedForAsset`).
    @discardableResult
    open func requestLivePhoto(
        for asset: PHAsset, targetSize: CGSize, contentMode: PHImageContentMode, options: PHLivePhotoRequestOptions?,
        resultHandler: @escaping (PHLivePhoto?, [AnyHashable: Any]?) -> Void
    ) -> PHImageRequestID {
        let id = nextRequestID()
        nonisolated(unsafe) let handler = resultHandler
        let opportunistic = (options?.deliveryMode ?? .opportunistic) == .opportunistic
        // The version's still and video (for `.current`, an edit's renderings where it has them).
        let version = options?.version ?? .current
        let resources = [false, true].compactMap { PHAssetResource.resource(of: asset, version: version, pairedVideo: $0) }
        // Files this machine has no copy of (object storage) are fetched only with network access.
        let engine = asset.library?.engineIfAvailable
        if asset.mediaSubtypes.contains(.photoLive), !(options?.isNetworkAccessAllowed ?? false), let engine,
            resources.contains(where: { !engine.isLocal($0.record) })
        {
            var info = Self.info(
                id, degraded: false,
                error: PHPhotosError(
                    .networkAccessRequired,
                    userInfo: [NSLocalizedDescriptionKey: "the Live Photo \(asset.localIdentifier) is not on this machine: allow network access"]))
            info[PHImageResultIsInCloudKey] = true
            nonisolated(unsafe) let sendable = info
            delivery.async {
                defer { self.finish(id) }
                if !self.isCancelled(id) { handler(nil, sendable) }
            }
            return id
        }
        guard asset.mediaSubtypes.contains(.photoLive), resources.count == 2 else {
            let info = Self.info(id, degraded: false, error: PHPhotosError(.requestNotSupportedForAsset))
            nonisolated(unsafe) let sendable = info
            delivery.async {
                defer { self.finish(id) }
                if !self.isCancelled(id) { handler(nil, sendable) }
            }
            return id
        }
        // The still and the video are fetched (where they are not here) off the caller's thread, with one progress
        // from 0 to 1 over both, weighted by their sizes.
        let network = NetworkAccess(
            allowed: options?.isNetworkAccessAllowed ?? false, handler: options?.progressHandler, requestID: id)
        let files = zip(resources, ["the still", "the video"]).map { resource, what in
            SourceFile(
                engine: engine, remote: asset.library?.remote, record: resource.record, what: "\(what) of the Live Photo \(asset.localIdentifier)")
        }
        let sizes = resources.map { Double(max(1, $0.fileSize)) }
        workers.addOperation { [self] in
            var urls: [URL] = []
            do {
                for (index, file) in files.enumerated() {
                    let start = sizes[..<index].reduce(0, +) / sizes.reduce(0, +)
                    let share = sizes[index] / sizes.reduce(0, +)
                    let progress = network.progress.map { told in { @Sendable (fraction: Double) in told(start + fraction * share) } }
                    urls.append(try file.url(NetworkAccess(allowed: network.allowed, progress: progress)))
                }
            } catch {
                var info = Self.info(id, degraded: false, error: error)
                info[PHImageResultIsInCloudKey] = files.contains { !$0.isLocal }
                nonisolated(unsafe) let sendable = info
                delivery.async {
                    defer { self.finish(id) }
                    if !self.isCancelled(id) { handler(nil, sendable) }
                }
                return
            }
            let outcome = PHLivePhoto.make(urls, targetSize: targetSize, contentMode: contentMode, asset: asset)
            delivery.async {
                defer { self.finish(id) }
                guard !self.isCancelled(id) else { return }
                if let error = outcome.error {
                    handler(nil, Self.info(id, degraded: false, error: error))
                    return
                }
                if opportunistic, let degraded = outcome.degraded { handler(degraded, Self.info(id, degraded: true, error: nil)) }
                handler(outcome.complete, Self.info(id, degraded: false, error: nil))
            }
        }
        return id
    }

    // MARK: - Planning and rendering

    struct Source {
        /// The stored file, fetched when a rendering needs it (not when memory or a derivative answers).
        var file: SourceFile
        /// Where its derivatives are kept (nil: nowhere, a loose file).
        var engine: LibraryEngine?
        var assetUUID: String
        var sha256: String
        var uniformTypeIdentifier: String
        /// A video: the poster frame is rendered from its first frame, turned by its display rotation.
        var isVideo: Bool
        var displayWidth: Int
        var displayHeight: Int
    }

    struct RenderPlan: @unchecked Sendable {
        var source: Source
        var request: RenderRequest
        /// Whether the file may be fetched over the network, and who is told how far it got.
        var network = NetworkAccess.local
        /// A quick small rendering for `.opportunistic` and `.fastFormat`, when the final one is large.
        var degraded: RenderRequest?

        var degradedPlan: RenderPlan? { degraded.map { RenderPlan(source: source, request: $0, network: network, degraded: nil) } }
    }

    /// A result on its way to a handler.
    struct Result: @unchecked Sendable {
        var image: UIImage?
        var info: [AnyHashable: Any]
    }

    /// The file to render for a version: `.current` is the edit's rendering (the original when unedited);
    /// `.unadjusted` and `.original` are the original. Its SHA-256 keys every cached rendering, so a new version
    /// never meets an old one's pixels.
    static func source(_ asset: PHAsset, version: PHImageRequestOptionsVersion) throws -> Source {
        guard let resource = PHAssetResource.resource(of: asset, version: version) else {
            throw PHPhotosError(.missingResource, userInfo: [NSLocalizedDescriptionKey: "\(asset.localIdentifier) has no stored original"])
        }
        let what = "the \(resource.type == .photo || resource.type == .video ? "original" : "edited version") of \(asset.localIdentifier)"
        let engine = asset.library?.engineIfAvailable
        return Source(
            file: SourceFile(engine: engine, remote: asset.library?.remote, record: resource.record, what: what), engine: engine,
            assetUUID: String(asset.localIdentifier.prefix { $0 != "/" }), sha256: resource.sha256,
            uniformTypeIdentifier: resource.uniformTypeIdentifier, isVideo: asset.mediaType == .video,
            displayWidth: resource.pixelWidth > 0 ? resource.pixelWidth : asset.pixelWidth,
            displayHeight: resource.pixelHeight > 0 ? resource.pixelHeight : asset.pixelHeight)
    }

    /// The file of a version to render, remembered per asset state so a cached request reads no database. When the
    /// remembered file has gone (another process committed an edit or a revert since), the asset's version is looked
    /// up again; when that fails too, the remembered source stands (renderings of it in memory can still serve).
    func cachedSource(_ asset: PHAsset, version: PHImageRequestOptionsVersion = .current) throws -> Source {
        let key = "\(asset.localIdentifier)@\(asset.modificationDate?.timeIntervalSince1970 ?? 0)#\(version.rawValue)"
        let known = sources.withLock { $0[key] }
        if let known, !known.file.isGone { return known }
        let source: Source
        do { source = try Self.source(asset, version: version) } catch {
            if let known { return known }
            throw error
        }
        sources.withLock { sources in
            if sources.count > 10_000 { sources.removeAll(keepingCapacity: true) }
            sources[key] = source
        }
        return source
    }

    func plan(
        _ asset: PHAsset, targetSize: CGSize, contentMode: PHImageContentMode, options: PHImageRequestOptions, id: PHImageRequestID
    ) throws -> RenderPlan {
        var plan = try Self.plan(
            asset, targetSize: targetSize, contentMode: contentMode, options: options,
            source: { try self.cachedSource(asset, version: options.version) })
        plan.network = NetworkAccess(options, requestID: id)
        return plan
    }

    /// The part of the image a request asks for (`normalizedCropRect`, unit coordinates of the oriented image), or
    /// nil for all of it; ignored for `PHImageManagerMaximumSize`, as Apple's is.
    /// - throws: `invalidResource` when it is not inside the unit square or the resize mode is not `.exact`.
    static func crop(_ options: PHImageRequestOptions, maximum: Bool) throws -> (x: Double, y: Double, width: Double, height: Double)? {
        let rect = options.normalizedCropRect
        guard rect != .zero, !maximum else { return nil }
        guard rect.width > 0, rect.height > 0, rect.minX >= 0, rect.minY >= 0, rect.maxX <= 1.000_001, rect.maxY <= 1.000_001 else {
            throw PHPhotosError(.invalidResource, userInfo: [NSLocalizedDescriptionKey: "the crop \(rect) is not inside the unit square"])
        }
        guard options.resizeMode == .exact else {
            throw PHPhotosError(.invalidResource, userInfo: [NSLocalizedDescriptionKey: "normalizedCropRect needs resizeMode .exact"])
        }
        return (Double(rect.minX), Double(rect.minY), Double(rect.width), Double(rect.height))
    }

    static func plan(
        _ asset: PHAsset, targetSize: CGSize, contentMode: PHImageContentMode, options: PHImageRequestOptions,
        source makeSource: () throws -> Source
    ) throws -> RenderPlan {
        let maximum = targetSize.width == PHImageManagerMaximumSize.width && targetSize.height == PHImageManagerMaximumSize.height
        if !maximum, !(targetSize.width > 0 && targetSize.height > 0 && targetSize.width.isFinite && targetSize.height.isFinite) {
            throw PHPhotosError(.invalidResource, userInfo: [NSLocalizedDescriptionKey: "the target size \(targetSize) is not positive"])
        }
        let crop = try Self.crop(options, maximum: maximum)
        let source = try makeSource()
        let fit: RenderFit = contentMode == .aspectFill ? .fill : .fit
        let resize: RenderResize = maximum ? .none : (options.resizeMode == .none ? .none : (options.resizeMode == .exact ? .exact : .fast))
        let target = maximum ? nil : (width: Int(targetSize.width.rounded(.up)), height: Int(targetSize.height.rounded(.up)))
        let request = RenderRequest(target: target, fit: fit, resize: resize, crop: crop)
        var plan = RenderPlan(source: source, request: request, degraded: nil)
        let final = request.outputSize(width: source.displayWidth, height: source.displayHeight)
        let maximumRenderedPixelCount = PHImageManager.maximumRenderedPixelCount
        if final.width * final.height > maximumRenderedPixelCount {
            throw PHPhotosError(
                .limitExceeded,
                userInfo: [
                    NSLocalizedDescriptionKey:
                        "a \(final.width) × \(final.height) image is over the \(maximumRenderedPixelCount / 1_000_000)-megapixel limit of in-memory renderings; ask for a smaller target size"
                ])
        }
        // A degraded image a quarter of the final size (at least 64 px), when the final one is worth waiting for.
        if max(final.width, final.height) > 256, !options.isSynchronous {
            let small = (width: max(64, final.width / 4), height: max(64, final.height / 4))
            plan.degraded = RenderRequest(target: small, fit: .fit, resize: .fast)
        }
        return plan
    }

    func render(_ plan: RenderPlan, id: PHImageRequestID, degraded: Bool) -> Result {
        do {
            let pixels = try pixels(for: plan)
            var info = Self.info(id, degraded: degraded, error: nil)
            // Answered without the original, which is not on this machine: the caller may ask again with the network.
            if !plan.network.allowed, !plan.source.file.isLocal { info[PHImageResultIsInCloudKey] = true }
            return Result(image: UIImage(pixels: pixels), info: info)
        } catch let error as PHPhotosError where SourceFile.isFetchError(error) {
            var info = Self.info(id, degraded: degraded, error: error)
            if error.code == .networkAccessRequired { info[PHImageResultIsInCloudKey] = true }
            if error.code == .userCancelled { info[PHImageCancelledKey] = true }
            return Result(image: nil, info: info)
        } catch {
            let wrapped = PHPhotosError(.invalidResource, userInfo: [NSLocalizedDescriptionKey: "cannot render the original: \(error)"])
            return Result(image: nil, info: Self.info(id, degraded: degraded, error: wrapped))
        }
    }

    /// The key of a plan's rendering.
    static func key(_ plan: RenderPlan) -> RenderKey {
        RenderKey(assetUUID: plan.source.assetUUID, sha256: plan.source.sha256, request: plan.request)
    }

    /// Whether a plan's final rendering is in memory (a request for it is answered once).
    func isCached(_ plan: RenderPlan) -> Bool { memory.pixels(for: Self.key(plan)) != nil }

    /// A plan's pixels: from memory, else the library's derivatives, else rendered — once, however many requests
    /// ask for the same key at the same time.
    func pixels(for plan: RenderPlan) throws -> PixelBuffer {
        let key = Self.key(plan)
        if let cached = memory.pixels(for: key) { return cached }
        let cacheable = plan.request.crop == nil && plan.request.target.map { max($0.width, $0.height) <= 1024 } ?? false
        if cacheable, let stored = plan.source.engine?.derivative(assetUUID: key.assetUUID, name: key.derivativeName) {
            memory.insert(stored, for: key)
            return stored
        }
        // Join a rendering in progress, or start one.
        let (group, owner) = inFlight.withLock { inFlight -> (DispatchGroup, Bool) in
            if let group = inFlight[key] { return (group, false) }
            let group = DispatchGroup()
            group.enter()
            inFlight[key] = group
            return (group, true)
        }
        if !owner {
            group.wait()
            if let cached = memory.pixels(for: key) { return cached }
        }
        defer {
            if owner {
                inFlight.withLock { $0[key] = nil }
                group.leave()
            }
        }
        let pixels: PixelBuffer
        let wanted = plan.request.outputSize(width: plan.source.displayWidth, height: plan.source.displayHeight)
        if plan.request.crop == nil, plan.request.target != nil, plan.request.resize != .none,
            let larger = memory.larger(than: wanted.width, wanted.height, sha256: plan.source.sha256)
        {
            // A larger rendering of the same original is in memory: one decode serves several sizes.
            pixels = try ImageRenderer.render(from: larger, width: wanted.width, height: wanted.height, crop: wanted.cropToTarget)
        } else if plan.source.isVideo, let ranged = try plan.source.file.rangedSource(plan.network) {
            // A movie not on this machine: its poster frame is read by ranges, not the whole file.
            pixels = try ImageRenderer.renderPosterFrame(reading: ranged, request: plan.request)
            _ = plan.network.progress?(1)
        } else if plan.source.isVideo {
            let file = try plan.source.file.url(plan.network)
            pixels = try ImageRenderer.renderPosterFrame(
                file.path, rotation: (try? MediaProbe().probe(file).rotation) ?? 0, displayWidth: plan.source.displayWidth,
                displayHeight: plan.source.displayHeight, request: plan.request)
        } else {
            pixels = try ImageRenderer.render(
                try plan.source.file.url(plan.network).path, displayWidth: plan.source.displayWidth, displayHeight: plan.source.displayHeight,
                request: plan.request)
        }
        memory.insert(pixels, for: key)
        if cacheable, persistsDerivatives { plan.source.engine?.storeDerivative(pixels, assetUUID: key.assetUUID, name: key.derivativeName) }
        return pixels
    }

    static func info(_ id: PHImageRequestID, degraded: Bool, error: (any Error)?) -> [AnyHashable: Any] {
        var info: [AnyHashable: Any] = [
            PHImageResultRequestIDKey: NSNumber(value: id), PHImageResultIsDegradedKey: degraded, PHImageResultIsInCloudKey: false,
        ]
        if let error {
            info[PHImageErrorKey] = (error as? PHPhotosError) ?? PHPhotosError(.internalError, userInfo: [NSLocalizedDescriptionKey: "\(error)"])
        }
        return info
    }

    // MARK: - Request bookkeeping

    /// A new request ID; `running` for asynchronous requests, which ``finish(_:)`` when they deliver.
    func nextRequestID(running: Bool = true) -> PHImageRequestID {
        requests.withLock { state in
            let id = state.next
            state.next = state.next == Int32.max ? 1 : state.next + 1
            if running { state.running.insert(id) }
            return id
        }
    }

    func isCancelled(_ id: PHImageRequestID) -> Bool { requests.withLock { $0.cancelled.contains(id) } }

    func finish(_ id: PHImageRequestID) {
        requests.withLock { state in
            state.running.remove(id)
            state.cancelled.remove(id)
        }
    }
}
