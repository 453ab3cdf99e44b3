import BlockingThreads
import Foundation
import PhotoLibraryEngine
import PhotoMedia
import Synchronization

/// An image manager that prepares images ahead of requests — for a grid, the cells about to scroll into view.
///
/// ``startCachingImages(for:targetSize:contentMode:options:)`` renders in the background on the manager's pool;
/// a later ``PHImageManager/requestImage(for:targetSize:contentMode:options:resultHandler:)`` with **the same** size,
/// content mode and options is answered from memory, once. Renderings of at most 1024 px are also kept in the
/// library (`resources/derivatives`), so another manager or process finds them on disk; they are keyed by the
/// original's SHA-256 and the request, so a changed original is never answered with old pixels, and they are
/// removed with their asset.
open class PHCachingImageManager: PHImageManager, @unchecked Sendable {
    /// Whether high-quality images are cached (set false while scrolling fast: only the quick degraded sizes are
    /// prepared then). Apple marks it unused in its newest SDK; here it still chooses what is prepared.
    open var allowsCachingHighQualityImages = true

    private let preheating = Mutex<(keys: Set<RenderKey>, pending: Int)>(([], 0))
    private let idle = NSCondition()

    override var persistsDerivatives: Bool { true }

    /// A caching manager with its own memory cache.
    public override init() {}

    /// Renders these assets' images in the background, for requests with the same size, mode and options. For a
    /// served library's assets, downloads their renderings to this machine's cache when `isNetworkAccessAllowed`.
    open func startCachingImages(for assets: [PHAsset], targetSize: CGSize, contentMode: PHImageContentMode, options: PHImageRequestOptions?) {
        let options = (options?.copy() as? PHImageRequestOptions) ?? PHImageRequestOptions()
        options.isSynchronous = false
        for asset in assets {
            if let remote = asset.library?.remote {
                // A served library's asset: its rendering downloaded to this machine's cache (when the network may
                // be used), so that the request that follows answers from disk.
                guard let request = try? Self.remoteRequest(asset, targetSize: targetSize, contentMode: contentMode, options: options),
                    !remote.imageCache.contains(request.name)
                else { continue }
                let allowNetwork = options.isNetworkAccessAllowed
                preheating.withLock { $0.pending += 1 }
                downloads.run { [self] in
                    defer {
                        idle.lock()
                        preheating.withLock { $0.pending -= 1 }
                        idle.broadcast()
                        idle.unlock()
                    }
                    _ = try? remote.image(request, allowNetwork: allowNetwork)
                }
                continue
            }
            guard let full = try? plan(asset, targetSize: targetSize, contentMode: contentMode, options: options, id: PHInvalidImageRequestID) else {
                continue
            }
            let plan = allowsCachingHighQualityImages ? full : (full.degradedPlan ?? full)
            let key = Self.key(plan)
            let isNew = preheating.withLock { state -> Bool in
                guard state.keys.insert(key).inserted else { return false }
                state.pending += 1
                return true
            }
            guard isNew else { continue }
            workers.addOperation { [self] in
                defer {
                    idle.lock()
                    preheating.withLock { $0.pending -= 1 }
                    idle.broadcast()
                    idle.unlock()
                }
                // Stopped before it started: skip.
                guard preheating.withLock({ $0.keys.contains(key) }) else { return }
                _ = try? pixels(for: plan)
            }
        }
    }

    /// Stops preparing these images and drops them from memory (they stay in the library's derivatives).
    open func stopCachingImages(for assets: [PHAsset], targetSize: CGSize, contentMode: PHImageContentMode, options: PHImageRequestOptions?) {
        let options = (options?.copy() as? PHImageRequestOptions) ?? PHImageRequestOptions()
        var keys = Set<RenderKey>()
        for asset in assets {
            guard let plan = try? plan(asset, targetSize: targetSize, contentMode: contentMode, options: options, id: PHInvalidImageRequestID) else {
                continue
            }
            keys.insert(Self.key(plan))
            if let degraded = plan.degradedPlan { keys.insert(Self.key(degraded)) }
        }
        preheating.withLock { $0.keys.subtract(keys) }
        memory.remove { keys.contains($0) }
    }

    /// Stops preparing anything and empties the memory cache.
    open func stopCachingImagesForAllAssets() {
        preheating.withLock { $0.keys.removeAll() }
        memory.remove { _ in true }
    }

    /// OpenPhotoKit: blocks until every image asked for with ``startCachingImages(for:targetSize:contentMode:options:)``
    /// so far is ready (or failed). For servers that warm a cache before answering, and for tests.
    public func waitForCaching() {
        idle.lock()
        while preheating.withLock({ $0.pending }) > 0 { idle.wait() }
        idle.unlock()
    }

    /// OpenPhotoKit: bytes of pixels held in memory now.
    public var cachedByteCount: Int { memory.byteCount }
}
