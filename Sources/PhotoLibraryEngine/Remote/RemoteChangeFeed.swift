import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// One committed transaction of a served library, as its change feed tells it (`GET /v1/changes/stream`).
package struct RemoteChangeEvent: Sendable {
    /// The change token after the transaction (the feed's wire form).
    package var token: String
    /// The client that made it, when the server knows.
    package var clientIdentifier: String?
    /// When it was committed, when the server says.
    package var date: Date?
    /// The local identifiers of the folders among the collections (the rest are albums).
    package var collectionLists: Set<String> = []
    package var insertedAssets: Set<String> = []
    package var updatedAssets: Set<String> = []
    package var deletedAssets: Set<String> = []
    package var insertedCollections: Set<String> = []
    package var updatedCollections: Set<String> = []
    package var deletedCollections: Set<String> = []
    /// Assets whose content (pixels) changed: an edit or a revert.
    package var contentChangedAssets: Set<String> = []

    /// Whether it changed any asset.
    package var touchesAssets: Bool { !insertedAssets.isEmpty || !updatedAssets.isEmpty || !deletedAssets.isEmpty }
    /// Whether it changed any collection.
    package var touchesCollections: Bool { !insertedCollections.isEmpty || !updatedCollections.isEmpty || !deletedCollections.isEmpty }

    /// Reads an event's JSON (`{"token", "client", "assets": {"inserted", "updated", "deleted"}, …}`); identifiers come
    /// in their URL form (`/` as `_`).
    init?(json: Data, token: String) {
        guard let object = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] else { return nil }
        self.token = token
        clientIdentifier = object["client"] as? String
        date = (object["date"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) }
        func identifiers(_ kind: String, _ field: String) -> Set<String> {
            let list = (object[kind] as? [String: Any])?[field] as? [String] ?? []
            return Set(list.map { $0.replacingOccurrences(of: "_", with: "/") })
        }
        insertedAssets = identifiers("assets", "inserted")
        updatedAssets = identifiers("assets", "updated")
        deletedAssets = identifiers("assets", "deleted")
        for kind in ["assetCollections", "collectionLists"] {
            insertedCollections.formUnion(identifiers(kind, "inserted"))
            updatedCollections.formUnion(identifiers(kind, "updated"))
            deletedCollections.formUnion(identifiers(kind, "deleted"))
        }
        for field in ["inserted", "updated", "deleted"] { collectionLists.formUnion(identifiers("collectionLists", field)) }
        contentChangedAssets = Set(((object["contentChangedAssets"] as? [String]) ?? []).map { $0.replacingOccurrences(of: "_", with: "/") })
    }
}

/// A served library's change feed followed for this process's observers: every transaction once, in commit order,
/// to `deliver` on a serial queue — after a disconnection the feed resumes from the last event it delivered
/// (`Last-Event-ID`), so nothing is lost or doubled. A token the server no longer accepts ends it with `ended`.
package final class RemoteChangeFeed: Sendable {
    private let task = Mutex<Task<Void, Never>?>(nil)
    /// Deliveries run here, in order (they may ask the server for details: never on the feed's loop).
    package let queue = DispatchQueue(label: "OpenPhotoKit.remote-changes")

    /// Starts following `library`'s changes after the transaction `token` names (nil: after the newest one when the
    /// server first answers — a server that cannot be reached now is tried again, with the same backoff).
    package init(
        library: RemoteLibrary, after token: String?, deliver: @escaping @Sendable (RemoteChangeEvent) -> Void,
        ended: @escaping @Sendable (LibraryError) -> Void
    ) {
        let queue = self.queue
        let loop = RemoteLibrary.group.next()
        let started = Task(executorPreference: LoopTaskExecutor(loop)) {
            var last = token
            var pause = 0.25
            while !Task.isCancelled {
                guard let from = last else {
                    last = try? await library.fetchChangeToken()
                    if last == nil {
                        try? await Task.sleep(for: .milliseconds(Int(pause * 1000)))
                        pause = min(pause * 2, 5)
                    }
                    continue
                }
                var request = library.makeRequest(.GET, "/v1/changes/stream")
                request.headers.replaceOrAdd(name: "Accept", value: "text/event-stream")
                request.headers.replaceOrAdd(name: "Last-Event-ID", value: from)
                do {
                    // No deadline but the reads': a quiet feed gets a heartbeat every 15 s.
                    let response = try await RemoteLibrary.http.execute(request, timeout: .hours(24 * 365))
                    if response.status.code >= 400 {
                        let body = try await response.body.collect(upTo: 1 << 20)
                        let answer = RemoteLibrary.Answer(
                            status: Int(response.status.code), headers: response.headers, body: Data(body.readableBytesView))
                        let error = RemoteLibrary.error(answer, path: "/v1/changes/stream")
                        if [401, 403, 410].contains(answer.status) {
                            queue.async { ended(error) }
                            return
                        }
                        throw error
                    }
                    pause = 0.25
                    var parser = EventStreamParser()
                    for try await buffer in response.body {
                        for event in parser.feed(buffer.readableBytesView) where event.name == "change" {
                            guard let id = event.id, let change = RemoteChangeEvent(json: Data(event.data.utf8), token: id) else { continue }
                            last = id
                            queue.async { deliver(change) }
                        }
                    }
                } catch {
                    if Task.isCancelled { return }
                }
                // The stream ended (a server that stopped, a revoked token: the next connection says which).
                try? await Task.sleep(for: .milliseconds(Int(pause * 1000)))
                pause = min(pause * 2, 5)
            }
        }
        task.withLock { $0 = started }
    }

    /// Stops following (no delivery starts after this returns).
    package func stop() {
        task.withLock { task in
            task?.cancel()
            task = nil
        }
    }

    deinit { stop() }
}

/// Server-sent events read from a byte stream: `id:`, `event:`, `data:` lines, an empty line ending each event, `:`
/// comments (heartbeats) skipped.
struct EventStreamParser {
    struct Event {
        var id: String?
        var name = "message"
        var data = ""
    }
    private var line: [UInt8] = []
    private var current = Event()
    private var hasData = false

    mutating func feed(_ bytes: some Sequence<UInt8>) -> [Event] {
        var events: [Event] = []
        for byte in bytes {
            if byte != UInt8(ascii: "\n") {
                if line.count < 16 << 20 { line.append(byte) }
                continue
            }
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            let text = String(decoding: line, as: UTF8.self)
            line.removeAll(keepingCapacity: true)
            if text.isEmpty {
                if hasData { events.append(current) }
                current = Event(id: current.id)
                hasData = false
                continue
            }
            if text.hasPrefix(":") { continue }
            let field = text.prefix { $0 != ":" }
            var value = text.dropFirst(field.count)
            if value.hasPrefix(":") { value = value.dropFirst() }
            if value.hasPrefix(" ") { value = value.dropFirst() }
            switch field {
            case "id": current.id = String(value)
            case "event": current.name = String(value)
            case "data":
                current.data += (hasData ? "\n" : "") + value
                hasData = true
            default: break
            }
        }
        return events
    }
}

extension RemoteLibrary {
    /// The change token of the newest transaction, asked from a task (the feed's own).
    func fetchChangeToken() async throws -> String {
        let response = try await Self.http.execute(makeRequest(.GET, "/v1/changes/token"), deadline: .now() + Self.requestDeadline)
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status.code < 400,
            let object = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any],
            let token = object["token"] as? String
        else { throw LibraryError.networkError("/v1/changes/token answered no token") }
        return token
    }

    /// The change token of the newest transaction (`GET /v1/changes/token`), in the feed's wire form.
    package func currentChangeToken() throws(LibraryError) -> String {
        guard let token = try json(.GET, "/v1/changes/token")["token"] as? String else {
            throw .networkError("/v1/changes/token answered no token")
        }
        return token
    }
}
