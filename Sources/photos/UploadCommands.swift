import ArgumentParser
import BackgroundUploads
import CommandLineSupport
import Foundation
import Logging
import OpenPhotos
import UploadExtensionHost

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

            The extension is an app's: it acts as the client --client names (default $PHOTOS_CLIENT_ID, else
            org.openphotokit.backup), which `enable` grants full access. It runs as a program of its own
            (`backup-extension`, beside `photos`) in a kernel sandbox, the library served to it on a socket there:
            it never sees the library's files, nor the network.
            """,
        subcommands: [Enable.self, Disable.self, Status.self, Run.self])

    struct SettingsOption: ParsableArguments {
        @Option(help: "The extension's settings file (default: $PHOTOS_BACKUP_SETTINGS, else ~/.config/openphotokit/backup.json).")
        var settings: String?

        var url: URL {
            settings.map { URL(fileURLWithPath: $0) } ?? ServerBackupExtension.defaultSettingsFile
        }
    }

    /// The app whose upload extension runs: the client its jobs belong to.
    struct AppOption: ParsableArguments {
        @Option(help: "The client the upload extension acts for (default: $PHOTOS_CLIENT_ID, else org.openphotokit.backup).")
        var client: String?

        var identifier: String { client ?? PHPhotoLibrary.defaultClientIdentifier ?? "org.openphotokit.backup" }

        func validate() throws {
            if let client, client.isEmpty || client.utf8.count > 255 { throw ValidationError("--client is a client identifier") }
        }

        /// The library as the app's client.
        func open(_ global: GlobalOptions) throws -> PHPhotoLibrary {
            try Self.requireKeptHere(global.libraryURL)
            do { return try PHPhotoLibrary(url: global.libraryURL, clientIdentifier: identifier) } catch { throw CLIError(describe(error)) }
        }

        /// Uploads are hosted where the library is kept (its folder or its database), not through a server of it.
        static func requireKeptHere(_ url: URL) throws {
            if ["http", "https", "http+unix"].contains(url.scheme?.lowercased() ?? "") {
                throw CLIError(
                    "background uploads are hosted where the library is kept: give its folder or database address, not a photos serve's")
            }
        }
    }

    struct Enable: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enable background uploads to a photos serve for the library.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var settings: SettingsOption
        @OptionGroup var app: AppOption
        @Option(help: "The server's address (https://photos.example.com).") var server: String
        @Option(help: "A file (0600) holding a token the server's owner issued for this library's uploads.") var tokenFile: String?

        func validate() throws {
            guard let url = URL(string: server), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw ValidationError("--server must be an http or https address")
            }
        }

        func run() throws {
            // The owner's decision: the app may read and write the library (what the system's prompt decides on iOS).
            try AppOption.requireKeptHere(global.libraryURL)
            do {
                let owner = try PHPhotoLibrary(url: global.libraryURL, clientIdentifier: nil)
                try owner.setAuthorization(.authorized, for: app.identifier)
            } catch {
                throw CLIError(describe(error))
            }
            let library = try app.open(global)
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
                Output.printJSON(["enabled": true, "server": server, "settings": file.path, "client": app.identifier])
            } else {
                print(
                    "background uploads to \(server) enabled for \(app.identifier) (settings in \(file.path)); run `photos uploads run` to send")
            }
        }
    }

    struct Disable: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Disable background uploads for the library: waiting jobs are cancelled.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var app: AppOption

        func run() throws {
            let library = try app.open(global)
            do { try library.disableUploadJobExtension() } catch { throw CLIError(describe(error)) }
            if global.json { Output.printJSON(["enabled": false]) } else { print("background uploads disabled") }
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show whether background uploads are enabled, and the jobs waiting.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var app: AppOption

        func run() throws {
            let library = try app.open(global)
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
        @OptionGroup var app: AppOption
        @Option(help: "The upload extension program (default: backup-extension beside photos).") var program: String?
        @Option(help: "How many uploads are in flight at once (a server that commits what arrives together spends less on each).")
        var concurrency = 64
        @Option(help: "Seconds a job being sent is this run's (renewed while it is sent): a run killed meanwhile leaves it to the next after this.")
        var lease = 60

        func validate() throws {
            guard (1...128).contains(concurrency) else { throw ValidationError("--concurrency is from 1 to 128") }
            guard (2...3600).contains(lease) else { throw ValidationError("--lease is from 2 to 3600 seconds") }
        }

        func run() throws {
            let library = try app.open(global)
            guard library.uploadJobExtensionEnabled else {
                throw CLIError(
                    "background uploads are not enabled for \(app.identifier): run photos uploads enable --server URL first")
            }
            let file = settings.url
            // The extension's world: its settings' folder (what it remembers is kept there) and the token it sends.
            var readOnly: [String] = []
            if let data = try? Data(contentsOf: file), let stored = try? JSONDecoder().decode(ServerBackupExtension.Settings.self, from: data),
                let tokenFile = stored.tokenFile
            {
                readOnly.append(URL(fileURLWithPath: tokenFile).standardizedFileURL.path)
            }
            let extensionProgram = UploadExtensionProgram(
                executableURL: try Self.programURL(program), environment: ["PHOTOS_BACKUP_SETTINGS": file.path], readOnlyPaths: readOnly,
                readWritePaths: [file.deletingLastPathComponent().path])
            var logger = Logger(label: "photos.uploads")
            logger.logLevel = global.verbose ? .notice : .error
            let host: UploadJobHost
            do {
                host = try UploadJobHost.sandboxed(
                    library: library, program: extensionProgram,
                    performer: UploadJobPerformer(library: library, concurrency: concurrency, lease: TimeInterval(lease)), logger: logger)
            } catch {
                throw CLIError(describe(error))
            }
            let signals = onTermination { host.stop() }
            let progress = LazyProgress("uploading", unit: "resources", json: global.json)
            let report = try waitFor {
                try await host.run { report in
                    let done = report.jobs.succeeded + report.jobs.failed
                    progress.update(done, of: done + report.waiting, bytes: report.jobs.bytes)
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

        /// The program to run: the one named, else `backup-extension` beside this `photos`.
        static func programURL(_ named: String?) throws -> URL {
            if let named { return URL(fileURLWithPath: named).standardizedFileURL }
            let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            let beside = executable.deletingLastPathComponent().appendingPathComponent("backup-extension")
            let own = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
                .appendingPathComponent("backup-extension")
            guard let found = [own, beside].first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
                throw CLIError("no backup-extension beside photos (\(own.path)): build it (swift build --product backup-extension) or give --program")
            }
            return found
        }
    }
}
