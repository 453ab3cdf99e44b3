import Foundation
import PhotoLibraryEngine
import PhotoMedia

/// OpenPhotoKit: how a request may reach a file that is not on this machine (a library whose files are in object
/// storage and whose original this node has no copy of): PhotoKit's `isNetworkAccessAllowed`, and the
/// `progressHandler` told how far the download got, on a serial queue of the request's own, with the chance to stop it.
struct NetworkAccess: @unchecked Sendable {
    var allowed: Bool
    /// Called with 0…1 as the download goes; false stops it.
    var progress: (@Sendable (Double) -> Bool)?

    /// Nothing but what is local.
    static let local = NetworkAccess(allowed: false, progress: nil)

    init(allowed: Bool, progress: (@Sendable (Double) -> Bool)?) {
        self.allowed = allowed
        self.progress = progress
    }

    /// The access `isNetworkAccessAllowed` gives, with `handler` told the progress (PhotoKit's shape: the fraction, no
    /// error, a flag to set to stop, and the request's id).
    init(allowed: Bool, handler: PHAssetImageProgressHandler?, requestID: PHImageRequestID) {
        self.allowed = allowed
        guard allowed, let handler else {
            progress = nil
            return
        }
        let queue = DispatchQueue(label: "org.openphotokit.image-progress")
        let stopped = StopFlag()
        progress = { fraction in
            // Told on the request's queue, in order; a stop takes effect at the next piece of the download.
            queue.async {
                var stop: ObjCBool = false
                handler(fraction, nil, &stop, [PHImageResultRequestIDKey: NSNumber(value: requestID)])
                if stop.boolValue { stopped.set() }
            }
            return !stopped.isSet
        }
    }

    init(_ options: PHImageRequestOptions, requestID: PHImageRequestID) {
        self.init(allowed: options.isNetworkAccessAllowed, handler: options.progressHandler, requestID: requestID)
    }

    init(_ options: PHVideoRequestOptions?, requestID: PHImageRequestID) {
        self.init(allowed: options?.isNetworkAccessAllowed ?? false, handler: options?.progressHandler, requestID: requestID)
    }

    /// A flag a progress handler sets to stop the download.
    final class StopFlag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        var isSet: Bool { lock.withLock { value } }
        func set() { lock.withLock { value = true } }
    }
}

/// OpenPhotoKit: the stored file of a version, fetched the first time a rendering needs it — not when memory or a
/// cached derivative answers the request — and only as far as the request's ``NetworkAccess`` allows.
final class SourceFile: @unchecked Sendable {
    let engine: LibraryEngine?
    /// The served library whose file it is (downloaded into its cache on this machine).
    let remote: RemoteLibrary?
    let record: ResourceRecord
    /// How messages name it ("the original of …").
    let what: String
    private let lock = NSLock()
    private var resolved: URL?

    init(engine: LibraryEngine?, remote: RemoteLibrary? = nil, record: ResourceRecord, what: String) {
        self.engine = engine
        self.remote = remote
        self.record = record
        self.what = what
    }

    /// Whether reading it needs no network.
    var isLocal: Bool {
        if let url = lock.withLock({ resolved }), FileManager.default.fileExists(atPath: url.path) { return true }
        if let remote { return remote.hasLocalCopy(of: record) }
        return engine?.isLocal(record) ?? false
    }

    /// Whether the file it was fetched to has gone since (another process committed an edit or a revert; a cached
    /// copy was evicted): the asset's version is to be looked up again.
    var isGone: Bool {
        guard let url = lock.withLock({ resolved }) else { return false }
        return !FileManager.default.fileExists(atPath: url.path)
    }

    /// The file's path on this machine: fetched when it is not here and `network` allows it.
    /// - throws: `PHPhotosError` — `networkAccessRequired` when it is not here and the network is not allowed,
    ///   `networkError` when fetching failed, `userCancelled` when the progress handler stopped it, `missingResource`.
    func url(_ network: NetworkAccess) throws -> URL {
        if let url = lock.withLock({ resolved }), FileManager.default.fileExists(atPath: url.path) { return url }
        if let remote {
            let url: URL
            do { url = try remote.localCopy(of: record, allowNetwork: network.allowed, progress: network.progress) } catch {
                throw PHPhotosError(
                    PHPhotosError.Code(rawValue: error.code) ?? .networkError, userInfo: [NSLocalizedDescriptionKey: "\(what): \(error.message)"])
            }
            lock.withLock { resolved = url }
            return url
        }
        guard let engine else { throw PHPhotosError(.missingResource, userInfo: [NSLocalizedDescriptionKey: "\(what) is missing"]) }
        if !network.allowed, !engine.isLocal(record) {
            throw PHPhotosError(
                .networkAccessRequired,
                userInfo: [NSLocalizedDescriptionKey: "\(what) is not on this machine: allow network access to fetch it"])
        }
        let url: URL
        do {
            url = try engine.materialize(record, progress: network.progress)
        } catch {
            let missing = error.code == LibraryError.missingResource("").code
            throw PHPhotosError(
                PHPhotosError.Code(rawValue: error.code) ?? .internalError,
                userInfo: [NSLocalizedDescriptionKey: missing ? "\(what) is missing" : error.message])
        }
        lock.withLock { resolved = url }
        return url
    }

    /// The file to be read by ranges, when it is not on this machine and `network` allows fetching it: a movie's poster
    /// frame reads where its index and first samples are, not the whole file. Nil when the file is here (read it by
    /// its path). `progress` hears 0 before the first range and 1 after the last; a stop there ends the reading.
    /// - throws: `PHPhotosError`, as ``url(_:)``.
    func rangedSource(_ network: NetworkAccess) throws -> RangedMediaSource? {
        guard engine != nil || remote != nil, !isLocal else { return nil }
        if !network.allowed {
            throw PHPhotosError(
                .networkAccessRequired,
                userInfo: [NSLocalizedDescriptionKey: "\(what) is not on this machine: allow network access to fetch it"])
        }
        let reader: any BlobReader
        do throws(LibraryError) {
            if let remote { reader = remote.openResource(record) } else { reader = try engine!.open(record) }
        } catch {
            let missing = error.code == LibraryError.missingResource("").code
            throw PHPhotosError(
                PHPhotosError.Code(rawValue: error.code) ?? .internalError,
                userInfo: [NSLocalizedDescriptionKey: missing ? "\(what) is missing" : error.message])
        }
        let progress = network.progress
        if progress?(0) == false { throw PHPhotosError(.userCancelled, userInfo: [NSLocalizedDescriptionKey: "the request was stopped"]) }
        let what = self.what
        return RangedMediaSource(size: reader.size, name: what) { offset, count in
            do { return try reader.read(at: offset, count: count) } catch let error as LibraryError {
                throw PHPhotosError(PHPhotosError.Code(rawValue: error.code) ?? .networkError, userInfo: [NSLocalizedDescriptionKey: error.message])
            }
        }
    }

    /// Whether `error` is one of fetching the file (kept as it is in a result, not wrapped as a rendering failure).
    static func isFetchError(_ error: PHPhotosError) -> Bool {
        [.networkAccessRequired, .networkError, .userCancelled, .missingResource].contains(error.code)
    }
}
