import ArgumentParser
import Foundation
import PhotosTestHarness
import PhotosTesting

struct BenchReliability: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reliability",
        abstract: "Kill photos processes at random instants of imports and change commands, and run writers side by side.",
        discussion: """
            The SIGKILL campaign: each kill is followed by an open of the library (recovery) and a check — SQLite's
            integrity, every row's file present with its size and SHA-256, no orphan, no writer slot left, no commit
            lost; every --concurrent-every-th kill has another photos process adding and listing beside the victim.
            Then the concurrency run: --processes workers × --commands commands on one library with photos watch
            observing: failures, lost updates, watcher lines missing or duplicated. Goal: all zero.
            --store postgres://user@host:port/database runs both on a library there (made, then removed), with --watchers
            watchers. --server-crashes N (run from the checkout: it drives scripts/test-postgres.sh) stops a cluster of
            its own on port 54339 at once N times mid-command (pg_ctl stop -m immediate), restarts it and checks the
            library after each: children that hung, inconsistencies, acknowledged commits lost, orphans.
            """)
    @Option(help: "Kills in the campaign.") var kills = 300
    @Option(help: "Every N-th kill has a concurrent reader-writer process.") var concurrentEvery = 3
    @Option(help: "Seed of the campaign (the same seed gives the same victims and delays).") var seed: UInt64 = 20_261_122
    @Option(help: "Concurrent writer processes.") var processes = 4
    @Option(help: "Commands per writer process.") var commands = 250
    @Option(help: "A PostgreSQL server (postgres://user@host:port/database) to run the campaigns on, instead of a folder.")
    var store: String?
    @Option(help: "photos watch processes observing the concurrency run.") var watchers = 1
    @Option(help: "Server crashes (pg_ctl stop -m immediate) of a cluster of the benchmark's own; 0: none.") var serverCrashes = 0
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let executable = try PhotosBench.photosExecutable()
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("openphotokit-reliability-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: workspace) }
        let provider: (any LibraryProvider)? = store.map { PostgreSQLLibraryProvider(base: $0) }
        let killLibrary = try provider?.makeLibrary(name: "BenchKills", scratch: workspace.appendingPathComponent("kills-media"))
        let concurrentLibrary = try provider?.makeLibrary(name: "BenchConcurrent", scratch: workspace.appendingPathComponent("concurrent-media"))
        defer {
            for library in [killLibrary, concurrentLibrary].compactMap({ $0 }) { provider?.removeLibrary(at: library) }
        }
        var campaign = try KillCampaign(photos: executable, workspace: workspace.appendingPathComponent("kills"), library: killLibrary, seed: seed)
        let killed = try campaign.run(kills: kills, concurrentEvery: concurrentEvery) { line in
            FileHandle.standardError.write(Data("reliability: \(line)\n".utf8))
        }
        let concurrent = try ConcurrencyCampaign(
            photos: executable, workspace: workspace.appendingPathComponent("concurrent"), library: concurrentLibrary
        )
        .run(processes: processes, commands: commands, watchers: watchers)
        var crashed: ServerCrashCampaign.Result?
        if serverCrashes > 0 {
            crashed = try Self.serverCrashCampaign(crashes: serverCrashes, executable: executable, workspace: workspace, seed: seed)
        }
        if json {
            printBenchJSON([
                "kills": killed.kills, "killsWithConcurrentProcess": killed.killsWithConcurrentProcess,
                "finishedBeforeKill": killed.finishedBeforeKill, "inconsistencies": killed.inconsistencies,
                "lostCommits": killed.lostCommits, "orphans": killed.orphans, "orphanDetails": killed.orphanDetails,
                "campaignSeconds": killed.seconds,
                "processes": concurrent.processes, "commands": concurrent.commands, "commits": concurrent.commits,
                "failures": concurrent.failures, "lostUpdates": concurrent.lostUpdates, "transactions": concurrent.transactions,
                "watcherLines": concurrent.watcherLines, "watcherLinesMissing": concurrent.watcherLinesMissing,
                "watcherLinesDuplicated": concurrent.watcherLinesDuplicated, "watchers": concurrent.watchers,
                "watchersOutOfOrder": concurrent.watchersOutOfOrder, "concurrentSeconds": concurrent.seconds,
                "store": store == nil ? "sqlite" : "postgresql", "serverCrashes": crashed?.crashes ?? 0,
                "serverCrashAcknowledged": crashed?.acknowledged ?? 0, "serverCrashFailed": crashed?.failed ?? 0,
                "serverCrashHung": crashed?.hung ?? 0, "serverCrashInconsistencies": crashed?.checks.inconsistencies ?? [],
                "serverCrashLostCommits": crashed?.checks.lostCommits ?? 0, "serverCrashOrphans": crashed?.checks.orphans ?? 0,
            ])
        } else {
            print("kill campaign: \(killed)")
            for line in killed.inconsistencies.prefix(20) { print("  \(line)") }
            for line in killed.orphanDetails.prefix(20) { print("  \(line)") }
            print("concurrency: \(concurrent)")
            for line in concurrent.failures.prefix(20) { print("  \(line)") }
            if let crashed {
                print("server crashes: \(crashed)")
                for line in (crashed.checks.inconsistencies + crashed.checks.orphanDetails).prefix(20) { print("  \(line)") }
            }
        }
        let crashesClean =
            crashed.map { $0.hung == 0 && $0.checks.inconsistencies.isEmpty && $0.checks.lostCommits == 0 && $0.checks.orphans == 0 } ?? true
        let clean =
            killed.inconsistencies.isEmpty && killed.lostCommits == 0 && killed.orphans == 0 && concurrent.failures.isEmpty
            && concurrent.lostUpdates == 0 && concurrent.watcherLinesMissing == 0 && concurrent.watcherLinesDuplicated == 0
            && concurrent.watchersOutOfOrder == 0 && crashesClean
        if !clean { throw ExitCode(1) }
    }

    /// The server-crash campaign on a cluster of its own (scripts/test-postgres.sh, port 54339), removed afterwards.
    static func serverCrashCampaign(crashes: Int, executable: URL, workspace: URL, seed: UInt64) throws -> ServerCrashCampaign.Result {
        let port = 54_339
        func cluster(_ command: String) throws {
            var environment = ProcessInfo.processInfo.environment
            environment["OPENPHOTOKIT_PG_PORT"] = "\(port)"
            environment["OPENPHOTOKIT_PG_DIR"] = "/tmp/openphotokit-postgres-\(port)"
            let end = try ChildProcess(URL(fileURLWithPath: "/bin/bash"), ["scripts/test-postgres.sh", command], environment: environment).wait()
            guard end.status == 0 else { throw ValidationError("scripts/test-postgres.sh \(command) exited \(end.status) (run from the checkout)") }
        }
        try cluster("start")
        defer { try? cluster("stop") }
        let provider = PostgreSQLLibraryProvider(base: "postgres://photos@127.0.0.1:\(port)/photos")
        let library = try provider.makeLibrary(name: "BenchServerCrash", scratch: workspace.appendingPathComponent("crash-media"))
        var campaign = try ServerCrashCampaign(
            photos: executable, workspace: workspace.appendingPathComponent("crashes"), library: library, seed: seed,
            crash: { try ServerCrashCampaign.stopImmediately(dataDirectory: URL(fileURLWithPath: "/tmp/openphotokit-postgres-\(port)/data")) },
            restart: { try cluster("start") })
        return try campaign.run(crashes: crashes) { line in FileHandle.standardError.write(Data("reliability: \(line)\n".utf8)) }
    }
}
