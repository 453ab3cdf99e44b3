import Foundation
import GRDB
import PhotoLibraryEngine

/// The reliability check of the library's write paths: `photos` children that import and change a library are
/// killed with SIGKILL at random instants — some while another `photos` process reads and writes the same library —
/// and after each kill the library is opened again (recovery runs) and checked: SQLite's integrity, every row's file
/// present with its size and SHA-256, no orphan in `originals/`, no writer slot left behind, and no commit lost (every
/// asset that a command which finished reported as added is still there).
///
/// Used by the `ReliabilityTests` (a few dozen kills in CI) and by `photos bench reliability` (hundreds).
public struct KillCampaign {
    /// What the campaign counted.
    public struct Result: Sendable, CustomStringConvertible {
        public var kills = 0
        /// Kills during which a second `photos` process read and wrote the library.
        public var killsWithConcurrentProcess = 0
        /// Children that finished before the kill came (their work committed whole).
        public var finishedBeforeKill = 0
        /// Concurrent commands run, and those that failed.
        public var concurrentCommands = 0
        public var concurrentFailures = 0
        /// Checks that failed: integrity, a missing or changed file, an unreadable library.
        public var inconsistencies: [String] = []
        /// Assets reported added by a finished command and later missing.
        public var lostCommits = 0
        /// Files in `originals/` without a row, and writer slots left, after the next open.
        public var orphans = 0
        /// What the orphans were (the first ones).
        public var orphanDetails: [String] = []
        public var seconds = 0.0

        public var description: String {
            String(
                format:
                    "%d kills (%d with a concurrent process, %d children finished first), %d inconsistencies, %d lost commits, %d orphans; %d concurrent commands, %d failed; %.1f s",
                kills, killsWithConcurrentProcess, finishedBeforeKill, inconsistencies.count, lostCommits, orphans, concurrentCommands,
                concurrentFailures, seconds)
        }
    }

    let executable: URL
    let workspace: URL
    let library: URL
    var random: SplitMix64

    /// A campaign with the `photos` executable at `executable`, working in a new folder under `workspace`.
    public init(photos executable: URL, workspace: URL, seed: UInt64) throws {
        self.executable = executable
        self.workspace = workspace
        library = workspace.appendingPathComponent("Campaign.photoslibrary")
        random = SplitMix64(seed: seed)
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
    }

    /// Runs `kills` kills; every `concurrentEvery`-th one with a concurrent reader-writer.
    public mutating func run(kills: Int, concurrentEvery: Int = 3, log: (String) -> Void = { _ in }) throws -> Result {
        var result = Result()
        let started = Date()
        // A few assets for the change commands to work on; the ledger holds the assets that finished commands added
        // beside a victim, which no victim touches and which must never be lost.
        _ = try add(count: 3, tag: "seed")
        var ledger = Set<String>()
        var imageCounter = 0
        // How long each kind of child runs, learned from those that finished before their kill: kills are drawn
        // within that time, so most land mid-way.
        var duration: [String: Double] = [:]
        for kill in 0..<kills {
            let concurrent = concurrentEvery > 0 && kill % concurrentEvery == 0
            // The victim: an import of fresh files, or a burst of change commands, or an empty-trash.
            let victimArguments: [String]
            switch random.next(below: 4) {
            case 0, 1:
                let folder = workspace.appendingPathComponent("import-\(kill)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                for _ in 0..<(4 + random.next(below: 9)) {
                    imageCounter += 1
                    try TestMedia.writeImage(
                        to: folder.appendingPathComponent("IMG_\(imageCounter).jpg"), width: 16 + imageCounter % 200, height: 12 + imageCounter / 200)
                }
                victimArguments = ["import", folder.path, "--batch", "\(1 + random.next(below: 3))"]
            case 2:
                let ids = try listIDs(includeHidden: true).filter { !ledger.contains($0) }
                let targets = Array(ids.shuffled(using: &random).prefix(4))
                let verbs = [["favorite"], ["favorite", "--off"], ["hide"], ["hide", "--off"], ["delete"], ["recover"]]
                let verb = verbs[random.next(below: verbs.count)]
                victimArguments = targets.isEmpty ? ["ls"] : [verb[0]] + targets + verb.dropFirst()
            default:
                victimArguments = ["empty-trash"]
            }
            var other: ChildProcess?
            var otherLedgerFile: URL?
            if concurrent {
                // A reader and writer beside the victim: it adds one photo (which must survive) and lists.
                let photo = workspace.appendingPathComponent("ledger-\(kill).jpg")
                try TestMedia.writeImage(to: photo, width: 9 + kill % 300, height: 7 + kill / 300)
                otherLedgerFile = photo
                other = try ChildProcess(executable, ["add", photo.path, "--json", "--library", library.path])
            }
            let kind = victimArguments.first ?? "?"
            let victim = try ChildProcess(executable, victimArguments + ["--library", library.path])
            let window = duration[kind] ?? 0.4
            usleep(UInt32(Double(random.next(below: 1_000_000)) / 1_000_000 * window * 1_000_000))
            victim.kill()
            let victimEnd = victim.wait()
            result.kills += 1
            if !victimEnd.wasSignalled {
                result.finishedBeforeKill += 1
                duration[kind] = victimEnd.seconds * 0.6
            } else if victimEnd.seconds > window * 0.95 {
                duration[kind] = window * 1.1  // killed near the end of the window: it may run longer
            }
            if let other, let otherLedgerFile {
                result.killsWithConcurrentProcess += 1
                let end = other.wait()
                result.concurrentCommands += 1
                if end.status == 0, let added = Self.identifiers(fromAddJSON: end.standardOutput), !added.isEmpty {
                    ledger.formUnion(added)
                } else {
                    result.concurrentFailures += 1
                    log("concurrent add of \(otherLedgerFile.lastPathComponent) failed with status \(end.status)")
                }
                // A reader too.
                let reader = try ChildProcess(executable, ["ls", "--json", "--library", library.path]).wait()
                result.concurrentCommands += 1
                if reader.status != 0 { result.concurrentFailures += 1 }
            }
            check(after: victimArguments.first ?? "?", ledger: ledger, into: &result)
            if kill % 25 == 24 { log("\(kill + 1) kills: \(result)") }
        }
        result.seconds = Date().timeIntervalSince(started)
        return result
    }

    /// Opens the library (recovery runs) and checks it.
    private func check(after what: String, ledger: Set<String>, into result: inout Result) {
        do {
            let engine = try LibraryEngine.open(at: library)
            let integrity = try engine.database.read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }
            if integrity != ["ok"] { result.inconsistencies.append("after \(what): integrity_check \(integrity)") }
            let (_, problems, _) = try engine.verify()
            for problem in problems {
                if problem.kind == .orphanFile {
                    result.orphans += 1
                    if result.orphanDetails.count < 20 { result.orphanDetails.append("after \(what): \(problem)") }
                } else {
                    result.inconsistencies.append("after \(what): \(problem)")
                }
            }
            let present = try engine.database.read { db in
                try Set(String.fetchAll(db, sql: "SELECT local_id FROM asset"))
            }
            result.lostCommits += ledger.subtracting(present).count
            let slots = (try? FileManager.default.contentsOfDirectory(atPath: engine.bundle.writersURL.path)) ?? []
            // The engine just opened holds no slot (it wrote nothing); anything there was left by a dead writer.
            result.orphans += slots.count
            for slot in slots where result.orphanDetails.count < 20 {
                let inside = (try? FileManager.default.contentsOfDirectory(atPath: engine.bundle.writersURL.appendingPathComponent(slot).path)) ?? []
                result.orphanDetails.append("after \(what): writer slot \(slot) left with \(inside.sorted())")
            }
        } catch {
            result.inconsistencies.append("after \(what): cannot open or check the library: \(error)")
        }
    }

    private func add(count: Int, tag: String) throws -> (ids: [String], status: Int32) {
        var files: [String] = []
        for index in 0..<count {
            let file = workspace.appendingPathComponent("\(tag)-\(index).jpg")
            try TestMedia.writeImage(to: file, width: 20 + index, height: 11)
            files.append(file.path)
        }
        let end = try ChildProcess.run(executable, ["add"] + files + ["--json", "--library", library.path])
        return (Self.identifiers(fromAddJSON: end.standardOutput) ?? [], end.status)
    }

    private func listIDs(includeHidden: Bool) throws -> [String] {
        let end = try ChildProcess.run(executable, ["ls", "--json", "--library", library.path] + (includeHidden ? ["--include-hidden"] : []))
        let objects = (try? JSONSerialization.jsonObject(with: end.standardOutput) as? [[String: Any]]) ?? []
        return objects.compactMap { $0["localIdentifier"] as? String }
    }

    static func identifiers(fromAddJSON data: Data) -> [String]? {
        guard let objects = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else { return nil }
        return objects.compactMap { $0["localIdentifier"] as? String }
    }
}

extension SplitMix64 {
    /// A number in 0..<bound.
    public mutating func next(below bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
