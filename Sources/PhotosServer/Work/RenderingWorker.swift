import Foundation
import Logging
import OpenPhotos
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// OpenPhotoKit's background worker: makes what commits of new content queue — in every library, the web rendering of
/// a movie that browsers cannot play (``LibraryWebVideo``); in a library whose files are in object storage, the
/// renderings: the gallery's thumbnails, the API's default image and a display size, a video's poster frames, kept in
/// the store, where every `photos serve` node finds them instead of fetching the original.
///
/// Items come from the library's queue (in its database), claimed with a lease: any number of workers, on any hosts,
/// share it, a worker that dies leaves its item to be claimed again once its lease runs out, and an item done twice
/// makes the same renderings (each is made by a new image manager, in the same order, from the same original).
/// `photos worker` runs one; `photos serve` runs one of its own unless told not to.
public final class RenderingWorker: Sendable {
    /// What a worker did.
    public struct Report: Sendable, Codable, Equatable {
        /// Items whose renderings were made (or found not needed: a movie that browsers play as it is).
        public var done = 0
        /// Items that failed this time (given back, to be tried again later).
        public var failed = 0
        /// Items that no longer needed doing (the asset was edited again or deleted).
        public var moot = 0
        /// A report of nothing done yet (or of these counts).
        public init(done: Int = 0, failed: Int = 0, moot: Int = 0) {
            self.done = done
            self.failed = failed
            self.moot = moot
        }
    }

    /// The renderings made for each item, largest first (the smaller ones are made from it): exactly the requests
    /// of the gallery's grid (128, 256 and 512 px, filled), the API's default (256 px, fitted) and a display size.
    static let renderings: [(width: Int, height: Int, mode: String)] = [
        (1024, 1024, "fit"), (512, 512, "fill"), (256, 256, "fill"), (128, 128, "fill"), (256, 256, "fit"),
    ]

    private let library: PHPhotoLibrary
    private let queue: LibraryWorkQueue
    private let identity: String
    private let lease: Duration
    private let logger: Logger

    /// A worker of the library at `libraryURL` (opened as its owner).
    /// - parameters:
    ///   - identity: who claims (the host name and process id unless given), as the queue records it.
    ///   - lease: how long a claimed item is this worker's before others may take it.
    public convenience init(libraryURL: URL, identity: String? = nil, lease: Duration = .seconds(300), logger: Logger) throws {
        try self.init(library: PHPhotoLibrary(url: libraryURL, clientIdentifier: nil), identity: identity, lease: lease, logger: logger)
    }

    init(library: PHPhotoLibrary, identity: String? = nil, lease: Duration = .seconds(300), logger: Logger) throws {
        if let reason = library.unavailabilityReason { throw reason }
        self.library = library
        self.queue = try LibraryWorkQueue(library)
        self.identity = identity ?? "\(ProcessInfo.processInfo.hostName):\(getpid())"
        self.lease = lease
        self.logger = logger
    }

    /// How many items the queue holds: waiting, held by a worker, and given up after repeated failures.
    public func status() throws -> (queued: Int, claimed: Int, failed: Int) {
        let status = try queue.status()
        return (status.queued, status.claimed, status.failed)
    }

    /// Claims and does one item, blocking; false when the queue had none to give.
    @discardableResult
    public func workOne(report: inout Report) throws -> Bool {
        guard let item = try queue.claim(worker: identity, lease: lease) else { return false }
        guard queue.isCurrent(item) else {
            try queue.finish(item)
            report.moot += 1
            return true
        }
        do {
            if item.isWebVideo { try makeWebVideo(assetIdentifier: item.assetIdentifier) } else { try render(assetIdentifier: item.assetIdentifier) }
            try queue.finish(item)
            report.done += 1
        } catch {
            // Tried again later, later after each failure; given up after a few (the status says so).
            let delay = Duration.seconds(30 * item.attempts * item.attempts)
            logger.warning("rendering \(item.assetIdentifier) failed (attempt \(item.attempts)): \(error)")
            try queue.fail(item, error: "\(error)", retryAfter: delay)
            report.failed += 1
        }
        return true
    }

    /// Works until the queue has nothing to give, blocking; `progress` hears the report after each item.
    public func drain(progress: ((Report) -> Void)? = nil) throws -> Report {
        var report = Report()
        while try workOne(report: &report) { progress?(report) }
        return report
    }

    /// Works until the task is cancelled: drains the queue, then waits for a commit of the library (by any process)
    /// or for half a minute (a lease that ran out, a failed item's time to retry), and drains again.
    public func run() async {
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        // Listening starts here, before the first drain: a commit during it wakes the next one. (A wake-up, not a
        // described change: the queue is read for what to do.)
        let commits = library.commitWakeUps
        let watcher = Task {
            for await _ in commits { wake.yield() }
        }
        let timer = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(30))
                wake.yield()
            }
        }
        defer {
            watcher.cancel()
            timer.cancel()
            wake.finish()
        }
        wake.yield()
        for await _ in wakes {
            if Task.isCancelled { break }
            do {
                let report = try await offload { try self.drain() }
                if report != Report() { logger.info("background work: \(report.done) done, \(report.failed) failed, \(report.moot) moot") }
            } catch {
                logger.error("background work stopped until the next commit: \(error)")
            }
        }
    }

    /// The asset's web video, unless its movie plays in browsers as it is.
    func makeWebVideo(assetIdentifier: String) throws {
        guard let asset = fetch(assetIdentifier), let video = LibraryWebVideo(asset) else { return }
        let outcome = try video.make()
        logger.debug("web video of \(assetIdentifier): \(outcome)")
    }

    private func fetch(_ identifier: String) -> PHAsset? {
        let options = PHFetchOptions()
        options.photoLibrary = library
        options.includeHiddenAssets = true
        options.includeAllBurstAssets = true
        if let asset = PHAsset.fetchAssets(withLocalIdentifiers: [identifier], options: options).firstObject { return asset }
        // In Recently Deleted: restored, it is shown again, with the renderings made now.
        let album = PHFetchOptions()
        album.photoLibrary = library
        return RecentlyDeleted.asset(identifier, options: options, albumOptions: album)
    }

    /// The renderings of an asset, made through a new image manager (so that no earlier item's renderings
    /// shape them) that keeps them as the library's derivatives.
    func render(assetIdentifier: String) throws {
        guard let asset = fetch(assetIdentifier) else { return }  // deleted for good meanwhile: nothing to show
        let manager = PHCachingImageManager()
        for rendering in Self.renderings {
            _ = try ImageRoutes.render(
                asset, width: rendering.width, height: rendering.height, mode: rendering.mode, version: .current, manager: manager)
        }
    }
}
