import Foundation
import PhotoLibraryEngine

/// The changes since a token, oldest first. A `Sequence` that reads the history in pages as you iterate, so a
/// long history is never held in memory at once.
public final class PHPersistentChangeFetchResult: NSObject, Sequence, @unchecked Sendable {
    let engine: LibraryEngine?
    /// A served library's: its history read in pages from the server, the first one read when fetched.
    let remote: RemoteLibrary?
    let firstRemotePage: [(token: String, entry: RemoteChangeEvent)]
    let libraryUUID: String
    let after: Int64
    /// The newest transaction when the result was made: iteration stops there.
    let through: Int64
    static let pageSize = 500

    init(engine: LibraryEngine, libraryUUID: String, after: Int64, through: Int64) {
        self.engine = engine
        self.remote = nil
        self.firstRemotePage = []
        self.libraryUUID = libraryUUID
        self.after = after
        self.through = through
    }

    init(
        remote: RemoteLibrary, libraryUUID: String, after: Int64, through: Int64,
        first: (changes: [(token: String, entry: RemoteChangeEvent)], more: Bool, next: String)
    ) {
        self.engine = nil
        self.remote = remote
        self.firstRemotePage = first.changes
        self.libraryUUID = libraryUUID
        self.after = after
        self.through = through
    }

    /// The changes of a served library's history page, as this library's (`changeToken`s the server's).
    static func remoteChanges(_ page: [(token: String, entry: RemoteChangeEvent)]) -> [PHPersistentChange] {
        page.compactMap { token, event in
            guard let parsed = PHPersistentChangeToken.fromWireForm(token) else { return nil }
            let summary = CommitSummary(remote: event) { event.collectionLists.contains($0) ? .collectionList : .assetCollection }
            let entry = JournalEntry(id: parsed.transactionNumber, date: event.date ?? Date(), clientID: event.clientIdentifier, changes: summary)
            return PHPersistentChange(entry: entry, libraryUUID: parsed.libraryUUID)
        }
    }

    public struct Iterator: IteratorProtocol {
        let result: PHPersistentChangeFetchResult
        var cursor: Int64
        var page: [JournalEntry] = []
        var index = 0

        /// A served library's changes of the current page, and the token after the last one.
        var remotePage: [PHPersistentChange]?
        var remoteToken: String?

        public mutating func next() -> PHPersistentChange? {
            if let remote = result.remote { return nextRemote(remote) }
            guard let engine = result.engine else { return nil }
            if index == page.count {
                guard cursor < result.through,
                    let entries = try? engine.journalEntries(after: cursor, limit: PHPersistentChangeFetchResult.pageSize),
                    !entries.isEmpty
                else { return nil }
                page = entries.filter { $0.id <= result.through }
                index = 0
                guard !page.isEmpty else { return nil }
            }
            let entry = page[index]
            index += 1
            cursor = entry.id
            return PHPersistentChange(entry: entry, libraryUUID: result.libraryUUID)
        }

        private mutating func nextRemote(_ remote: RemoteLibrary) -> PHPersistentChange? {
            if remotePage == nil {
                remotePage = PHPersistentChangeFetchResult.remoteChanges(result.firstRemotePage)
                remoteToken = result.firstRemotePage.last?.token
                index = 0
            }
            if index == remotePage?.count, let token = remoteToken, cursor < result.through {
                guard let next = try? remote.history(after: token), !next.changes.isEmpty else { return nil }
                remotePage = PHPersistentChangeFetchResult.remoteChanges(next.changes)
                remoteToken = next.changes.last?.token
                index = 0
            }
            guard let page = remotePage, index < page.count else { return nil }
            let change = page[index]
            guard change.changeToken.transactionNumber <= result.through else { return nil }
            index += 1
            cursor = change.changeToken.transactionNumber
            return change
        }
    }

    public func makeIterator() -> Iterator { Iterator(result: self, cursor: after) }

    /// Calls a block for each change, oldest first, until it sets `stop`.
    public func enumerateChanges(_ block: (PHPersistentChange, UnsafeMutablePointer<ObjCBool>) -> Void) {
        var stop: ObjCBool = false
        for change in self {
            block(change, &stop)
            if stop.boolValue { return }
        }
    }
}
