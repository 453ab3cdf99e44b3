import BlockingThreads
import Foundation
import PhotoLibraryEngine
import PhotoMedia

/// Image requests for assets of a served library: the server renders (`GET /v1/assets/{id}/image`), this machine
/// keeps the renderings on disk (see `RemoteImageCache`). An image that is not here is "in the cloud": without
/// `isNetworkAccessAllowed` the request answers nil with `PHImageResultIsInCloudKey`; with it, the download is
/// reported to `progressHandler`. An opportunistic request whose image is not here gets the largest smaller
/// rendering that is here first, as a degraded image.
extension PHImageManager {
    func requestRemoteImage(
        _ remote: RemoteLibrary, for asset: PHAsset, targetSize: CGSize, contentMode: PHImageContentMode, options: PHImageRequestOptions,
        resultHandler: @escaping (UIImage?, [AnyHashable: Any]?) -> Void
    ) -> PHImageRequestID {
        let id = nextRequestID(running: !options.isSynchronous)
        nonisolated(unsafe) let handler = resultHandler
        let request: RemoteLibrary.ImageRequest
        do { request = try Self.remoteRequest(asset, targetSize: targetSize, contentMode: contentMode, options: options) } catch {
            let info = Self.info(id, degraded: false, error: error)
            if options.isSynchronous {
                handler(nil, info)
            } else {
                nonisolated(unsafe) let sendable = info
                delivery.async {
                    defer { self.finish(id) }
                    if !self.isCancelled(id) { handler(nil, sendable) }
                }
            }
            return id
        }
        let network = NetworkAccess(options, requestID: id)
        @Sendable func final() -> Result {
            do {
                let data = try remote.image(request, allowNetwork: network.allowed, progress: network.progress)
                guard let image = UIImage(data: data) else {
                    throw PHPhotosError(
                        .invalidResource, userInfo: [NSLocalizedDescriptionKey: "the server's image of \(request.localIdentifier) does not decode"])
                }
                return Result(image: image, info: Self.info(id, degraded: false, error: nil))
            } catch {
                let photosError = (error as? LibraryError).map(PHPhotosError.init) ?? (error as? PHPhotosError) ?? PHPhotosError(.internalError)
                var info = Self.info(id, degraded: false, error: photosError)
                if photosError.code == .networkAccessRequired { info[PHImageResultIsInCloudKey] = true }
                return Result(image: nil, info: info)
            }
        }
        if options.isSynchronous {
            let result = final()
            handler(result.image, result.info)
            return id
        }
        let cached = remote.imageCache.contains(request.name)
        let degraded = !cached && (options.deliveryMode == .opportunistic || options.deliveryMode == .fastFormat)
        downloads.run { [self] in
            if degraded, let data = remote.cachedSmallerImage(than: request), let image = UIImage(data: data), !isCancelled(id) {
                // Fast format: the fastest image is the final one.
                let isFinal = options.deliveryMode == .fastFormat
                let info = Self.info(id, degraded: !isFinal, error: nil)
                nonisolated(unsafe) let sendable = (image, info)
                delivery.async {
                    if isFinal { self.finish(id) }
                    if !self.isCancelled(id) { handler(sendable.0, sendable.1) }
                }
                if isFinal { return }
            }
            guard !isCancelled(id) else { return finish(id) }
            let result = final()
            delivery.async {
                defer { self.finish(id) }
                guard !self.isCancelled(id) else { return }
                handler(result.image, result.info)
            }
        }
        return id
    }

    /// The rendering a request asks the server for: the size the library's own image manager would render (the
    /// target size, the content and resize modes, never enlarged; the asset's own size for
    /// `PHImageManagerMaximumSize`; at most 8192 a side, the server's limit) — fitted, or filled and cropped when
    /// the request crops to the target — the part of the image (`normalizedCropRect`) and the version.
    static func remoteRequest(
        _ asset: PHAsset, targetSize: CGSize, contentMode: PHImageContentMode, options: PHImageRequestOptions
    ) throws -> RemoteLibrary.ImageRequest {
        let maximum = targetSize.width == PHImageManagerMaximumSize.width && targetSize.height == PHImageManagerMaximumSize.height
        if !maximum, !(targetSize.width > 0 && targetSize.height > 0 && targetSize.width.isFinite && targetSize.height.isFinite) {
            throw PHPhotosError(.invalidResource, userInfo: [NSLocalizedDescriptionKey: "the target size \(targetSize) is not positive"])
        }
        let crop = try crop(options, maximum: maximum)
        let resize: RenderResize = maximum ? .none : (options.resizeMode == .none ? .none : (options.resizeMode == .exact ? .exact : .fast))
        let target = maximum ? nil : (width: Int(targetSize.width.rounded(.up)), height: Int(targetSize.height.rounded(.up)))
        let render = RenderRequest(target: target, fit: contentMode == .aspectFill ? .fill : .fit, resize: resize, crop: crop)
        let output = render.outputSize(width: max(1, asset.pixelWidth), height: max(1, asset.pixelHeight))
        let scale = min(1, 8192 / Double(max(output.width, output.height)))
        let version =
            switch options.version {
            case .unadjusted: "unadjusted"
            case .original: "original"
            default: "current"
            }
        return RemoteLibrary.ImageRequest(
            localIdentifier: asset.localIdentifier, contentVersion: asset.record.contentVersion, originalChoice: asset.record.originalChoice,
            width: max(1, Int(Double(output.width) * scale)), height: max(1, Int(Double(output.height) * scale)),
            mode: output.cropToTarget ? "fill" : "fit", version: version, crop: crop.map { [$0.x, $0.y, $0.width, $0.height] })
    }
}
