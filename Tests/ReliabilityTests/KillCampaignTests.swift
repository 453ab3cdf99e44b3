import Foundation
import PhotosTestHarness
import PhotosTesting
import Testing

/// SIGKILL at random instants of imports and change commands, some while another process reads and writes the same
/// library; after each kill the library must open consistent: no lost commit, no orphan, no damaged row or file.
/// `photos-bench reliability --kills 300` runs the long campaign.
@Suite("Reliability: kills at any instant")
struct KillCampaignTests {
    /// The test bundle sits beside the products of the build (photos among them).
    static var executable: URL { ChildProcess.builtProduct("photos") }

    @Test func killedWritersNeverLoseOrCorruptAnything() async throws {
        let workspace = try TestMedia.temporaryDirectory("kill-campaign")
        defer { try? FileManager.default.removeItem(at: workspace) }
        let result = try await blockingOffThePool {
            var campaign = try KillCampaign(photos: Self.executable, workspace: workspace, seed: 20_261_122)
            return try campaign.run(kills: 36, concurrentEvery: 3)
        }
        #expect(result.kills == 36)
        #expect(result.killsWithConcurrentProcess == 12)
        #expect(result.inconsistencies.isEmpty, "\(result.inconsistencies)")
        #expect(result.lostCommits == 0)
        #expect(result.orphans == 0)
        #expect(result.concurrentFailures == 0)
        // Many children were killed mid-way, not after they finished (else the test proves little). How many depends
        // on the machine's speed and load; the campaign learns each command's duration and kills within it.
        #expect(result.kills - result.finishedBeforeKill >= result.kills / 3, "\(result)")
        #expect(result.killedMidway["edit", default: 0] + result.killedMidway["revert", default: 0] >= 2, "\(result)")
    }
}

@Suite("Reliability: processes at once")
struct ConcurrencyCampaignTests {
    @Test func concurrentWritersLoseNothingAndTheWatcherSeesEveryCommitOnce() async throws {
        let workspace = try TestMedia.temporaryDirectory("concurrency-campaign")
        defer { try? FileManager.default.removeItem(at: workspace) }
        let result = try await blockingOffThePool {
            try ConcurrencyCampaign(photos: KillCampaignTests.executable, workspace: workspace).run(processes: 4, commands: 15)
        }
        #expect(result.failures.isEmpty, "\(result.failures)")
        #expect(result.commits == 60)
        #expect(result.transactions == 60, "\(result)")
        #expect(result.lostUpdates == 0)
        #expect(result.watcherLines == result.transactions, "\(result)")
        #expect(result.watcherLinesMissing == 0 && result.watcherLinesDuplicated == 0)
    }
}
