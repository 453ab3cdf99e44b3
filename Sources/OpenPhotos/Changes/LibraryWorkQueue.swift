import Foundation
import PhotoLibraryEngine

/// OpenPhotoKit: the library's queue of background work that a commit of new content leaves for a worker (`photos
/// worker`, or `photos serve` itself): a movie's web rendering, and in a library whose files are in object storage the
/// renderings (thumbnails, display sizes, video poster frames). Items are claimed with a lease: a worker that dies leaves its item to be
/// claimed again once the lease runs out, and the work is deterministic, so an item done twice makes the same result.
package struct LibraryWorkQueue: Sendable {
    /// One claimed item: make the renderings of an asset's content version, or its movie's web rendering.
    package struct Item: Sendable {
        let item: WorkItem
        /// The asset's local identifier.
        package var assetIdentifier: String { item.assetIdentifier }
        /// Whether it is a movie's web rendering (else the images' renderings).
        package var isWebVideo: Bool { item.kind == .webVideo }
        /// How many times it was claimed, this time included.
        package var attempts: Int { item.attempts }
    }

    /// How many items the queue holds.
    package struct Status: Sendable, Equatable {
        /// Waiting to be claimed.
        package var queued: Int
        /// Held by a worker whose lease has not run out.
        package var claimed: Int
        /// Given up after repeated failures.
        package var failed: Int
    }

    let engine: LibraryEngine

    /// The queue of `library` (opened as its owner).
    package init(_ library: PHPhotoLibrary) throws {
        do { engine = try library.engine() } catch { throw PHPhotosError(error) }
    }

    /// Claims the oldest item nobody holds, for `lease`, as `worker`; nil when there is none.
    package func claim(worker: String, lease: Duration) throws -> Item? {
        do { return try engine.claimWork(worker: worker, lease: Double(lease.components.seconds)).map(Item.init) } catch {
            throw PHPhotosError(error)
        }
    }

    /// Whether the item's asset is still at the content version the item is for.
    package func isCurrent(_ item: Item) -> Bool { engine.isCurrent(item.item) }

    /// Removes a done item.
    package func finish(_ item: Item) throws {
        do { try engine.finishWork(item.item) } catch { throw PHPhotosError(error) }
    }

    /// Gives a failed item back, with its error, to be claimed again after `retryAfter`.
    package func fail(_ item: Item, error: String, retryAfter: Duration) throws {
        do { try engine.failWork(item.item, error: error, retryAfter: Double(retryAfter.components.seconds)) } catch {
            throw PHPhotosError(error)
        }
    }

    /// How many items are queued, claimed and given up.
    package func status() throws -> Status {
        do {
            let status = try engine.workQueueStatus()
            return Status(queued: status.queued, claimed: status.claimed, failed: status.failed)
        } catch { throw PHPhotosError(error) }
    }
}
