import Foundation
import HTTPTypes
import Hummingbird
import JSONWriting
import Logging
import NIOCore
import OpenPhotos
import ServiceLifecycle

/// `/v1/changes`: transactions (`POST`, a list of change requests applied all or nothing), the persistent history
/// since a token (`GET ?since=`, paged; 410 when the token expired) and its live form as server-sent events
/// (`GET /v1/changes/stream`, each event's id the token after it, resumable with `Last-Event-ID`).
struct ChangeRoutes {
    let services: ServerServices

    func register(on group: RouterGroup<PhotosRequestContext>) {
        group.post("changes") { request, context in
            let session = try context.client()
            let buffer = try await JSONBody.collect(request, context: context)
            guard let object = try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any] else {
                throw APIError.badRequest("the body must be a JSON object {\"changes\": [...]}")
            }
            let body = try JSONBody(object, allowed: ["changes", "requests"], path: "body")
            if let requests = body.fields["requests"] {
                // A remote PhotoKit client's change block: its change requests one for one.
                guard body.fields["changes"] == nil, let requests = requests as? [Any] else {
                    throw APIError.badRequest("\"requests\" must be a list of change requests, without \"changes\"")
                }
                // A created asset's resources are uploads of this client (POST /v1/uploads), moved into the library.
                let uploads = services.uploads
                let client = session.identifier
                var taken: [(id: String, folder: URL)] = []
                defer {
                    for (id, folder) in taken {
                        try? FileManager.default.removeItem(at: folder)
                        uploads.discard(id)
                    }
                }
                let block = try ServedChangeBlock(requests) { id in
                    let batch = try uploads.batch([id], client: client)
                    taken.append((id, batch.folder))
                    guard let file = batch.files.first?.file else { throw APIError.notFound("no upload \(id)") }
                    return file
                }
                let library = session.library
                try await offload { try library.applyServedChangeBlock(block) }
                if uploads.isShared, !taken.isEmpty {
                    let ids = taken.map(\.id)
                    try? await offload { try services.owner.removeSharedUploads(ids) }
                }
                return try Self.json(["token": FeedToken.encode(session.library.currentChangeToken), "created": [String: String]()], status: .ok)
            }
            guard let changes = body.fields["changes"] as? [[String: Any]] else { throw APIError.badRequest("\"changes\" must be a list of objects") }
            let list = try ChangeList(session: session, changes: changes)
            let created = try await offload { try list.apply() }
            let token = FeedToken.encode(session.library.currentChangeToken)
            let json: [String: Any] = [
                "token": token, "created": Dictionary(uniqueKeysWithValues: created.map { (String($0.key), ObjectID.urlForm($0.value)) }),
            ]
            return try Self.json(json, status: .ok)
        }
        group.get("changes/token") { request, context in
            let session = try context.client()
            try session.requireRead()
            return try Self.json(["token": FeedToken.encode(session.library.currentChangeToken)], status: .ok)
        }
        group.get("changes") { request, context in
            let session = try context.client()
            let query = try Query(request, allowed: ["since", "limit"])
            guard let since = query["since"] else { throw APIError.badRequest("give since=TOKEN (GET /v1/changes/token gives the current one)") }
            let token = try Self.token(since)
            let limit = try query.integer("limit", default: 500, in: 1...5000)
            return try await offload {
                let changes = try session.library.fetchPersistentChanges(since: token)
                var events: [FeedEvent] = []
                var more = false
                for change in changes {
                    if events.count == limit {
                        more = true
                        break
                    }
                    events.append(contentsOf: try ChangeFeed.events([change]))
                }
                let next = events.last?.token ?? since
                let body = "{\"changes\":[\(events.map(\.json).joined(separator: ","))],\"more\":\(more),\"token\":\"\(next)\"}"
                var headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"]
                headers[.contentLength] = String(body.utf8.count)
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
            }
        }
        group.get("changes/stream") { request, context in try await stream(request, context: context) }
    }

    static func token(_ text: String) throws -> PHPersistentChangeToken {
        guard let token = FeedToken.decode(text) else { throw APIError.badRequest("\(text.prefix(80).debugDescription) is not a change token") }
        return token
    }

    static func json(_ object: [String: Any], status: HTTPResponse.Status) throws -> Response {
        // Keys sorted: the same answer is the same bytes.
        let data = try JSONText.data(object, sortedKeys: true)
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Server-sent events: first what the client missed since `Last-Event-ID` (or `since`), then every commit as
    /// it happens, each exactly once and in order; a comment every 15 s keeps proxies from closing the stream. The
    /// stream ends at the first event or heartbeat after its token is revoked or its client's grant withdrawn.
    func stream(_ request: Request, context: PhotosRequestContext) async throws -> Response {
        let session = try context.client()
        let query = try Query(request, allowed: ["since"])
        let start: PHPersistentChangeToken
        // An empty Last-Event-ID (a client that has seen no event yet) is the same as none.
        if let resume = request.headers[.lastEventID].flatMap({ $0.isEmpty ? nil : $0 }) ?? query["since"] {
            start = try Self.token(resume)
        } else {
            try session.requireRead()
            start = session.library.currentChangeToken
        }
        // Subscribe before reading the history, so nothing committed in between is lost; duplicates are dropped
        // by transaction number.
        let live = services.feed.subscribe()
        let missed = try await offload { try ChangeFeed.events(session.library.fetchPersistentChanges(since: start)) }
        let feed = services.feed
        let services = self.services
        let token = try AuthenticationMiddleware.token(request.headers, method: request.method)
        // Checked again before each event and heartbeat: a revoked token or a withdrawn grant ends the stream.
        @Sendable func stillAllowed() async -> Bool {
            (try? await offload {
                services.invalidateIfChanged()
                guard let token, try services.client(forToken: token) == session.identifier else { return false }
                try session.requireRead()
                return true
            }) ?? false
        }
        let body = ResponseBody { writer in
            var sent = missed.last?.transaction ?? start.transactionNumber
            try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
            for event in missed { try await writer.write(ByteBuffer(string: Self.frame(event))) }
            let heartbeat = AsyncStream<FeedEvent?> { continuation in
                let task = Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .seconds(15))
                        continuation.yield(nil)
                    }
                }
                continuation.onTermination = { _ in task.cancel() }
            }
            try await withGracefulShutdownHandler {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    let (merged, continuation) = AsyncStream<FeedEvent?>.makeStream()
                    group.addTask {
                        for await event in live { continuation.yield(event) }
                        continuation.finish()
                    }
                    group.addTask {
                        for await beat in heartbeat { continuation.yield(beat) }
                    }
                    for await item in merged {
                        guard await stillAllowed() else { break }
                        guard let event = item else {
                            try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                            continue
                        }
                        guard event.transaction > sent else { continue }
                        sent = event.transaction
                        try await writer.write(ByteBuffer(string: Self.frame(event)))
                    }
                    group.cancelAll()
                }
            } onGracefulShutdown: {
                feed.finishAll()
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-store", .init("X-Accel-Buffering")!: "no"],
            body: body)
    }

    static func frame(_ event: FeedEvent) -> String { "id: \(event.token)\nevent: change\ndata: \(event.json)\n\n" }
}

extension HTTPField.Name {
    static let lastEventID = Self("Last-Event-ID")!
    static let link = Self("Link")!
}
