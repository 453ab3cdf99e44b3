import ArgumentParser
import CommandLineSupport
import Foundation
import OpenPhotos
import PhotosTestHarness
import PhotosTesting

#if canImport(Glibc)
    import Glibc
#endif

struct BenchBackup: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Measure a backup through upload jobs (photos uploads run → photos serve, loopback) against photos import of the same files.",
        discussion: """
            Generates 12-MP JPEGs with EXIF (as `photos-bench import` does), imports them with `photos import` (the
            baseline, timed), then backs that library up to a `photos serve` of a new library on loopback with
            `photos uploads run` (timed): the jobs made, each resource sent as the body of its request, received,
            stored and committed on the server. Reports the ratio backup / import, medians of the runs.
            Build with -c release: swift build -c release --product photos-bench && swift build -c release --product photos
            """)
    @Option(help: "Generated 12-MP JPEGs.") var files = 1000
    @Option(help: "Folder for the generated JPEGs (reused when it holds them) and the libraries.") var directory = "/tmp/openphotokit-bench-import"
    @Option(help: "Runs of each side (medians are reported).") var repetitions = 3
    @Option(help: "Uploads in flight at once (photos uploads run's default).") var concurrency = 64
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let root = URL(fileURLWithPath: directory)
        let generated = root.appendingPathComponent("jpegs")
        try BenchImport.generate(files, into: generated)
        let executable = try PhotosBench.photosExecutable()
        let settings = root.appendingPathComponent("backup.json")
        let tokenFile = root.appendingPathComponent("backup-token")
        // Each run's libraries are new folders, all removed at the end: removed between runs, their thousands of
        // files would slow the next run's file creation (ext4 passes over inodes freed in the last minutes when it
        // allocates one), a cost of the benchmark, not of either side.
        let runs = (0..<max(1, repetitions)).map { run in
            (device: root.appendingPathComponent("Device-\(run).photoslibrary"), server: root.appendingPathComponent("Server-\(run).photoslibrary"))
        }
        for url in runs.flatMap({ [$0.device, $0.server] }) { try? FileManager.default.removeItem(at: url) }
        defer {
            for url in runs.flatMap({ [$0.device, $0.server] }) + [
                settings, tokenFile, settings.deletingPathExtension().appendingPathExtension("state.json"),
            ] {
                try? FileManager.default.removeItem(at: url)
            }
        }
        var importSeconds: [Double] = []
        var backupSeconds: [Double] = []
        var bytes = 0
        for (device, server) in runs {
            try? FileManager.default.removeItem(at: settings.deletingPathExtension().appendingPathExtension("state.json"))
            sync()
            // Memory is not sampled (every 2 ms it would take this machine's processor time from the run it measures).
            let imported = try ChildProcess.run(
                executable, ["import", "--recursive", "--json", "--library", device.path, generated.path], samplingMemory: false)
            guard imported.status == 0 else { throw CLIError("photos import failed (status \(imported.status))") }
            importSeconds.append(imported.seconds)

            let owner = try PHPhotoLibrary(url: server, clientIdentifier: nil)
            try owner.setAuthorization(.authorized, for: "bench")
            try Data(try owner.createAccessToken(for: "bench").secret.utf8).write(to: tokenFile)
            let serve = try ChildProcess(executable, ["serve", "--library", server.path, "--port", "0", "--json", "--log-level", "warning"])
            defer {
                serve.kill()
                _ = serve.wait()
            }
            var port = 0
            let deadline = Date().addingTimeInterval(30)
            while port == 0, Date() < deadline {
                if let line = String(decoding: serve.standardOutputSoFar, as: UTF8.self).split(separator: "\n").first,
                    let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                {
                    port = object["port"] as? Int ?? 0
                } else {
                    usleep(10_000)
                }
            }
            guard port > 0 else { throw CLIError("photos serve did not start") }
            let enable = try ChildProcess.run(
                executable,
                [
                    "uploads", "enable", "--library", device.path, "--server", "http://127.0.0.1:\(port)", "--token-file", tokenFile.path,
                    "--settings", settings.path,
                ])
            guard enable.status == 0 else { throw CLIError("photos uploads enable failed") }
            sync()
            let backup = try ChildProcess.run(
                executable,
                ["uploads", "run", "--json", "--library", device.path, "--settings", settings.path, "--concurrency", String(concurrency)],
                samplingMemory: false)
            guard backup.status == 0 else {
                throw CLIError("photos uploads run failed (status \(backup.status)): \(String(decoding: backup.standardOutput, as: UTF8.self))")
            }
            let report = (try? JSONSerialization.jsonObject(with: backup.standardOutput)) as? [String: Any] ?? [:]
            guard report["sent"] as? Int == files else { throw CLIError("the backup sent \(report["sent"] ?? 0) resources, not \(files)") }
            bytes = report["bytes"] as? Int ?? 0
            backupSeconds.append(backup.seconds)
            let check = PHFetchOptions()
            check.photoLibrary = owner
            guard PHAsset.fetchAssets(with: check).count == files else { throw CLIError("the server does not have every photo") }
        }
        let ratio = median(backupSeconds) / median(importSeconds)
        let row: [String: Any] = [
            "files": files, "bytes": bytes, "importSeconds": median(importSeconds), "backupSeconds": median(backupSeconds), "ratio": ratio,
            "importSecondsAllRuns": importSeconds, "backupSecondsAllRuns": backupSeconds, "concurrency": concurrency,
        ]
        if json {
            printBenchJSON([row])
        } else {
            print(
                String(
                    format:
                        "%d 12-MP JPEGs (%.1f MB): photos import %.2f s; backup through upload jobs to photos serve %.2f s → %.2f× (medians of %d)",
                    files, Double(bytes) / 1e6, median(importSeconds), median(backupSeconds), ratio, max(1, repetitions)))
        }
    }
}
