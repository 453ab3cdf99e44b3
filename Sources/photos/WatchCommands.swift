import ArgumentParser
import CommandLineSupport
import Foundation
import OpenPhotos

#if canImport(Glibc)
    import Glibc
#endif

/// Tokens on the command line: the token's `Codable` form, base64url-encoded (opaque, one word, safe in a shell).
enum TokenText {
    static func encode(_ token: PHPersistentChangeToken) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys  // the same token always reads the same
        let json = (try? encoder.encode(token)) ?? Data()
        return json.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: String) throws -> PHPersistentChangeToken {
        var base64 = text.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let token = try? JSONDecoder().decode(PHPersistentChangeToken.self, from: data)
        else { throw CLIError("'\(text)' is not a change token (take one from `photos changes` or `photos watch`)") }
        return token
    }
}

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print how a fetch changes with every commit, by this or any other process, until interrupted.",
        discussion: """
            One line per committed transaction: the fetch result's change details in PhotoKit's frames (removed
            indexes in the old result; inserted and changed in the new one; moves), the identifiers behind them, and
            the change token after the transaction. A commit that does not touch the fetch prints a line without
            details. With --json every line is one JSON object.
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var selection: AssetSelection
    @Option(help: "Stop after this many commits.") var count: Int?

    func run() throws {
        let library = try global.open()
        let printer = ChangePrinter(json: global.json, limit: count)
        // Registered before the first fetch: no commit falls between the two (details are always relative to the
        // result held, so one that did would still be described correctly).
        library.register(printer)
        defer { library.unregisterChangeObserver(printer) }
        let initial = try selection.fetch(library, global: global)
        printer.start(with: initial)
        let status = "watching \(initial.count) assets from token \(TokenText.encode(library.currentChangeToken)); Ctrl-C to stop\n"
        FileHandle.standardError.write(Data(status.utf8))

        let signals = onTermination { printer.finish() }
        waitForCallback { done in printer.whenFinished { done(()) } }
        signals.forEach { $0.cancel() }
    }
}

/// Receives the library's changes on its serial queue and prints each against the fetch result it holds.
final class ChangePrinter: NSObject, PHPhotoLibraryChangeObserver, @unchecked Sendable {
    private let json: Bool
    private let limit: Int?
    private let lock = NSLock()
    private var result: PHFetchResult<PHAsset>?
    private var printed = 0
    private var finished = false
    private var onFinish: (@Sendable () -> Void)?

    init(json: Bool, limit: Int?) {
        self.json = json
        self.limit = limit
    }

    func start(with result: PHFetchResult<PHAsset>) {
        lock.withLock { self.result = result }
        if limit == 0 { finish() }
    }

    /// Calls `handler` once printing is finished (at once if it is).
    func whenFinished(_ handler: @escaping @Sendable () -> Void) {
        let now = lock.withLock { () -> Bool in
            if finished { return true }
            onFinish = handler
            return false
        }
        if now { handler() }
    }

    func finish() {
        let handler = lock.withLock { () -> (@Sendable () -> Void)? in
            defer {
                finished = true
                onFinish = nil
            }
            return finished ? nil : onFinish
        }
        handler?()
    }

    func photoLibraryDidChange(_ changeInstance: PHChange) {
        guard let before = lock.withLock({ finished ? nil : result }) else { return }
        let details = changeInstance.changeDetails(for: before)
        let after = details?.fetchResultAfterChanges ?? before
        lock.withLock { result = after }
        let line = Self.line(for: details, change: changeInstance, count: after.count, json: json)
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
        let reachedLimit = lock.withLock { () -> Bool in
            printed += 1
            return limit.map { printed >= $0 } ?? false
        }
        if reachedLimit { finish() }
    }

    static func line(for details: PHFetchResultChangeDetails<PHAsset>?, change: PHChange, count: Int, json: Bool) -> String {
        let token = TokenText.encode(change.changeToken)
        var moves: [[Int]] = []
        details?.enumerateMoves { moves.append([$0, $1]) }
        let removed = details?.removedIndexes.map(Array.init) ?? []
        let inserted = details?.insertedIndexes.map(Array.init) ?? []
        let changed = details?.changedIndexes.map(Array.init) ?? []
        let removedIDs = details?.removedObjects.map(\.localIdentifier) ?? []
        let insertedIDs = details?.insertedObjects.map(\.localIdentifier) ?? []
        let changedIDs = details?.changedObjects.map(\.localIdentifier) ?? []
        if json {
            let object: [String: Any] = [
                "token": token, "count": count, "hasDetails": details != nil,
                "hasIncrementalChanges": details?.hasIncrementalChanges ?? true,
                "removedIndexes": removed, "insertedIndexes": inserted, "changedIndexes": changed, "moves": moves,
                "removedLocalIdentifiers": removedIDs, "insertedLocalIdentifiers": insertedIDs, "changedLocalIdentifiers": changedIDs,
            ]
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
        guard let details else { return "\(token)  \(count) assets  (not affected)" }
        guard details.hasIncrementalChanges else { return "\(token)  \(count) assets  reloaded" }
        var parts = ["\(token)", "\(count) assets"]
        if !removed.isEmpty { parts.append("removed \(removed) " + removedIDs.map { "-\($0)" }.joined(separator: " ")) }
        if !inserted.isEmpty { parts.append("inserted \(inserted) " + insertedIDs.map { "+\($0)" }.joined(separator: " ")) }
        if !changed.isEmpty { parts.append("changed \(changed) " + changedIDs.map { "~\($0)" }.joined(separator: " ")) }
        if !moves.isEmpty { parts.append("moved " + moves.map { "\($0[0])→\($0[1])" }.joined(separator: " ")) }
        return parts.joined(separator: "  ")
    }
}

struct Changes: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The persistent change history since a token (PHPhotoLibrary.fetchPersistentChanges).",
        discussion: """
            Without --since, prints the current token. Each change lists the local identifiers of the assets,
            albums and folders it inserted, updated and deleted, and the token after it. A token older than the
            kept history (change_history_days, 30 by default) fails with persistentChangeTokenExpired: read the whole
            library again then.
            """)
    @OptionGroup var global: GlobalOptions
    @Option(help: "A token from an earlier `photos changes` or `photos watch`.") var since: String?

    func run() throws {
        let library = try global.open()
        guard let since else {
            let token = TokenText.encode(library.currentChangeToken)
            if global.json { Output.printJSON(["currentToken": token]) } else { print(token) }
            return
        }
        let token = try TokenText.decode(since)
        let changes: PHPersistentChangeFetchResult
        do { changes = try library.fetchPersistentChanges(since: token) } catch { throw CLIError(describe(error)) }
        var objects: [[String: Any]] = []
        var last = token
        for change in changes {
            var object: [String: Any] = ["token": TokenText.encode(change.changeToken), "date": Output.isoDate(change.date)]
            var line = "\(TokenText.encode(change.changeToken))  \(Output.isoDate(change.date))"
            for (type, key) in [(PHObjectType.asset, "assets"), (.assetCollection, "assetCollections"), (.collectionList, "collectionLists")] {
                let details: PHPersistentObjectChangeDetails
                do { details = try change.changeDetails(for: type) } catch { throw CLIError(describe(error)) }
                let inserted = details.insertedLocalIdentifiers.sorted()
                let updated = details.updatedLocalIdentifiers.sorted()
                let deleted = details.deletedLocalIdentifiers.sorted()
                guard !(inserted.isEmpty && updated.isEmpty && deleted.isEmpty) else { continue }
                object[key] = ["inserted": inserted, "updated": updated, "deleted": deleted]
                line += "\n  \(key): " + (inserted.map { "+\($0)" } + updated.map { "~\($0)" } + deleted.map { "-\($0)" }).joined(separator: " ")
            }
            objects.append(object)
            last = change.changeToken
            if !global.json { print(line) }
        }
        if global.json {
            Output.printJSON(["changes": objects, "currentToken": TokenText.encode(last)])
        } else {
            print("\(objects.count) changes; continue from \(TokenText.encode(last))")
        }
    }
}
