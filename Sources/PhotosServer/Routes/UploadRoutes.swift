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
        let limit = services.configuration.maximumUploadSize
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw APIError.tooLarge("the upload is larger than \(limit) bytes")
        }
        let (id, file) = try services.uploads.reserve(name: name, client: session.identifier)
        var written = 0
        do {
            let handle = try FileHandle(forWritingTo: file)
            defer { try? handle.close() }
            // Written in pieces of about 1 MiB (the body arrives in small buffers, each a system call otherwise), on
            // a dispatch queue: a disk that stalls must not stall the event loop reading other requests.
            var pending = ByteBuffer()
            for try await buffer in request.body {
                written += buffer.readableBytes
                guard written <= limit else { throw APIError.tooLarge("the upload is larger than \(limit) bytes") }
                var buffer = buffer
                pending.writeBuffer(&buffer)
                if pending.readableBytes >= 1 << 20 {
                    let piece = pending
                    try await offload { try handle.write(contentsOf: piece.readableBytesView) }
                    pending = ByteBuffer()
                    pending.reserveCapacity(1 << 20 + 65536)
                }
            }
            if pending.readableBytes > 0 {
                let piece = pending
                try await offload { try handle.write(contentsOf: piece.readableBytesView) }
            }
        } catch {
            services.uploads.discard(id)
            throw error
        }
        guard written > 0 else {
            services.uploads.discard(id)
            throw APIError.badRequest("the upload is empty")
        }
        return try ChangeRoutes.json(["upload": id, "size": written, "filename": name], status: .created)
    }

    func create(_ request: Request, context: PhotosRequestContext) async throws -> Response {
        let session = try context.client()
        try session.requireAdd()
        let body = try await JSONBody(request, context: context, allowed: ["uploads"])
        guard let ids = try body.strings("uploads", limit: 1000), !ids.isEmpty else {
            throw APIError.badRequest("give \"uploads\": the ids POST /v1/uploads answered")
        }
        let files = try ids.map { id in
            guard let file = services.uploads.file(id, client: session.identifier) else { throw APIError.notFound("no upload \(id)") }
            return (id, file)
        }
        // One folder for the request's files (moved there): a still and a video without content identifiers pair by
        // name only within one folder, as on a camera's card.
        let batch = try services.uploads.batch(files)
        defer {
            try? FileManager.default.removeItem(at: batch.folder)
            for (id, _) in files { services.uploads.discard(id) }
        }
        // Moved, not copied: the uploads sit in the library's folder, so each byte is written once (hard links).
        let report = try await offload { try session.library.importItems(at: batch.files.map(\.1), movingFiles: true) }
        func upload(_ url: URL) -> String {
            batch.files.first { $0.1.standardizedFileURL == url.standardizedFileURL }?.0 ?? url.lastPathComponent
        }
        let json: [String: Any] = [
            "created": report.importedLocalIdentifiers.map(ObjectID.urlForm),
            "livePhotosPaired": report.livePhotosPaired,
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
            ? .ok : (report.failures.count == files.count ? .unprocessableContent : .init(code: 207, reasonPhrase: "Multi-Status"))
        return try ChangeRoutes.json(json, status: status)
    }
}

/// The server's pending uploads: files in a folder of this server process inside the library's `private/uploads`
/// (the same file system as the library, so importing them is a hard link), each owned by the client that sent it.
/// A folder left by a server that died is removed by the next server to start — never one whose process lives.
final class Uploads: Sendable {
    private let folder: URL
    private let pending = Mutex<[String: (client: String, file: URL, date: Date)]>([:])

    init(libraryURL: URL) throws {
        let parent = libraryURL.appendingPathComponent("private/uploads")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? [] {
            let parts = name.split(separator: "-")
            guard parts.count > 2, parts[0] == "serve", let pid = Int32(parts[1]), pid != getpid() else { continue }
            if kill(pid, 0) != 0, errno == ESRCH { try? FileManager.default.removeItem(at: parent.appendingPathComponent(name)) }
        }
        folder = parent.appendingPathComponent("serve-\(getpid())-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// A name for the upload's file: its last path component, without control characters, at most 200 bytes.
    static func safeName(_ name: String) throws -> String {
        let base = name.split(separator: "/").last.map(String.init) ?? ""
        let cleaned = String(base.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7f }.map(Character.init))
        guard !cleaned.isEmpty, cleaned != ".", cleaned != "..", cleaned.utf8.count <= 200 else {
            throw APIError.badRequest("filename must be a file name of 1 to 200 bytes")
        }
        return cleaned
    }

    func reserve(name: String, client: String) throws -> (String, URL) {
        expire()
        let id = UUID().uuidString.lowercased()
        let directory = folder.appendingPathComponent(id)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        let file = directory.appendingPathComponent(name)
        guard FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw APIError(status: .internalServerError, domain: PHPhotosErrorDomain, code: -1, message: "cannot store the upload")
        }
        pending.withLock { $0[id] = (client, file, Date()) }
        return (id, file)
    }

    /// Moves the files into one new folder under their names (a name taken twice stays where it is); the pending
    /// entries follow them, so discarding an upload removes it wherever it is.
    func batch(_ files: [(String, URL)]) throws -> (folder: URL, files: [(String, URL)]) {
        let batch = folder.appendingPathComponent("batch-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(at: batch, withIntermediateDirectories: false)
        var taken = Set<String>()
        let moved = files.map { id, file -> (String, URL) in
            let name = file.lastPathComponent
            guard taken.insert(name.lowercased()).inserted else { return (id, file) }
            let target = batch.appendingPathComponent(name)
            guard rename(file.path, target.path) == 0 else { return (id, file) }
            pending.withLock { $0[id]?.file = target }
            return (id, target)
        }
        return (batch, moved)
    }

    func file(_ id: String, client: String) -> URL? {
        pending.withLock { $0[id].flatMap { $0.client == client ? $0.file : nil } }
    }

    func discard(_ id: String) {
        guard let entry = pending.withLock({ $0.removeValue(forKey: id) }) else { return }
        // The upload's own folder (named by its id), or only the file when it was moved into a batch.
        let parent = entry.file.deletingLastPathComponent()
        try? FileManager.default.removeItem(at: parent.lastPathComponent == id ? parent : entry.file)
        try? FileManager.default.removeItem(at: folder.appendingPathComponent(id))
    }

    private func expire() {
        let old = pending.withLock { pending in pending.filter { Date().timeIntervalSince($0.value.date) > 3600 }.map(\.key) }
        for id in old { discard(id) }
    }
}
