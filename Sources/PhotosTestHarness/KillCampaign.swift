import Foundation
import PhotosTesting
import PhotoLibraryEngine

/// The reliability check of the library's write paths: `photos` children that import and change a library are
/// killed with SIGKILL at random instants — some while another `photos` process reads and writes the same library —
/// and after each kill the library is opened again (recovery runs) and checked: SQLite's integrity, every row's file
/// present with its size and SHA-256, no orphan in `originals/`, no writer slot left behind, no commit lost (every
/// asset that a command which finished reported as added is still there), and every asset's versions whole: an edited
/// asset has one rendering and one recipe and takes the rendering's size, an unedited one has neither and the
/// original's size — the old version or the new one, never a mix.
///
/// Used by the `ReliabilityTests` (a few dozen kills in CI) and by `photos-bench reliability` (hundreds).
public struct KillCampaign {
    /// What the campaign counted.
    public struct Result: Sendable, CustomStringConvertible {
        public init() {}
        public var kills = 0
        /// Kills during which a second `photos` process read and wrote the library.
        public var killsWithConcurrentProcess = 0
        /// Children that finished before the kill came (their work committed whole).
        public var finishedBeforeKill = 0
        /// Children killed mid-way, by command (`import`, `edit`, `revert` …).
        public var killedMidway: [String: Int] = [:]
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
        /// Blobs in object storage that killed writers left and collection removed.
        public var collected = 0
        public var seconds = 0.0

        public var description: String {
            String(
                format:
                    "%d kills (%d with a concurrent process, %d children finished first; killed mid-way: %@), %d inconsistencies, %d lost commits, %d orphans (%d collected); %d concurrent commands, %d failed; %.1f s",
                kills, killsWithConcurrentProcess, finishedBeforeKill,
                killedMidway.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "), inconsistencies.count,
                lostCommits, orphans, collected, concurrentCommands, concurrentFailures, seconds)
        }
    }

    let executable: URL
    let workspace: URL
    let library: URL
    var random: SplitMix64

    /// How `photos` is told the library: a folder's path, or the URL.
    var libraryArgument: String { library.isFileURL ? library.path : library.absoluteString }

    /// A campaign with the `photos` executable at `executable`, working in a new folder under `workspace`, on the
    /// library at `library` (a folder or a server URL; by default a new folder in `workspace`).
    public init(photos executable: URL, workspace: URL, library: URL? = nil, seed: UInt64) throws {
        self.executable = executable
        self.workspace = workspace
        self.library = library ?? workspace.appendingPathComponent("Campaign.photoslibrary")
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
            // The victim: an import of fresh files, a burst of change commands, a content edit or revert, or an
            // empty-trash.
            let victimArguments: [String]
            var choice = random.next(below: 5)
            // Coverage: the last kills are content edits and reverts until two of those were killed mid-way (on a
            // loaded machine the draw alone may kill none of them in time).
            if kill >= kills - 8, result.killedMidway["edit", default: 0] + result.killedMidway["revert", default: 0] < 2 { choice = 3 }
            switch choice {
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
            case 3:
                let ids = try listIDs(includeHidden: true).filter { !ledger.contains($0) }
                if let target = ids.shuffled(using: &random).first {
                    victimArguments =
                        random.next(below: 3) == 0
                        ? ["revert", target]
                        : ["edit", target, "--exposure", String(format: "%.2f", Double(random.next(below: 200)) / 100 - 1), "--crop", "0,0,0.9,0.9"]
                } else {
                    victimArguments = ["ls"]
                }
            default:
                victimArguments = ["empty-trash"]
            }
            var other: ChildProcess?
            var otherLedgerFile: URL?
            var otherEdits = false
            if concurrent {
                // A reader and writer beside the victim: it adds one photo (which must survive), or edits one it added
                // before (no victim touches those), and lists.
                if kill % 2 == 1, let edited = ledger.sorted().first {
                    otherEdits = true
                    other = try ChildProcess(
                        executable, ["edit", edited, "--exposure", String(format: "%.1f", Double(kill % 10) / 10), "--library", libraryArgument])
                } else {
                    let photo = workspace.appendingPathComponent("ledger-\(kill).jpg")
                    try TestMedia.writeImage(to: photo, width: 9 + kill % 300, height: 7 + kill / 300)
                    otherLedgerFile = photo
                    other = try ChildProcess(executable, ["add", photo.path, "--json", "--library", libraryArgument])
                }
            }
            let kind = victimArguments.first ?? "?"
            let victim = try ChildProcess(executable, victimArguments + ["--library", libraryArgument])
            let window = duration[kind] ?? 0.4
            usleep(UInt32(Double(random.next(below: 1_000_000)) / 1_000_000 * window * 1_000_000))
            victim.kill()
            let victimEnd = victim.wait()
            result.kills += 1
            if victimEnd.wasSignalled { result.killedMidway[kind, default: 0] += 1 }
            if !victimEnd.wasSignalled {
                result.finishedBeforeKill += 1
                duration[kind] = victimEnd.seconds * 0.6
            } else if victimEnd.seconds > window * 0.95 {
                duration[kind] = window * 1.1  // killed near the end of the window: it may run longer
            }
            if let other {
                result.killsWithConcurrentProcess += 1
                let end = other.wait()
                result.concurrentCommands += 1
                if otherEdits {
                    if end.status != 0 {
                        result.concurrentFailures += 1
                        log("concurrent edit failed with status \(end.status)")
                    }
                } else if end.status == 0, let added = Self.identifiers(fromAddJSON: end.standardOutput), !added.isEmpty {
                    ledger.formUnion(added)
                } else {
                    result.concurrentFailures += 1
                    log("concurrent add of \(otherLedgerFile?.lastPathComponent ?? "?") failed with status \(end.status)")
                }
                // A reader too.
                let reader = try ChildProcess(executable, ["ls", "--json", "--library", libraryArgument]).wait()
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
        Self.check(library: library, after: what, ledger: ledger, into: &result)
    }

    /// Opens the library at `library` (recovery runs) and checks it: SQLite's integrity, every row's file, orphans,
    /// writer slots left, whole versions, and every identifier of `ledger` still there. What it finds goes into
    /// `result` (inconsistencies, lost commits, orphans).
    public static func check(library: URL, after what: String, ledger: Set<String>, into result: inout Result) {
        do {
            let engine = try LibraryEngine.open(at: library)
            if library.isFileURL {
                let integrity = try engine.metadata.read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }
                if integrity != ["ok"] { result.inconsistencies.append("after \(what): integrity_check \(integrity)") }
            }
            if engine.blobs.sharesContent {
                // Object storage: what a killed writer stored and never committed is collected, not swept at
                // opening. Collected at once here (no age): none may survive it, and no committed one may go.
                result.collected += try engine.collectOrphans(olderThan: 0).count
            }
            let (_, problems, _) = try engine.verify()
            for problem in problems {
                if problem.kind == .orphanFile {
                    result.orphans += 1
                    if result.orphanDetails.count < 20 { result.orphanDetails.append("after \(what): \(problem)") }
                } else {
                    result.inconsistencies.append("after \(what): \(problem)")
                }
            }
            let mixed = try engine.metadata.read { db in
                try String.fetchAll(db, sql: Self.incoherentVersionsSQL)
            }
            for identifier in mixed { result.inconsistencies.append("after \(what): \(identifier) has a mix of versions") }
            let present = try engine.metadata.read { db in
                try Set(String.fetchAll(db, sql: "SELECT local_id FROM asset"))
            }
            let lost = ledger.subtracting(present)
            result.lostCommits += lost.count
            for identifier in lost.sorted().prefix(5) { result.inconsistencies.append("after \(what): \(identifier) was acknowledged and is gone") }
            var slots = (try? FileManager.default.contentsOfDirectory(atPath: engine.bundle.writersURL.path)) ?? []
            // On a database server a slot's lock is its writer's session: PostgreSQL ends a killed client's backend
            // (and its advisory locks) only once it notices the connection gone — a moment later on a busy machine.
            // Until then the slot is rightly left alone; opening again (recovery sweeps) once the backend is gone.
            var waited = 0
            while !slots.isEmpty, !library.isFileURL, waited < 100 {
                usleep(100_000)
                waited += 1
                _ = try? LibraryEngine.open(at: library)
                slots = (try? FileManager.default.contentsOfDirectory(atPath: engine.bundle.writersURL.path)) ?? []
            }
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

    /// Assets whose rows do not describe one whole version: edited without exactly one rendering and one recipe, or
    /// not sized as its rendering; unedited with edit resources left, or not sized as its original.
    static let incoherentVersionsSQL = """
        SELECT a.local_id FROM asset a
        LEFT JOIN resource o ON o.asset_id = a.id AND o.type = CASE a.media_type WHEN 2 THEN 2 ELSE 1 END
        LEFT JOIN resource r ON r.asset_id = a.id AND r.type IN (5, 6)
        WHERE (a.has_adjustments = 1 AND (
                (SELECT count(*) FROM resource x WHERE x.asset_id = a.id AND x.type IN (5, 6)) != 1
                OR (SELECT count(*) FROM resource x WHERE x.asset_id = a.id AND x.type = 7) != 1
                OR r.pixel_width != a.pixel_width OR r.pixel_height != a.pixel_height))
           OR (a.has_adjustments = 0 AND (
                EXISTS (SELECT 1 FROM resource x WHERE x.asset_id = a.id AND x.type IN (5, 6, 7, 8, 10, 11, 12))
                OR o.pixel_width != a.pixel_width OR o.pixel_height != a.pixel_height))
        """

    private func add(count: Int, tag: String) throws -> (ids: [String], status: Int32) {
        var files: [String] = []
        for index in 0..<count {
            let file = workspace.appendingPathComponent("\(tag)-\(index).jpg")
            try TestMedia.writeImage(to: file, width: 20 + index, height: 11)
            files.append(file.path)
        }
        let end = try ChildProcess.run(executable, ["add"] + files + ["--json", "--library", libraryArgument])
        return (Self.identifiers(fromAddJSON: end.standardOutput) ?? [], end.status)
    }

    private func listIDs(includeHidden: Bool) throws -> [String] {
        let end = try ChildProcess.run(executable, ["ls", "--json", "--library", libraryArgument] + (includeHidden ? ["--include-hidden"] : []))
        let objects = (try? JSONSerialization.jsonObject(with: end.standardOutput) as? [[String: Any]]) ?? []
        return objects.compactMap { $0["localIdentifier"] as? String }
    }

    public static func identifiers(fromAddJSON data: Data) -> [String]? {
        guard let objects = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else { return nil }
        return objects.compactMap { $0["localIdentifier"] as? String }
    }
}
