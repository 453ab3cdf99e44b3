import Foundation
import HTTPTypes
import Logging
import OpenPhotos
import Synchronization

/// One committed transaction of the library as the feed and `/v1/changes` give it.
struct FeedEvent: Sendable {
    /// The token after this change (`PHPersistentChange.changeToken`, wire form), the SSE event id.
    let token: String
    let transaction: Int64
    /// The event's JSON.
    let json: String
}

/// The library's history turned into live events for every connected client.
///
/// One task follows the library (`PHPhotoLibrary.commitWakeUps`: this process's commits at once, other
/// processes' through inotify), reads each new transaction once from the persistent history and hands it to every
/// subscriber, so a hundred clients cost one history read per commit. The task runs only while someone listens.
final class ChangeFeed: Sendable {
    private struct State {
        var subscribers: [Int: AsyncStream<FeedEvent>.Continuation] = [:]
        var nextID = 0
        var follower: Task<Void, Never>?
        var last: PHPersistentChangeToken?
    }

    private let library: PHPhotoLibrary
    private let logger: Logger
    private let state = Mutex(State())

    init(library: PHPhotoLibrary, logger: Logger) {
        self.library = library
        self.logger = logger
    }

    /// Live events from now on (after `token` at the latest), until the stream's consumer goes away.
    func subscribe() -> AsyncStream<FeedEvent> {
        let (stream, continuation) = AsyncStream<FeedEvent>.makeStream(bufferingPolicy: .bufferingNewest(10_000))
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = continuation
            if state.follower == nil {
                // Listen first, then take the position: a commit after the position is always announced. (Started
                // inside the task, the listening would begin whenever the task runs, and a commit in between would
                // wait for the next one.)
                let commits = library.commitWakeUps
                state.last = library.currentChangeToken
                state.follower = Task { [weak self] in await self?.follow(commits) }
            }
            return id
        }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        return stream
    }

    /// Ends every subscriber's stream (graceful shutdown).
    func finishAll() {
        let subscribers = state.withLock { state in
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    private func unsubscribe(_ id: Int) {
        let follower = state.withLock { state -> Task<Void, Never>? in
            state.subscribers[id] = nil
            guard state.subscribers.isEmpty else { return nil }
            defer { state.follower = nil }
            return state.follower
        }
        follower?.cancel()
    }

    private func follow(_ commits: AsyncStream<Void>) async {
        for await _ in commits {
            if Task.isCancelled { break }
            // The history is read with SQLite's blocking calls: not on the event loop that runs this task. A read that
            // failed (the database restarting) is tried again until it succeeds: what was committed meanwhile is
            // published late, never skipped.
            var delay = Duration.milliseconds(200)
            while !Task.isCancelled, (try? await offload { self.publishNewChanges() }) != true {
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            }
        }
    }

    /// Reads what was committed after the last published token and sends it, in order; false when the history could
    /// not be read now (the last token stays: the next read starts from it).
    private func publishNewChanges() -> Bool {
        guard let last = state.withLock({ $0.last }) else { return true }
        let events: [FeedEvent]
        do {
            events = try Self.events(library.fetchPersistentChanges(since: last))
        } catch let error as PHPhotosError where error.code == .persistentChangeTokenExpired {
            // The history was trimmed past it (the server was behind for longer than the history is kept): from now
            // on; a client that reconnects from an older token is told its token expired.
            logger.warning("the change feed's position left the history: \(error)")
            state.withLock { $0.last = library.currentChangeToken }
            return true
        } catch {
            logger.warning("the change feed cannot read the history (trying again): \(error)")
            return false
        }
        guard let newest = events.last else { return true }
        let subscribers = state.withLock { state -> [AsyncStream<FeedEvent>.Continuation] in
            state.last = FeedToken.decode(newest.token)
            return Array(state.subscribers.values)
        }
        for event in events {
            for subscriber in subscribers { subscriber.yield(event) }
        }
        return true
    }

    /// The events of a history fetch, oldest first.
    static func events(_ changes: some Sequence<PHPersistentChange>) throws -> [FeedEvent] {
        var events: [FeedEvent] = []
        for change in changes {
            var body: [String: Any] = [
                "token": FeedToken.encode(change.changeToken), "date": ISO8601.string(from: change.date),
            ]
            if let client = change.clientIdentifier { body["client"] = client }
            for (type, name) in [(PHObjectType.asset, "assets"), (.assetCollection, "assetCollections"), (.collectionList, "collectionLists")] {
                let details = try change.changeDetails(for: type)
                var entry: [String: [String]] = [:]
                if !details.insertedLocalIdentifiers.isEmpty { entry["inserted"] = details.insertedLocalIdentifiers.sorted().map(ObjectID.urlForm) }
                if !details.updatedLocalIdentifiers.isEmpty { entry["updated"] = details.updatedLocalIdentifiers.sorted().map(ObjectID.urlForm) }
                if !details.deletedLocalIdentifiers.isEmpty { entry["deleted"] = details.deletedLocalIdentifiers.sorted().map(ObjectID.urlForm) }
                if !entry.isEmpty { body[name] = entry }
            }
            if !change.contentChangedAssetLocalIdentifiers.isEmpty {
                body["contentChangedAssets"] = change.contentChangedAssetLocalIdentifiers.sorted().map(ObjectID.urlForm)
            }
            let data = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
            events.append(
                FeedEvent(
                    token: FeedToken.encode(change.changeToken), transaction: change.changeToken.transactionNumber,
                    json: String(decoding: data, as: UTF8.self)))
        }
        return events
    }
}

/// Change tokens on the wire: opaque base64url text.
enum FeedToken {
    static func encode(_ token: PHPersistentChangeToken) -> String { token.wireForm }
    static func decode(_ text: String) -> PHPersistentChangeToken? { PHPersistentChangeToken.fromWireForm(text) }
}
