import Foundation
import PhotoLibraryEngine

extension PHPhotoLibrary {
    /// OpenPhotoKit: a wake-up soon after each commit of the library, by this process or any other — for work that
    /// reads what it needs itself (a background worker's queue, a server's change feed reading the history), where
    /// ``changes`` would describe every transaction for nobody: a `PHChange` holds the library's state right after
    /// its transaction, a database connection of its own per commit. Commits close together may wake it once; a
    /// wake-up comes after the commit is visible to reads. Package API.
    package var commitWakeUps: AsyncStream<Void> {
        guard remote == nil, let engine = try? state.get() else {
            // A served library: its change feed (one event per transaction) is the wake-up.
            let changes = self.changes
            return AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
                let task = Task {
                    for await _ in changes { continuation.yield() }
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }
        return AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let token = engine.changeCenter.subscribeToCommits { _ in continuation.yield() }
            continuation.onTermination = { _ in engine.changeCenter.unsubscribe(token) }
        }
    }
}
