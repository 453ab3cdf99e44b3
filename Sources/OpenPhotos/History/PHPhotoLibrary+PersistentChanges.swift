import Foundation
import PhotoLibraryEngine

extension PHPhotoLibrary {
    /// The point in the library's history right now.
    public var currentChangeToken: PHPersistentChangeToken {
        if let remote {
            return (try? remote.currentChangeToken()).flatMap(PHPersistentChangeToken.fromWireForm)
                ?? PHPersistentChangeToken(libraryUUID: "", transaction: 0)
        }
        let engine = engineIfAvailable
        let current = (try? engine?.changeHistoryBounds().current) ?? 0
        return PHPersistentChangeToken(libraryUUID: engine?.setting("uuid") ?? "", transaction: current)
    }

    /// The changes committed after `token`, oldest first.
    ///
    /// The history is kept for `change_history_days` (30 by default) and compacted when a library opens; a token
    /// older than what is kept fails with ``PHPhotosError/Code/persistentChangeTokenExpired``, never with missing
    /// changes. A token of another library fails with ``PHPhotosError/Code/identifierNotFound``.
    /// - throws: ``PHPhotosError``; `accessUserDenied` / `accessRestricted` for clients without full read access.
    public func fetchPersistentChanges(since token: PHPersistentChangeToken) throws -> PHPersistentChangeFetchResult {
        if let remote {
            // The server checks the token (expired, another library's) and the client's access on the first page;
            // the result ends at the server's newest transaction now.
            do {
                let first = try remote.history(after: token.wireForm)
                let through = PHPersistentChangeToken.fromWireForm(try remote.currentChangeToken())?.transactionNumber ?? 0
                return PHPersistentChangeFetchResult(
                    remote: remote, libraryUUID: token.libraryUUID, after: token.transaction, through: through, first: first)
            } catch {
                throw PHPhotosError(error)
            }
        }
        do {
            let engine = try engine()
            let access = self.access
            guard access.canRead, !access.isLimited else { throw access.denial("reading the change history") }
            let uuid = engine.setting("uuid") ?? ""
            guard token.libraryUUID == uuid else {
                throw LibraryError.identifierNotFound("the token belongs to another library (\(token.libraryUUID))")
            }
            let bounds = try engine.changeHistoryBounds()
            // Validates the token (expired, or from the future) before anything is iterated.
            _ = try engine.journalEntries(after: token.transaction, limit: 0)
            return PHPersistentChangeFetchResult(engine: engine, libraryUUID: uuid, after: token.transaction, through: bounds.current)
        } catch let error as LibraryError {
            throw PHPhotosError(error)
        }
    }
}
