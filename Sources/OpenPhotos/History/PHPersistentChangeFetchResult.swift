import Foundation
import PhotoLibraryEngine

/// The changes since a token, oldest first. A `Sequence` that reads the history in pages as you iterate, so a
/// long history is never held in memory at once.
public final class PHPersistentChangeFetchResult: NSObject, Sequence, @unchecked Sendable {
    let engine: LibraryEngine
    let libraryUUID: String
    let after: Int64
    /// The newest transaction when the result was made: iteration stops there.
    let through: Int64
    static let pageSize = 500

    init(engine: LibraryEngine, libraryUUID: String, after: Int64, through: Int64) {
        self.engine = engine
        self.libraryUUID = libraryUUID
        self.after = after
        self.through = through
    }

    public struct Iterator: IteratorProtocol {
        let result: PHPersistentChangeFetchResult
        var cursor: Int64
        var page: [JournalEntry] = []
        var index = 0

        public mutating func next() -> PHPersistentChange? {
            if index == page.count {
                guard cursor < result.through,
                    let entries = try? result.engine.journalEntries(after: cursor, limit: PHPersistentChangeFetchResult.pageSize),
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
