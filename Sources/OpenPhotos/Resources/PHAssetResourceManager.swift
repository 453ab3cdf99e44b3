import BlockingThreads
import Foundation

#if canImport(Glibc)
    import Glibc
#endif
import PhotoLibraryEngine
import Synchronization

/// Identifies a data request of ``PHAssetResourceManager`` (0 is never used).
public typealias PHAssetResourceDataRequestID = Int32

/// Reports how much of a resource has been read, from 0 to 1.
public typealias PHAssetResourceProgressHandler = @Sendable (Double) -> Void

/// Options for reading a resource's bytes.
open class PHAssetResourceRequestOptions: NSObject, NSCopying, @unchecked Sendable {
    /// Whether the resource may be read over the network when this machine has no copy of it (a library whose
    /// files are in object storage; Apple's: iCloud). Without it such a request ends with `networkAccessRequired`.
    /// A library whose files are in its folder never needs it.
    open var isNetworkAccessAllowed = false
    /// Called on the request's serial queue after each chunk, with the fraction read so far.
    open var progressHandler: PHAssetResourceProgressHandler?

    /// Default options: no network access, no progress handler.
    public override init() {}

    /// A copy with the same settings.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = PHAssetResourceRequestOptions()
        copy.isNetworkAccessAllowed = isNetworkAccessAllowed
        copy.progressHandler = progressHandler
        return copy
    }
}

/// Reads the stored bytes of asset resources: streamed in chunks, never the whole file in memory.
open class PHAssetResourceManager: NSObject, @unchecked Sendable {
    private static let shared = PHAssetResourceManager()
    /// The size of each chunk handed to `dataReceivedHandler`.
    static let chunkSize = 1 << 20

    private let requests = Mutex<(next: Int32, cancelled: Set<Int32>, running: Set<Int32>)>((1, [], []))

    /// A manager of its own (``default()`` is the shared one).
    public override init() {}

    /// The shared resource manager.
    open class func `default`() -> PHAssetResourceManager { shared }

    /// Streams a resource's bytes: `handler` receives consecutive chunks (at least one call for a non-empty
    /// file; their concatenation is the file), then `completionHandler` gets nil, or the error that stopped the
    /// read (`userCancelled` after ``cancelDataRequest(_:)``). Both run on one serial queue that is not the
    /// caller's; a chunk's `Data` is only guaranteed for the duration of the call.
    @discardableResult
    open func requestData(
        for resource: PHAssetResource, options: PHAssetResourceRequestOptions?, dataReceivedHandler handler: @escaping (Data) -> Void,
        completionHandler: @escaping ((any Error)?) -> Void
    ) -> PHAssetResourceDataRequestID {
        let id = begin()
        let progress = options?.progressHandler
        let network = options?.isNetworkAccessAllowed ?? false
        nonisolated(unsafe) let handler = handler
        nonisolated(unsafe) let completionHandler = completionHandler
        BlockingThreads.run {
            let error = self.stream(resource, id: id, network: network, progress: progress) { handler($0) }
            self.end(id)
            completionHandler(error)
        }
        return id
    }

    /// Writes a resource's bytes to a new file, chunk by chunk, then calls `completionHandler` (nil, or the error).
    /// The file appears complete or not at all (written beside it, then renamed); an existing file is an error.
    open func writeData(
        for resource: PHAssetResource, toFile fileURL: URL, options: PHAssetResourceRequestOptions?,
        completionHandler: @escaping ((any Error)?) -> Void
    ) {
        let id = begin()
        let progress = options?.progressHandler
        let network = options?.isNetworkAccessAllowed ?? false
        nonisolated(unsafe) let completionHandler = completionHandler
        BlockingThreads.run {
            defer { self.end(id) }
            if FileManager.default.fileExists(atPath: fileURL.path) {
                completionHandler(CocoaError(.fileWriteFileExists, userInfo: [NSFilePathErrorKey: fileURL.path]))
                return
            }
            // A short temporary name (a long original name plus a suffix would pass NAME_MAX), linked into place
            // at the end: link(2) fails rather than replace a file that appeared meanwhile.
            let temporary = fileURL.deletingLastPathComponent().appendingPathComponent(".opk-\(UUID().uuidString).partial")
            let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                completionHandler(Self.fileError(errno, fileURL))
                return
            }
            let output = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
            var writeError: (any Error)?
            var error = self.stream(resource, id: id, network: network, progress: progress) { chunk in
                guard writeError == nil else { return }
                do { try output.write(contentsOf: chunk) } catch { writeError = error }
            }
            error = error ?? writeError
            if error == nil {
                do {
                    try output.synchronize()
                    try output.close()
                    if link(temporary.path, fileURL.path) != 0 { error = Self.fileError(errno, fileURL) }
                } catch let failure {
                    error = failure
                }
            } else {
                try? output.close()
            }
            // Gone before the caller hears of it (a caller may exit as soon as it does).
            unlink(temporary.path)
            completionHandler(error)
        }
    }

    /// Writes a resource's bytes to a new file.
    open func writeData(for resource: PHAssetResource, toFile fileURL: URL, options: PHAssetResourceRequestOptions?) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            writeData(for: resource, toFile: fileURL, options: options) { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    /// The Cocoa error for a failed file operation on `url`, from errno.
    static func fileError(_ code: Int32, _ url: URL) -> CocoaError {
        let kind: CocoaError.Code
        switch code {
        case EEXIST: kind = .fileWriteFileExists
        case EACCES, EPERM: kind = .fileWriteNoPermission
        case ENOSPC, EDQUOT: kind = .fileWriteOutOfSpace
        case EROFS: kind = .fileWriteVolumeReadOnly
        case ENAMETOOLONG: kind = .fileWriteInvalidFileName
        case ENOENT: kind = .fileNoSuchFile
        default: kind = .fileWriteUnknown
        }
        return CocoaError(
            kind, userInfo: [NSFilePathErrorKey: url.path, NSLocalizedDescriptionKey: "\(url.lastPathComponent): \(String(cString: strerror(code)))"])
    }

    /// Stops a data request: no chunk is delivered after the next check, and its completion gets `userCancelled`.
    open func cancelDataRequest(_ requestID: PHAssetResourceDataRequestID) {
        requests.withLock { state in
            if state.running.contains(requestID) { state.cancelled.insert(requestID) }
        }
    }

    private func begin() -> Int32 {
        requests.withLock { state in
            let id = state.next
            state.next = state.next == Int32.max ? 1 : state.next + 1
            state.running.insert(id)
            return id
        }
    }

    private func end(_ id: Int32) {
        requests.withLock { state in
            state.running.remove(id)
            state.cancelled.remove(id)
        }
    }

    private func isCancelled(_ id: Int32) -> Bool { requests.withLock { $0.cancelled.contains(id) } }

    /// Reads the stored file in chunks; returns the error that stopped it, or nil.
    private func stream(
        _ resource: PHAssetResource, id: Int32, network: Bool, progress: PHAssetResourceProgressHandler?, _ deliver: (Data) -> Void
    ) -> (any Error)? {
        guard let library = resource.library, library.access.canRead else {
            return PHPhotosError(.accessUserDenied, userInfo: [NSLocalizedDescriptionKey: "this client may not read the library's resources"])
        }
        let reader: any BlobReader
        if let remote = library.remote {
            // A served library's files are on its server: "in the cloud".
            guard network else {
                return PHPhotosError(
                    .networkAccessRequired,
                    userInfo: [NSLocalizedDescriptionKey: "\(resource.originalFilename) is on the server: allow network access to read it"])
            }
            reader = remote.openResource(resource.record)
        } else {
            guard let engine = library.engineIfAvailable else {
                return PHPhotosError(.libraryVolumeOffline, userInfo: [NSLocalizedDescriptionKey: "the library is not available"])
            }
            if !network, !engine.isLocal(resource.record) {
                return PHPhotosError(
                    .networkAccessRequired,
                    userInfo: [NSLocalizedDescriptionKey: "\(resource.originalFilename) is not on this machine: allow network access to read it"])
            }
            do { reader = try engine.open(resource.record) } catch {
                let missing = error.code == LibraryError.missingResource("").code
                return missing
                    ? PHPhotosError(
                        .missingResource, userInfo: [NSLocalizedDescriptionKey: "the stored file of \(resource.originalFilename) is missing"])
                    : PHPhotosError(error)
            }
        }
        let total = max(reader.size, 1)
        var done: Int64 = 0
        while true {
            if isCancelled(id) { return PHPhotosError(.userCancelled) }
            let chunk: Data
            do { chunk = try reader.read(at: done, count: Self.chunkSize) } catch { return PHPhotosError(error) }
            if chunk.isEmpty { break }
            deliver(chunk)
            done += Int64(chunk.count)
            progress?(min(1, Double(done) / Double(total)))
        }
        if isCancelled(id) { return PHPhotosError(.userCancelled) }
        return nil
    }
}
