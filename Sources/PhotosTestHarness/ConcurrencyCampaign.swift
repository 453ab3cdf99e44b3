import Foundation
import PhotosTesting
import Synchronization

/// Several `photos` processes writing one library at once while `photos watch` observes it: each worker toggles the
/// favourite of an asset of its own and now and then adds a photo, one command per process, as fast as it can.
/// Afterwards no command may have failed, every worker's last toggle must hold (no lost update), every added photo
/// must be there, and the watcher must have printed exactly one line per committed transaction (none missing, none
/// twice).
public struct ConcurrencyCampaign {
    /// What the campaign counted.
    public struct Result: Sendable, CustomStringConvertible {
        public var processes = 0
        public var commands = 0
        /// Commands that finished (each one transaction).
        public var commits = 0
        public var failures: [String] = []
        public var lostUpdates = 0
        public var watcherLines = 0
        public var transactions = 0
        public var watcherLinesMissing = 0
        public var watcherLinesDuplicated = 0
        /// Watchers whose lines were not the history's transactions in their order.
        public var watchersOutOfOrder = 0
        public var watchers = 0
        public var seconds = 0.0

        public var description: String {
            String(
                format:
                    "%d processes × %d commands: %d failures, %d lost updates; %d watchers, %d lines for %d transactions (%d missing, %d duplicated, %d out of order); %.1f s",
                processes, processes > 0 ? commands / processes : 0, failures.count, lostUpdates, watchers, watcherLines, transactions,
                watcherLinesMissing, watcherLinesDuplicated, watchersOutOfOrder, seconds)
        }
    }

    let executable: URL
    let workspace: URL
    let library: URL

    /// A campaign on the library at `library` (a folder or a server URL; by default a new folder in `workspace`).
    public init(photos executable: URL, workspace: URL, library: URL? = nil) throws {
        self.executable = executable
        self.workspace = workspace
        self.library = library ?? workspace.appendingPathComponent("Concurrent.photoslibrary")
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
    }

    /// How `photos` is told the library: a folder's path, or the URL.
    var libraryArgument: String { library.isFileURL ? library.path : library.absoluteString }

    private func photos(_ arguments: [String]) throws -> ChildProcess.Outcome {
        try ChildProcess.run(executable, arguments + ["--library", libraryArgument])
    }

    /// Runs `processes` workers of `commands` commands each.
    /// Runs `processes` workers of `commands` commands each, observed by `watchers` `photos watch` processes.
    public func run(processes: Int, commands: Int, watchers watcherCount: Int = 1) throws -> Result {
        var result = Result()
        result.processes = processes
        result.watchers = watcherCount
        // One asset per worker.
        var files: [String] = []
        for index in 0..<processes {
            let file = workspace.appendingPathComponent("worker-\(index).jpg")
            try TestMedia.writeImage(to: file, width: 30 + index, height: 20)
            files.append(file.path)
        }
        let added = try photos(["add"] + files + ["--json"])
        let ids = ((try? JSONSerialization.jsonObject(with: added.standardOutput) as? [[String: Any]]) ?? []).compactMap {
            $0["localIdentifier"] as? String
        }
        guard ids.count == processes else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "setup failed"]) }
        let before = String(decoding: try photos(["changes"]).standardOutput, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)

        // Each watcher says "watching …" on standard error once it observes: no commit before that.
        var watchers: [ChildProcess] = []
        for index in 0..<watcherCount {
            let watcherErrors = workspace.appendingPathComponent("watch-\(index).err")
            watchers.append(
                try ChildProcess(executable, ["watch", "--json", "--include-hidden", "--library", libraryArgument], standardError: watcherErrors))
            let deadline = Date().addingTimeInterval(60)
            while !((try? String(contentsOf: watcherErrors, encoding: .utf8)) ?? "").contains("watching"), Date() < deadline {
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        let started = Date()
        struct Worker: Sendable {
            var failures: [String] = []
            var commits = 0
            var lastFavorite = false
            var added: [String] = []
            /// Keywords this worker added to the one shared asset.
            var keywords: [String] = []
        }
        let workers = Mutex([Worker](repeating: Worker(), count: processes))
        let executable = self.executable
        let library = self.libraryArgument
        let workspace = self.workspace
        DispatchQueue.concurrentPerform(iterations: processes) { index in
            var worker = Worker()
            for step in 0..<commands {
                var arguments: [String]
                if step % 5 == 4 {
                    let photo = workspace.appendingPathComponent("added-\(index)-\(step).jpg")
                    try? TestMedia.writeImage(to: photo, width: 40 + index, height: 20 + step)
                    arguments = ["add", photo.path, "--json"]
                } else if step % 5 == 1 {
                    // Every worker keywords the same asset (the first): edits against what it has at commit, none lost.
                    arguments = ["describe", ids[0], "--add-keyword", "w\(index)s\(step)"]
                } else {
                    worker.lastFavorite = step % 2 == 0
                    arguments = ["favorite", ids[index]] + (worker.lastFavorite ? [] : ["--off"])
                }
                guard let end = try? ChildProcess.run(executable, arguments + ["--library", library]), end.status == 0 else {
                    worker.failures.append("worker \(index) step \(step): \(arguments.first ?? "")")
                    continue
                }
                worker.commits += 1
                if arguments.first == "describe" { worker.keywords.append(arguments[3]) }
                if arguments.first == "add",
                    let objects = try? JSONSerialization.jsonObject(with: end.standardOutput) as? [[String: Any]]
                {
                    worker.added += objects.compactMap { $0["localIdentifier"] as? String }
                }
            }
            workers.withLock { $0[index] = worker }
        }
        result.seconds = Date().timeIntervalSince(started)
        // Every commit reaches the watcher within its safety poll (1 s) at worst; wait for the lines, 60 s at most.
        let history = try photos(["changes", "--since", before, "--json"])
        let changes = ((try? JSONSerialization.jsonObject(with: history.standardOutput) as? [String: Any])?["changes"] as? [Any]) ?? []
        let lineDeadline = Date().addingTimeInterval(60)
        for watcher in watchers {
            while watcher.standardOutputSoFar.filter({ $0 == UInt8(ascii: "\n") }).count < changes.count, Date() < lineDeadline {
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        Thread.sleep(forTimeInterval: 1.5)  // and a little longer, for lines that should not come (duplicates)
        var watched: [ChildProcess.Outcome] = []
        for watcher in watchers {
            watcher.kill()
            watched.append(watcher.wait())
        }

        let finished = workers.withLock { $0 }
        result.commands = processes * commands
        result.failures = finished.flatMap(\.failures)
        result.commits = finished.map(\.commits).reduce(0, +)
        // Lost updates: each worker's last toggle holds; each added photo is there.
        let listed = try photos(["ls", "--json", "--include-hidden"])
        let objects = (try? JSONSerialization.jsonObject(with: listed.standardOutput) as? [[String: Any]]) ?? []
        var favorite: [String: Bool] = [:]
        var keywords: [String: [String]] = [:]
        for object in objects {
            if let id = object["localIdentifier"] as? String {
                favorite[id] = object["isFavorite"] as? Bool
                keywords[id] = object["keywords"] as? [String]
            }
        }
        // Every keyword any worker added to the shared asset is there (a lost update would drop another's).
        let shared = Set(keywords[ids[0]] ?? [])
        result.lostUpdates += finished.flatMap(\.keywords).filter { !shared.contains($0) }.count
        for (index, worker) in finished.enumerated() {
            if favorite[ids[index]] != worker.lastFavorite { result.lostUpdates += 1 }
            result.lostUpdates += worker.added.filter { favorite[$0] == nil }.count
        }
        // Each watcher: one line per transaction of the history since `before`, each token once, in commit order.
        result.transactions = changes.count
        let committed = changes.compactMap { ($0 as? [String: Any])?["token"] as? String }
        for outcome in watched {
            let lines = String(decoding: outcome.standardOutput, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("{") }
            let tokens = lines.compactMap { line -> String? in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["token"] as? String
            }
            result.watcherLines += tokens.count
            result.watcherLinesDuplicated += tokens.count - Set(tokens).count
            result.watcherLinesMissing += max(0, result.transactions - Set(tokens).count)
            if tokens != committed { result.watchersOutOfOrder += 1 }
        }
        return result
    }
}
