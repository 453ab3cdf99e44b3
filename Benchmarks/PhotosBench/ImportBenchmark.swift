import ArgumentParser
import CommandLineSupport
import Foundation
import PhotosTestHarness
import PhotosTesting

#if canImport(Glibc)
    import Glibc
#endif

struct BenchImport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Measure import (metadata, hash, copy, commit) against one batch run of `exiftool -j -n -r` on the same folders.",
        discussion: """
            Runs `photos import --recursive --json` as a child process on the shared media corpus and on generated
            12-MP JPEGs with EXIF, then `exiftool -j -n -r` on the same folders (metadata only, its fastest), and reports
            the time ratio, the import's peak resident memory and how many bytes it read per byte of media.
            Build with -c release: swift run -c release photos-bench import --files 1000
            """)
    @Option(help: "Generated 12-MP JPEGs.") var files = 1000
    @Option(help: "Folder for the generated JPEGs (reused when it holds them).") var directory = "/tmp/openphotokit-bench-import"
    @Option(help: "A real media folder (default: ../shared/media when present).") var media: String?
    @Option(help: "Runs of each side per folder (medians are reported).") var repetitions = 3
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let generated = URL(fileURLWithPath: directory).appendingPathComponent("jpegs")
        try Self.generate(files, into: generated)
        var folders: [(String, URL)] = []
        if let real = media.map({ URL(fileURLWithPath: $0) }) ?? TestMedia.sharedMediaFolder { folders.append(("shared media", real)) }
        folders.append(("\(files) generated 12-MP JPEGs", generated))
        var results: [[String: Any]] = []
        for (label, folder) in folders {
            let library = URL(fileURLWithPath: directory).appendingPathComponent("Bench.photoslibrary")
            defer { try? FileManager.default.removeItem(at: library) }
            let executable = try PhotosBench.photosExecutable()
            var importRuns: [(seconds: Double, maxRSSKilobytes: Int, output: Data, status: Int32)] = []
            var exiftoolSeconds: [Double] = []
            for _ in 0..<max(1, repetitions) {
                try? FileManager.default.removeItem(at: library)
                // Start each measured run with no dirty pages of earlier runs waiting to be written back.
                sync()
                importRuns.append(try Self.measure(executable, ["import", "--recursive", "--json", "--library", library.path, folder.path]))
                sync()
                let exiftool = try Self.measure(URL(fileURLWithPath: "/usr/bin/env"), ["exiftool", "-j", "-n", "-r", folder.path])
                // exiftool exits 1 when some file had no metadata; 127 when it is not there at all: no baseline, no ratio.
                guard exiftool.status != 127 else {
                    throw CLIError("exiftool, this benchmark's baseline, is not installed (apt install libimage-exiftool-perl)")
                }
                exiftoolSeconds.append(exiftool.seconds)
            }
            let importRun = importRuns.sorted { $0.seconds < $1.seconds }[importRuns.count / 2]
            let exiftoolRun = (seconds: median(exiftoolSeconds), maxRSSKilobytes: 0)
            let report = (try? JSONSerialization.jsonObject(with: importRun.output)) as? [String: Any] ?? [:]
            let mediaBytes = Self.totalBytes(folder)
            let imported = (report["imported"] as? [Any])?.count ?? 0
            let row: [String: Any] = [
                "folder": label, "files": report["filesExamined"] ?? 0, "imported": imported, "mediaBytes": mediaBytes,
                "importSeconds": importRun.seconds, "exiftoolSeconds": exiftoolRun.seconds, "speedup": exiftoolRun.seconds / importRun.seconds,
                "importPeakRSSMegabytes": Double(importRuns.map(\.maxRSSKilobytes).max() ?? 0) / 1024,
                "importSecondsAllRuns": importRuns.map(\.seconds), "exiftoolSecondsAllRuns": exiftoolSeconds,
                "bytesReadPerMediaByte": Double(report["processBytesRead"] as? Int64 ?? Int64(report["processBytesRead"] as? Int ?? 0))
                    / Double(max(mediaBytes, 1)),
            ]
            results.append(row)
            if !json {
                print(
                    String(
                        format:
                            "%@: %d files (%.1f MB), %d imported in %.2f s; exiftool -j -n -r %.2f s → import %.2f× faster (medians of %d); peak RSS %.0f MB; %.2f bytes read per media byte",
                        label, row["files"] as? Int ?? 0, Double(mediaBytes) / 1e6, imported, importRun.seconds, exiftoolRun.seconds,
                        exiftoolRun.seconds / importRun.seconds, max(1, repetitions), Double(importRuns.map(\.maxRSSKilobytes).max() ?? 0) / 1024,
                        row["bytesReadPerMediaByte"] as? Double ?? 0))
            }
        }
        // End to end: import with grid thumbnails against exiftool followed by one vipsthumbnail batch.
        let library = URL(fileURLWithPath: directory).appendingPathComponent("Bench.photoslibrary")
        let thumbs = URL(fileURLWithPath: directory).appendingPathComponent("vipsthumbnail-out")
        defer {
            try? FileManager.default.removeItem(at: library)
            try? FileManager.default.removeItem(at: thumbs)
        }
        let executable = try PhotosBench.photosExecutable()
        let jpegs = ((try? FileManager.default.contentsOfDirectory(atPath: generated.path)) ?? []).filter { $0.hasSuffix(".jpg") }.sorted()
            .map { generated.appendingPathComponent($0).path }
        var ours: [(seconds: Double, maxRSSKilobytes: Int, output: Data, status: Int32)] = []
        var theirs: [Double] = []
        for _ in 0..<max(1, repetitions) {
            try? FileManager.default.removeItem(at: library)
            try? FileManager.default.removeItem(at: thumbs)
            try FileManager.default.createDirectory(at: thumbs, withIntermediateDirectories: true)
            sync()
            ours.append(try Self.measure(executable, ["import", "--recursive", "--thumbnails", "--json", "--library", library.path, generated.path]))
            sync()
            let exiftool = try Self.measure(URL(fileURLWithPath: "/usr/bin/env"), ["exiftool", "-j", "-n", "-r", generated.path])
            let batch = try Self.measure(
                URL(fileURLWithPath: "/usr/bin/env"),
                ["vipsthumbnail", "--size", "256x256", "--smartcrop", "centre", "-o", thumbs.path + "/%s.jpg"] + jpegs)
            guard batch.status == 0 else { throw CLIError("vipsthumbnail failed (status \(batch.status))") }
            theirs.append(exiftool.seconds + batch.seconds)
        }
        let endToEnd = ours.sorted { $0.seconds < $1.seconds }[ours.count / 2]
        let peak = Double(ours.map(\.maxRSSKilobytes).max() ?? 0) / 1024
        results.append([
            "folder": "end to end: import --thumbnails vs exiftool + vipsthumbnail batch", "importSeconds": endToEnd.seconds,
            "baselineSeconds": median(theirs), "speedup": median(theirs) / endToEnd.seconds, "importPeakRSSMegabytes": peak,
        ])
        if !json {
            print(
                String(
                    format:
                        "end to end, %d JPEGs: import --thumbnails %.2f s; exiftool -j -n -r + one vipsthumbnail batch %.2f s → %.2f× faster; peak RSS %.0f MB",
                    jpegs.count, endToEnd.seconds, median(theirs), median(theirs) / endToEnd.seconds, peak))
        }
        if json { printBenchJSON(results) }
    }

    /// 12-MP JPEGs with iPhone-like EXIF (date with offset, GPS, camera), each with its own date so no two are equal.
    static func generate(_ files: Int, into folder: URL) throws {
        let existing = (try? FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".jpg") }.count) ?? 0
        guard existing != files else { return }
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let base = folder.appendingPathComponent(".base.jpg")
        try TestMedia.writeImage(to: base, width: 4032, height: 3024, quality: 92)
        defer { try? FileManager.default.removeItem(at: base) }
        let pixels = try Data(contentsOf: base)
        for i in 0..<files {
            let exif = TestEXIF(
                make: "Apple", model: "iPhone 13", lensModel: "iPhone 13 back dual wide camera 5.1mm f/1.6",
                dateTimeOriginal: String(format: "2024:%02d:%02d %02d:%02d:%02d", i % 12 + 1, i % 28 + 1, i % 24, i % 60, (i / 60) % 60),
                offsetTimeOriginal: "+01:00", subSecTimeOriginal: String(i % 1000), latitude: 48.85 + Double(i) / 10_000,
                longitude: 2.35, altitude: 35)
            let payload = Array("Exif".utf8) + [0, 0] + exif.tiff
            let segment: [UInt8] = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
            try (Data(pixels.prefix(2)) + Data(segment) + Data(pixels.dropFirst(2))).write(
                to: folder.appendingPathComponent(String(format: "IMG_%04d.jpg", i)))
        }
    }

    private static func totalBytes(_ folder: URL) -> Int64 {
        var total: Int64 = 0
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.fileSizeKey])
        while let url = enumerator?.nextObject() as? URL {
            total += Int64((try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0)
        }
        return total
    }

    /// Runs a command; wall time, its peak resident memory (wait4's rusage) and its standard output.
    static func measure(_ executable: URL, _ arguments: [String]) throws -> (seconds: Double, maxRSSKilobytes: Int, output: Data, status: Int32) {
        let outcome = try ChildProcess.run(executable, arguments)
        return (outcome.seconds, outcome.maxRSSKilobytes, outcome.standardOutput, outcome.status)
    }
}
