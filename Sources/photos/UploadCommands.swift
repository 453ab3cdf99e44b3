import ArgumentParser
import BackgroundUploads
import CommandLineSupport
import Foundation
import OpenPhotos

#if canImport(Glibc)
    import Glibc
#endif

struct Uploads: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uploads",
        abstract: "Back the library up to a photos serve through background upload jobs (iOS 26's upload extensions).",
        discussion: """
            `photos uploads enable --server URL --token-file F` enables background uploads for the library and
            configures the example upload extension; `photos uploads run` hosts it: it makes one job per resource the
            server lacks (every original, Live Photo video, RAW alternate and edit), the jobs are sent — retried with
            backoff, and sent again by the next run when one is killed — and it stops once the server has everything.
            A second run with nothing new sends nothing. Run it from cron or a systemd timer.
            """,
        subcommands: [Enable.self, Disable.self, Status.self, Run.self])

    struct SettingsOption: ParsableArguments {
        @Option(help: "The extension's settings file (default: $PHOTOS_BACKUP_SETTINGS, else ~/.config/openphotokit/backup.json).")
        var settings: String?

        var url: URL {
            settings.map { URL(fileURLWithPath: $0) } ?? ServerBackupExtension.defaultSettingsFile
        }
    }

    struct Enable: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enable background uploads to a photos serve for the library.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var settings: SettingsOption
        @Option(help: "The server's address (https://photos.example.com).") var server: String
        @Option(help: "A file (0600) holding a token the server's owner issued for this library's uploads.") var tokenFile: String?

        func validate() throws {
            guard let url = URL(string: server), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw ValidationError("--server must be an http or https address")
            }
        }

        func run() throws {
            let library = try global.open()
            if let tokenFile {
                guard FileManager.default.isReadableFile(atPath: tokenFile) else { throw CLIError("cannot read the token file \(tokenFile)") }
            }
            let file = settings.url
            do {
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                let data = try JSONEncoder().encode(ServerBackupExtension.Settings(server: server, tokenFile: tokenFile))
                try data.write(to: file, options: .atomic)
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
                try library.enableUploadJobExtension(with: nil)
            } catch {
                throw CLIError(describe(error))
            }
            if global.json {
                Output.printJSON(["enabled": true, "server": server, "settings": file.path])
            } else {
                print("background uploads to \(server) enabled (settings in \(file.path)); run `photos uploads run` to send")
            }
        }
    }

    struct Disable: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Disable background uploads for the library: waiting jobs are cancelled.")
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let library = try global.open()
            do { try library.disableUploadJobExtension() } catch { throw CLIError(describe(error)) }
            if global.json { Output.printJSON(["enabled": false]) } else { print("background uploads disabled") }
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show whether background uploads are enabled, and the jobs waiting.")
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let library = try global.open()
            let options = PHFetchOptions()
            options.photoLibrary = library
            let waiting = PHAssetResourceUploadJob.fetchJobs(action: .process, options: options).count
            let finished = PHAssetResourceUploadJob.fetchJobs(action: .acknowledge, options: options).count
            let failed = PHAssetResourceUploadJob.fetchJobs(action: .retry, options: options).count
            let enabled = library.uploadJobExtensionEnabled
            if global.json {
                Output.printJSON([
                    "enabled": enabled, "waiting": waiting, "finished": finished, "failed": failed, "jobLimit": PHAssetResourceUploadJob.jobLimit,
                ])
            } else {
                print(
                    "background uploads \(enabled ? "enabled" : "disabled"): \(waiting) jobs waiting, \(finished) finished and not acknowledged (\(failed) failed)"
                )
            }
        }
    }

    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Host the backup extension: make jobs for what the server lacks and send them, until it has everything.",
            discussion: """
                Stops when the extension is up to date and no job waits (a job that failed is retried with backoff
                within the run, then once more by the extension). SIGTERM or Ctrl-C stops it: jobs in flight are sent
                again by the next run, and the server stores nothing twice.
                """)
        @OptionGroup var global: GlobalOptions
        @OptionGroup var settings: SettingsOption
        @Option(help: "How many uploads are in flight at once.") var concurrency = 4
        @Option(help: "Seconds a job being sent is this run's (renewed while it is sent): a run killed meanwhile leaves it to the next after this.")
        var lease = 60

        func validate() throws {
            guard (1...64).contains(concurrency) else { throw ValidationError("--concurrency is from 1 to 64") }
            guard (2...3600).contains(lease) else { throw ValidationError("--lease is from 2 to 3600 seconds") }
        }

        func run() throws {
            let library = try global.open()
            guard library.uploadJobExtensionEnabled else {
                throw CLIError("background uploads are not enabled for this library: run photos uploads enable --server URL first")
            }
            let file = settings.url
            let host = UploadJobHost(
                library: library, extensionType: ServerBackupExtension.self,
                performer: UploadJobPerformer(library: library, concurrency: concurrency, lease: TimeInterval(lease)))
            let signals = onTermination { host.stop() }
            let progress = LazyProgress("uploading", unit: "resources", json: global.json)
            let report = try waitFor {
                try await ServerBackupExtension.$settingsFile.withValue(file) {
                    try await host.run { report in
                        let done = report.jobs.succeeded + report.jobs.failed
                        progress.update(done, of: done + report.waiting, bytes: report.jobs.bytes)
                    }
                }
            }
            progress.finish()
            signals.forEach { $0.cancel() }
            if global.json {
                Output.printJSON([
                    "sent": report.jobs.succeeded, "failed": report.jobs.failed, "deferred": report.jobs.deferred, "bytes": report.jobs.bytes,
                    "upToDate": report.lastResult == .completed,
                ])
            } else {
                let state = report.lastResult == .completed ? "up to date" : "not finished"
                print("\(report.jobs.succeeded) resources sent (\(report.jobs.bytes) bytes), \(report.jobs.failed) failed; \(state)")
            }
            if report.jobs.failed > 0 || report.lastResult == .failure { throw ExitCode(1) }
        }
    }
}
