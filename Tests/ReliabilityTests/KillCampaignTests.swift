import Foundation
import PhotosTestHarness
import PhotosTesting
import Testing

/// SIGKILL at random instants of imports and change commands, some while another process reads and writes the same
/// library; after each kill the library must open consistent: no lost commit, no orphan, no damaged row or file.
/// `photos-bench reliability --kills 300` runs the long campaign.
/// The campaigns run one after another: each is many processes at once, and side by side they would only measure how
/// the machine copes with all of them.
@Suite("Reliability", .serialized)
struct ReliabilityTests {}

extension ReliabilityTests {
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

}

extension ReliabilityTests {
    @Suite("Reliability: processes at once")
    struct ConcurrencyCampaignTests {
        @Test func concurrentWritersLoseNothingAndTheWatcherSeesEveryCommitOnce() async throws {
            let workspace = try TestMedia.temporaryDirectory("concurrency-campaign")
            defer { try? FileManager.default.removeItem(at: workspace) }
            let result = try await blockingOffThePool {
                try ConcurrencyCampaign(photos: ReliabilityTests.KillCampaignTests.executable, workspace: workspace).run(processes: 4, commands: 15)
            }
            #expect(result.failures.isEmpty, "\(result.failures)")
            #expect(result.commits == 60)
            #expect(result.transactions == 60, "\(result)")
            #expect(result.lostUpdates == 0)
            #expect(result.watcherLines == result.transactions, "\(result)")
            #expect(result.watcherLinesMissing == 0 && result.watcherLinesDuplicated == 0)
        }
    }

    /// The same campaigns on a library on PostgreSQL — the test command's server — and the server itself stopped at once
    /// mid-commit, on a cluster of the test's own (`scripts/test-postgres.sh crash`, then `start`: crash recovery).
}

extension ReliabilityTests {
    @Suite("Reliability on a database server")
    struct ServerReliabilityTests {
        static var base: String? { ProcessInfo.processInfo.environment["OPENPHOTOKIT_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 } }

        @Test(.enabled(if: base != nil)) func killedWritersNeverLoseOrCorruptAnythingOnAServer() async throws {
            let workspace = try TestMedia.temporaryDirectory("kill-campaign-server")
            let provider = PostgreSQLLibraryProvider(base: try #require(Self.base))
            let library = try provider.makeLibrary(name: "KillCampaign", scratch: workspace.appendingPathComponent("media"))
            defer {
                provider.removeLibrary(at: library)
                try? FileManager.default.removeItem(at: workspace)
            }
            let result = try await blockingOffThePool {
                var campaign = try KillCampaign(
                    photos: ReliabilityTests.KillCampaignTests.executable, workspace: workspace, library: library, seed: 20_261_126)
                return try campaign.run(kills: 24, concurrentEvery: 3)
            }
            #expect(result.kills == 24 && result.killsWithConcurrentProcess == 8)
            #expect(result.inconsistencies.isEmpty, "\(result.inconsistencies)")
            #expect(result.lostCommits == 0)
            #expect(result.orphans == 0, "\(result.orphanDetails)")
            #expect(result.concurrentFailures == 0)
            #expect(result.kills - result.finishedBeforeKill >= result.kills / 3, "\(result)")
        }

        static var bucket: String? { ProcessInfo.processInfo.environment["OPENPHOTOKIT_TEST_S3_BUCKET"].flatMap { $0.isEmpty ? nil : $0 } }

        /// Files in object storage: a writer killed at any instant (uploading, between its upload and its commit,
        /// committing) leaves no blob that collection does not remove, and collection removes none that is committed.
        @Test(.enabled(if: base != nil && bucket != nil)) func killedWritersLeaveNothingInObjectStorageThatIsNotCollected() async throws {
            let workspace = try TestMedia.temporaryDirectory("kill-campaign-s3")
            let provider = ObjectStorageLibraryProvider(base: try #require(Self.base), bucket: try #require(Self.bucket))
            let library = try provider.makeLibrary(name: "KillS3", scratch: workspace.appendingPathComponent("media"))
            defer {
                provider.removeLibrary(at: library)
                try? FileManager.default.removeItem(at: workspace)
            }
            let result = try await blockingOffThePool {
                var campaign = try KillCampaign(
                    photos: ReliabilityTests.KillCampaignTests.executable, workspace: workspace, library: library, seed: 20_261_127)
                return try campaign.run(kills: 15, concurrentEvery: 3)
            }
            #expect(result.kills == 15 && result.killsWithConcurrentProcess == 5, "\(result)")
            #expect(result.inconsistencies.isEmpty, "\(result.inconsistencies)")
            #expect(result.lostCommits == 0)
            #expect(result.orphans == 0, "\(result.orphanDetails)")
            #expect(result.concurrentFailures == 0)
            #expect(result.kills - result.finishedBeforeKill >= result.kills / 3, "\(result)")
        }

        @Test(.enabled(if: base != nil)) func concurrentWritersLoseNothingAndTwoWatchersSeeEveryCommitOnceInOrder() async throws {
            let workspace = try TestMedia.temporaryDirectory("concurrency-campaign-server")
            let provider = PostgreSQLLibraryProvider(base: try #require(Self.base))
            let library = try provider.makeLibrary(name: "Concurrency", scratch: workspace.appendingPathComponent("media"))
            defer {
                provider.removeLibrary(at: library)
                try? FileManager.default.removeItem(at: workspace)
            }
            let result = try await blockingOffThePool {
                try ConcurrencyCampaign(photos: ReliabilityTests.KillCampaignTests.executable, workspace: workspace, library: library)
                    .run(processes: 4, commands: 15, watchers: 2)
            }
            #expect(result.failures.isEmpty, "\(result.failures)")
            #expect(result.commits == 60 && result.transactions == 60, "\(result)")
            #expect(result.lostUpdates == 0)
            #expect(result.watcherLines == 2 * result.transactions, "\(result)")
            #expect(result.watcherLinesMissing == 0 && result.watcherLinesDuplicated == 0 && result.watchersOutOfOrder == 0, "\(result)")
        }

        /// `scripts/test-postgres.sh` of this checkout, run with `environment` added.
        static func cluster(_ command: String, port: Int) throws -> String {
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../scripts/test-postgres.sh")
            var environment = ProcessInfo.processInfo.environment
            environment["OPENPHOTOKIT_PG_PORT"] = "\(port)"
            environment["OPENPHOTOKIT_PG_DIR"] = "/tmp/openphotokit-postgres-\(port)"
            let end = try ChildProcess(URL(fileURLWithPath: "/bin/bash"), [script.standardizedFileURL.path, command], environment: environment).wait()
            guard end.status == 0 else {
                throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "test-postgres.sh \(command) exited \(end.status)"])
            }
            return String(decoding: end.standardOutput, as: UTF8.self)
        }

        @Test(.enabled(if: base != nil)) func theServerStoppedAtOnceMidCommitLosesNothing() async throws {
            let port = 54_339
            let workspace = try TestMedia.temporaryDirectory("server-crash-campaign")
            defer { try? FileManager.default.removeItem(at: workspace) }
            // Off the cooperative threads: the cluster's start and the campaign's children block for seconds.
            let (exported, result) = try await blockingOffThePool { () throws -> (String, ServerCrashCampaign.Result) in
                let exported = try Self.cluster("start", port: port)
                defer { _ = try? Self.cluster("stop", port: port) }
                let provider = PostgreSQLLibraryProvider(base: "postgres://photos@127.0.0.1:\(port)/photos")
                let library = try provider.makeLibrary(name: "ServerCrash", scratch: workspace.appendingPathComponent("media"))
                var campaign = try ServerCrashCampaign(
                    photos: ReliabilityTests.KillCampaignTests.executable, workspace: workspace, library: library, seed: 20_261_126,
                    crash: {
                        try ServerCrashCampaign.stopImmediately(dataDirectory: URL(fileURLWithPath: "/tmp/openphotokit-postgres-\(port)/data"))
                    },
                    restart: { _ = try Self.cluster("start", port: port) })
                return (exported, try campaign.run(crashes: 8))
            }
            #expect(exported.contains("postgres://photos@127.0.0.1:\(port)/photos"))
            #expect(result.crashes == 8)
            #expect(result.hung == 0, "every child ends: bounded timeouts")
            #expect(result.checks.inconsistencies.isEmpty, "\(result.checks.inconsistencies)")
            #expect(result.checks.lostCommits == 0)
            #expect(result.checks.orphans == 0, "\(result.checks.orphanDetails)")
            // Crashes landed while children ran (the commits before them — at least the campaign's first adds — are the
            // ledger that must survive every crash).
            #expect(result.acknowledged + result.failed == 8 && result.failed > 0, "\(result)")
        }
    }
}
