import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import OpenPhotos
import Synchronization

/// Uploads in two steps, as Google Photos' API does: `POST /v1/uploads?filename=NAME` streams the bytes to a private
/// file (never the whole file in memory) and answers an upload id; `POST /v1/assets {"uploads": [ids]}` imports them
/// together with `importItems(at:)` — content sniffed, duplicates answered with the existing asset, a still and a
/// video of one Live Photo joined. Uploads not used within an hour are removed.
struct UploadRoutes {
    let services: ServerServices

    func register(on group: RouterGroup<PhotosRequestContext>) {
        group.post("uploads") { request, context in try await upload(request, context: context) }
        group.post("assets") { request, context in try await create(request, context: context) }
    }

    func upload(_ request: Request, context: PhotosRequestContext) async throws -> Response {
        let session = try context.client()
        try session.requireAdd()
        let query = try Query(request, allowed: ["filename"])
        let name = try Uploads.safeName(query["filename"] ?? "upload")
        let (id, file, written, sha256) = try await receiveBody(request, name: name, client: session.identifier)
        if services.uploads.isShared {
            // Stored and recorded in the library before it is answered: any node can import it now.
            let upload = LibrarySharedUpload(id: id, client: session.identifier, name: name, size: Int64(written), sha256: sha256)
            do { try await offload { try services.owner.shareUpload(upload, file: file) } } catch {
                services.uploads.discard(id)
                throw error
            }
        }
        return try ChangeRoutes.json(["upload": id, "size": written, "filename": name], status: .created)
    }

    /// Streams a request's body into a new upload file of `client` (never the whole body in memory), within the
    /// server's limits on one upload and on what a client has waiting; answers the upload's id, file, size and SHA-256.
    func receiveBody(_ request: Request, name: String, client: String) async throws -> (id: String, file: URL, size: Int, sha256: String) {
        let limit = services.configuration.maximumUploadSize
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw APIError.tooLarge("the upload is larger than \(limit) bytes")
        }
        let quota = services.configuration.maximumPendingUploadBytes
        let (uploads, maximumCount) = (services.uploads, services.configuration.maximumPendingUploads)
        @Sendable func reserve() throws -> (Int, (id: String, file: URL, handle: FileHandle)) {
            (uploads.pendingBytes(of: client), try uploads.reserve(name: name, client: client, maximumCount: maximumCount))
        }
        // Not on the event loop: creating the file allocates an inode (ext4 may scan its inode table for one, a
        // tenth of the server's processor time in a backup), and shared uploads are counted in the library's database.
        let reserved = try await offload(reserve)
        let (waiting, (id, file, handle)) = (reserved.0, (reserved.1.id, reserved.1.file, reserved.1.handle))
        var written = 0
        // Hashed as it is written (the import then trusts the digest of the server's own file instead of reading it
        // again); the writes run one after another, so the hasher is never used by two threads at once.
        let hasher = Mutex(SHA256())
        // Written about 1 MiB at a time (the body arrives in small buffers, a system call each otherwise) without
        // copying them together, on a dispatch queue: a disk that stalls must not stall the event loop reading other
        // requests. Each write goes on while the next MiB is received (one write in flight, one MiB waiting: memory
        // stays bounded when the disk is slower than the network), in order.
        let write = { @Sendable (pieces: [ByteBuffer]) throws in
            for piece in pieces {
                try handle.write(contentsOf: piece.readableBytesView)
                piece.withUnsafeReadableBytes { bytes in hasher.withLock { $0.update(bufferPointer: bytes) } }
            }
        }
        var inFlight: Task<Void, any Error>?
        do {
            var pending: [ByteBuffer] = []
            var pendingBytes = 0
            for try await buffer in request.body {
                written += buffer.readableBytes
                guard written <= limit else { throw APIError.tooLarge("the upload is larger than \(limit) bytes") }
                guard waiting + written <= quota else {
                    throw APIError.tooLarge(
                        "this client's uploads waiting to be imported would exceed \(quota) bytes: import them (POST /v1/assets) first")
                }
                pending.append(buffer)
                pendingBytes += buffer.readableBytes
                if pendingBytes >= 1 << 20 {
                    let (pieces, before) = (pending, inFlight)
                    inFlight = Task {
                        try await before?.value; try await offload { try write(pieces) }
                    }
                    pending.removeAll(keepingCapacity: true)
                    pendingBytes = 0
                    try await before?.value
                }
            }
            let (pieces, before) = (pending, inFlight)
            inFlight = nil
            try await before?.value
            if !pieces.isEmpty { try await offload { try write(pieces) } }
            try handle.close()
        } catch {
            // No write may land after the file is removed.
            _ = try? await inFlight?.value
            try? handle.close()
            services.uploads.discard(id)
            throw error
        }
        guard written > 0 else {
            services.uploads.discard(id)
            throw APIError.badRequest("the upload is empty")
        }
        let sha256 = hasher.withLock { $0.finalize() }.map { String(format: "%02x", $0) }.joined()
        services.uploads.finished(id, size: written, sha256: sha256)
        return (id, file, written, sha256)
    }

    func create(_ request: Request, context: PhotosRequestContext) async throws -> Response {
        let session = try context.client()
        try session.requireAdd()
        let body = try await JSONBody(request, context: context, allowed: ["uploads"])
        guard let ids = try body.strings("uploads", limit: 1000), !ids.isEmpty else {
            throw APIError.badRequest("give \"uploads\": the ids POST /v1/uploads answered")
        }
        guard Set(ids).count == ids.count else { throw APIError.badRequest("an upload is listed twice") }
        // One folder for the request's files (moved there): a still and a video without content identifiers pair by
        // name only within one folder, as on a camera's card.
        let uploads = services.uploads
        let client = session.identifier
        let batch = try await offload { try uploads.batch(ids, client: client) }
        defer {
            try? FileManager.default.removeItem(at: batch.folder)
            for id in ids { services.uploads.discard(id) }
        }
        // Moved, not copied: the uploads sit in the library's folder, so each byte is written once (hard links).
        let digests = Dictionary(
            batch.files.compactMap { entry in entry.sha256.map { (entry.file.standardizedFileURL.path, $0) } }, uniquingKeysWith: { a, _ in a })
        let report = try await offload {
            try session.library.importItems(at: batch.files.map(\.file), movingFiles: true, knownSHA256: digests)
        }
        // Imported (or refused for good): no node imports them again.
        if services.uploads.isShared { try? await offload { try services.owner.removeSharedUploads(ids) } }
        let uploadsByPath = Dictionary(batch.files.map { ($0.file.standardizedFileURL.path, $0.id) }, uniquingKeysWith: { first, _ in first })
        func upload(_ url: URL) -> String { uploadsByPath[url.standardizedFileURL.path] ?? url.lastPathComponent }
        let json: [String: Any] = [
            "created": report.importedLocalIdentifiers.map(ObjectID.urlForm),
            "livePhotosPaired": report.livePhotosPaired,
            "rawPairsJoined": report.rawPairsJoined,
            "editsKept": report.editsKept,
            "duplicates": report.duplicates.map { duplicate -> [String: Any] in
                var entry: [String: Any] = ["upload": upload(duplicate.file)]
                if let existing = duplicate.existingLocalIdentifier { entry["existing"] = ObjectID.urlForm(existing) }
                if let same = duplicate.sameAs { entry["sameAs"] = upload(same) }
                return entry
            },
            "failures": report.failures.map { ["upload": upload($0.file), "reason": $0.reason] },
        ]
        // Some files refused: 207 with the reasons (the others were imported); every file refused: 422.
        let status: HTTPResponse.Status =
            report.failures.isEmpty
            ? .ok : (report.failures.count == ids.count ? .unprocessableContent : .init(code: 207, reasonPhrase: "Multi-Status"))
        return try ChangeRoutes.json(json, status: status)
    }
}

/// The server's pending uploads: files in a folder of this server process that the library gives it
/// (``OpenPhotos/PHPhotoLibrary/makeUploadsFolder()``: on the library's file system, so importing them is a hard
/// link), each owned by the client that sent it. A folder left by a server that died is removed by the next process
/// that opens the library for writing — never one whose process lives.
final class Uploads: Sendable {
    private let library: PHPhotoLibrary
    private let owned: Mutex<LibraryUploadsFolder>
    private let pending = Mutex<[String: (client: String, name: String, file: URL, date: Date, digest: (size: Int, sha256: String)?)]>([:])

    /// When uploads past their time were last removed from the library's shared uploads.
    private let lastSharedExpiry = Mutex(Date.distantPast)
    /// Whether uploads are shared by the library's nodes (its files are in object storage): each upload is stored
    /// and recorded in the library when it is received, and a node imports uploads other nodes received.
    let isShared: Bool

    init(library: PHPhotoLibrary) throws {
        self.library = library
        owned = Mutex(try library.makeUploadsFolder())
        isShared = library.sharesUploads
    }

    /// The folder new uploads go to — a new one when this server may have lost the last (a library on a database
    /// server whose connection ended: another node may sweep it). Uploads pending in a lost folder are forgotten: their
    /// clients are told to send them again when they import them.
    private var folder: URL {
        get throws {
            try owned.withLock { current in
                if current.isOwned { return current.url }
                let lost = current.url.path + "/"
                current = try library.makeUploadsFolder()
                pending.withLock { $0 = $0.filter { !$0.value.file.path.hasPrefix(lost) } }
                return current.url
            }
        }
    }

    /// Removes every pending upload and the folder: the server stops.
    func close() { owned.withLock { $0.remove() } }

    /// A name for the upload's file: its last path component, without control characters, at most 200 bytes.
    static func safeName(_ name: String) throws -> String {
        let base = name.split(separator: "/").last.map(String.init) ?? ""
        let cleaned = String(base.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7f }.map(Character.init))
        guard !cleaned.isEmpty, cleaned != ".", cleaned != "..", cleaned.utf8.count <= 200 else {
            throw APIError.badRequest("filename must be a file name of 1 to 200 bytes")
        }
        return cleaned
    }

    /// A new empty file for an upload, open for writing: named by the upload's id (one file, no folder of its own:
    /// creating inodes is what a small upload costs most); the name it was sent with is kept beside it.
    func reserve(name: String, client: String, maximumCount: Int = .max) throws -> (id: String, file: URL, handle: FileHandle) {
        expire()
        // Shared: what the client has waiting on every node.
        let waiting =
            isShared
            ? (try? library.sharedUploadTotals(client: client).count) ?? 0 : pending.withLock { $0.values.filter { $0.client == client }.count }
        guard waiting < maximumCount else {
            throw APIError.tooLarge("this client has \(waiting) uploads waiting to be imported (at most \(maximumCount)): import them first")
        }
        let id = UUID().uuidString.lowercased()
        let file = try folder.appendingPathComponent(id)
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw APIError(status: .internalServerError, domain: PHPhotosErrorDomain, code: -1, message: "cannot store the upload")
        }
        pending.withLock { $0[id] = (client, name, file, Date(), nil) }
        return (id, file, FileHandle(fileDescriptor: descriptor, closeOnDealloc: true))
    }

    /// The uploads moved into one new folder under the names they were sent with (a name given twice goes into a
    /// numbered subfolder, so no file replaces another); the pending entries follow them, so discarding an upload
    /// removes it wherever it is. Nil for an id this client did not upload.
    func batch(_ ids: [String], client: String) throws -> (folder: URL, files: [(id: String, file: URL, sha256: String?)]) {
        let local = pending.withLock { pending in
            ids.map { id -> (String, String, URL, (size: Int, sha256: String))? in
                guard let entry = pending[id], entry.client == client, let digest = entry.digest else { return nil }
                return (id, entry.name, entry.file, digest)
            }
        }
        let batch = try folder.appendingPathComponent("batch-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(at: batch, withIntermediateDirectories: false)
        // Uploads another node received (shared uploads): fetched from the library's object storage into the batch.
        var entries: [(String, String, URL, (size: Int, sha256: String))] = []
        do {
            for (id, entry) in zip(ids, local) {
                // Shared: the library's record says whether it waits still (another node may have imported it).
                let shared = isShared ? try library.sharedUpload(id: id, client: client) : nil
                if isShared, shared == nil {
                    discard(id)
                    throw APIError.notFound("no upload \(id)")
                }
                if let entry {
                    entries.append(entry)
                    continue
                }
                guard let shared else { throw APIError.notFound("no upload \(id)") }
                let file = batch.appendingPathComponent(".fetched-\(id)")
                try library.fetchSharedUpload(shared, to: file)
                pending.withLock { $0[id] = (client, shared.name, file, Date(), (Int(shared.size), shared.sha256)) }
                entries.append((id, shared.name, file, (Int(shared.size), shared.sha256)))
            }
        } catch {
            try? FileManager.default.removeItem(at: batch)
            throw error
        }
        var taken: [String: Int] = [:]
        var moved: [(id: String, file: URL, sha256: String?)] = []
        for (id, name, file, digest) in entries {
            // The digest stands for the file only while it has the size it was written with.
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? -1
            let sha256 = size == digest.size ? digest.sha256 : nil
            let uses = taken[name.lowercased(), default: 0]
            taken[name.lowercased()] = uses + 1
            var parent = batch
            if uses > 0 {
                parent = batch.appendingPathComponent(String(uses))
                try? FileManager.default.createDirectory(at: parent, withIntermediateDirectories: false)
            }
            let target = parent.appendingPathComponent(name)
            guard rename(file.path, target.path) == 0 else {
                moved.append((id, file, sha256))
                continue
            }
            pending.withLock { $0[id]?.file = target }
            moved.append((id, target, sha256))
        }
        return (batch, moved)
    }

    /// Records what the upload's file holds once all of it is written: its SHA-256, which the import trusts as long
    /// as the file still has that size (the file is this server's, written once).
    func finished(_ id: String, size: Int, sha256: String) {
        pending.withLock { $0[id]?.digest = (size, sha256) }
    }

    /// The bytes of `client`'s finished uploads not imported yet.
    func pendingBytes(of client: String) -> Int {
        expire()
        if isShared { return Int((try? library.sharedUploadTotals(client: client).bytes) ?? 0) }
        return pending.withLock { $0.values.filter { $0.client == client }.reduce(0) { $0 + ($1.digest?.size ?? 0) } }
    }

    func discard(_ id: String) {
        guard let entry = pending.withLock({ $0.removeValue(forKey: id) }) else { return }
        try? FileManager.default.removeItem(at: entry.file)
    }

    private func expire() {
        let old = pending.withLock { pending in pending.filter { Date().timeIntervalSince($0.value.date) > 3600 }.map(\.key) }
        for id in old { discard(id) }
        // Shared uploads past their time, once a minute by each node (their bytes are left to orphan collection).
        guard isShared else { return }
        let due = lastSharedExpiry.withLock { last in
            guard Date().timeIntervalSince(last) > 60 else { return false }
            last = Date()
            return true
        }
        if due { try? library.expireSharedUploads(olderThan: 3600) }
    }
}
