import ArgumentParser
import Foundation
import OpenPhotos

#if canImport(Glibc)
    import Glibc
#endif

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import photos and videos from files and folders: metadata, Live Photo pairs, duplicates skipped.",
        discussion: """
            Each file is copied into the library and hashed in one read. Files whose bytes the library already holds
            are skipped as duplicates; a still and a video with the same Apple content identifier become one Live
            Photo. Files that cannot be read are listed with the reason, and the import goes on; the exit status is 0
            when the run completed, whatever it skipped.
            """)
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Files and folders.") var paths: [String]
    @Flag(help: "Descend into subfolders.") var recursive = false
    @Option(help: "Assets per transaction.") var batch = 64
    @Flag(help: "Also render the grid thumbnail (256×256, aspectFill) of every imported photo into the library's derivatives.")
    var thumbnails = false

    func run() throws {
        let library = try global.open()
        let started = Date()
        if !global.json {
            for line in PhotoMediaReport.decoders { FileHandle.standardError.write(Data((line + "\n").utf8)) }
        }
        let showProgress = isatty(STDERR_FILENO) == 1 && !global.json
        let report: PHPhotoLibrary.ImportReport
        let progress: (@Sendable (PHPhotoLibrary.ImportProgress) -> Void)?
        if showProgress {
            progress = { Self.drawProgress($0, started: started) }
        } else {
            progress = nil
        }
        do {
            report = try library.importItems(
                at: paths.map { URL(fileURLWithPath: $0) }, recursive: recursive, batchSize: batch, progress: progress)
        } catch { throw CLIError(describe(error)) }
        if showProgress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        var thumbnailCount = 0
        if thumbnails, !report.importedLocalIdentifiers.isEmpty {
            // One rendering per photo, on every core; each original is decoded once (shrink-on-load for JPEG).
            let manager = PHCachingImageManager()
            let assets = PHAsset.fetchAssets(
                withLocalIdentifiers: report.importedLocalIdentifiers,
                options: global.options(library) {
                    $0.includeHiddenAssets = true
                    $0.includeAllBurstAssets = true
                })
            let photos = assets.objects(at: IndexSet(0..<assets.count)).filter { $0.mediaType == .image }
            let options = PHImageRequestOptions()
            options.resizeMode = .exact
            manager.startCachingImages(for: photos, targetSize: Self.gridSize, contentMode: .aspectFill, options: options)
            manager.waitForCaching()
            thumbnailCount = photos.count
        }
        let seconds = Date().timeIntervalSince(started)
        if global.json {
            Output.printJSON([
                "imported": report.importedLocalIdentifiers, "livePhotosPaired": report.livePhotosPaired,
                "duplicates": report.duplicates.map { duplicate -> [String: Any] in
                    [
                        "file": duplicate.file.path, "existingLocalIdentifier": duplicate.existingLocalIdentifier ?? NSNull(),
                        "sameAs": duplicate.sameAs?.path ?? NSNull(),
                    ]
                },
                "failures": report.failures.map { ["file": $0.file.path, "reason": $0.reason] },
                "filesExamined": report.filesExamined, "bytesRead": report.bytesRead, "seconds": seconds,
                "processBytesRead": Self.processBytesRead() ?? NSNull(), "thumbnails": thumbnailCount,
            ])
            return
        }
        for failure in report.failures { print("failed: \(failure)") }
        for duplicate in report.duplicates {
            print("duplicate: \(duplicate.file.path) (same bytes as \(duplicate.existingLocalIdentifier ?? duplicate.sameAs?.path ?? "?"))")
        }
        print(
            String(
                format: "%d files in %.1f s: %d assets imported, %d Live Photos paired, %d duplicates skipped, %d failed%@",
                report.filesExamined, seconds, report.importedLocalIdentifiers.count, report.livePhotosPaired, report.duplicates.count,
                report.failures.count, thumbnails ? ", \(thumbnailCount) thumbnails" : ""))
    }

    /// The grid thumbnail size `--thumbnails` prepares (request it with resizeMode .exact, aspectFill).
    static let gridSize = CGSize(width: 256, height: 256)

    /// Everything this process read through read(2) so far (`rchar` of /proc/self/io): files, database, libraries.
    static func processBytesRead() -> Int64? {
        guard let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("rchar:") {
            return Int64(line.dropFirst(6).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    /// One line on stderr: files, rate, ETA.
    static func drawProgress(_ progress: PHPhotoLibrary.ImportProgress, started: Date) {
        let elapsed = max(Date().timeIntervalSince(started), 0.001)
        let rate = Double(progress.filesDone) / elapsed
        let remaining = rate > 0 ? Double(progress.filesTotal - progress.filesDone) / rate : 0
        let width = 30
        let filled = progress.filesTotal > 0 ? width * progress.filesDone / progress.filesTotal : width
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let line = String(
            format: "\r%@ %d/%d files  %.1f files/s  %.0f MB  ETA %.0f s\u{1B}[K", bar, progress.filesDone, progress.filesTotal, rate,
            Double(progress.bytesDone) / 1_000_000, remaining)
        FileHandle.standardError.write(Data(line.utf8))
    }
}
