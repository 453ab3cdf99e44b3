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
            """)
    @Option(help: "Kills in the campaign.") var kills = 300
    @Option(help: "Every N-th kill has a concurrent reader-writer process.") var concurrentEvery = 3
    @Option(help: "Seed of the campaign (the same seed gives the same victims and delays).") var seed: UInt64 = 20_261_122
    @Option(help: "Concurrent writer processes.") var processes = 4
    @Option(help: "Commands per writer process.") var commands = 250
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let executable = try PhotosBench.photosExecutable()
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("openphotokit-reliability-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: workspace) }
        var campaign = try KillCampaign(photos: executable, workspace: workspace.appendingPathComponent("kills"), seed: seed)
        let killed = try campaign.run(kills: kills, concurrentEvery: concurrentEvery) { line in
            FileHandle.standardError.write(Data("reliability: \(line)\n".utf8))
        }
        let concurrent = try ConcurrencyCampaign(photos: executable, workspace: workspace.appendingPathComponent("concurrent"))
            .run(processes: processes, commands: commands)
        if json {
            printBenchJSON([
                "kills": killed.kills, "killsWithConcurrentProcess": killed.killsWithConcurrentProcess,
                "finishedBeforeKill": killed.finishedBeforeKill, "inconsistencies": killed.inconsistencies,
                "lostCommits": killed.lostCommits, "orphans": killed.orphans, "orphanDetails": killed.orphanDetails,
                "campaignSeconds": killed.seconds,
                "processes": concurrent.processes, "commands": concurrent.commands, "commits": concurrent.commits,
                "failures": concurrent.failures, "lostUpdates": concurrent.lostUpdates, "transactions": concurrent.transactions,
                "watcherLines": concurrent.watcherLines, "watcherLinesMissing": concurrent.watcherLinesMissing,
                "watcherLinesDuplicated": concurrent.watcherLinesDuplicated, "concurrentSeconds": concurrent.seconds,
            ])
        } else {
            print("kill campaign: \(killed)")
            for line in killed.inconsistencies.prefix(20) { print("  \(line)") }
            for line in killed.orphanDetails.prefix(20) { print("  \(line)") }
            print("concurrency: \(concurrent)")
            for line in concurrent.failures.prefix(20) { print("  \(line)") }
        }
        let clean =
            killed.inconsistencies.isEmpty && killed.lostCommits == 0 && killed.orphans == 0 && concurrent.failures.isEmpty
            && concurrent.lostUpdates == 0 && concurrent.watcherLinesMissing == 0 && concurrent.watcherLinesDuplicated == 0
        if !clean { throw ExitCode(1) }
    }
}
