import ArgumentParser
import CommandLineSupport
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
            Photo. Files that cannot be read are listed with the reason, and the import goes on. Exit status: 0 when
            every file was imported or was a duplicate; 2 when some files could not be imported (the others were);
            1 when the library could not be used; 130 when interrupted (what was committed stays).
            """)
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Files and folders.") var paths: [String]
    @Flag(help: "Descend into subfolders.") var recursive = false
    @Option(help: "Assets per transaction.") var batch = 64
    @Flag(help: "Also render the grid thumbnail (256×256, aspectFill) of every imported photo into the library's derivatives.")
    var thumbnails = false

    /// Exit status when some files could not be imported and the rest were.
    static let partialFailureStatus: Int32 = 2

    func run() throws {
        let library = try global.open()
        let started = Date()
        // Which decoder reads which format: with --verbose (and always in `photos inspect`), not on every run.
        if global.verbose, !global.json {
            for line in PhotoMediaReport.decoders { FileHandle.standardError.write(Data((line + "\n").utf8)) }
        }
        Interruption.cooperate()
        let bar = LazyProgress("import", unit: "files", json: global.json)
        let report: PHPhotoLibrary.ImportReport
        do {
            report = try library.importItems(
                at: paths.map { URL(fileURLWithPath: $0) }, recursive: recursive, batchSize: batch,
                progress: { bar.update($0.filesDone, of: $0.filesTotal, bytes: $0.bytesDone) }, isCancelled: { Interruption.requested })
        } catch { throw CLIError(describe(error)) }
        bar.finish()
        var thumbnailCount = 0
        if thumbnails, !report.importedLocalIdentifiers.isEmpty, !Interruption.requested {
            thumbnailCount = renderThumbnails(report.importedLocalIdentifiers, library: library)
        }
        let interrupted = report.wasCancelled || Interruption.requested
        let seconds = Date().timeIntervalSince(started)
        if global.json {
            Output.printJSON([
                "imported": report.importedLocalIdentifiers, "livePhotosPaired": report.livePhotosPaired,
                "rawPairsJoined": report.rawPairsJoined,
                "duplicates": report.duplicates.map { duplicate -> [String: Any] in
                    [
                        "file": duplicate.file.path, "existingLocalIdentifier": duplicate.existingLocalIdentifier ?? NSNull(),
                        "sameAs": duplicate.sameAs?.path ?? NSNull(),
                    ]
                },
                "failures": report.failures.map { ["file": $0.file.path, "reason": $0.reason] },
                "skippedLinks": report.skippedLinks.map(\.path), "interrupted": interrupted,
                "filesExamined": report.filesExamined, "bytesRead": report.bytesRead, "seconds": seconds,
                "processBytesRead": Self.processBytesRead() ?? NSNull(), "thumbnails": thumbnailCount,
            ])
        } else {
            for failure in report.failures { print("failed: \(Output.printable(failure.description))") }
            for link in report.skippedLinks {
                print("skipped: \(Output.printable(link.path)) (a link to a folder already visited)")
            }
            for duplicate in report.duplicates {
                print(
                    "duplicate: \(Output.printable(duplicate.file.path)) (same bytes as \(Output.printable(duplicate.existingLocalIdentifier ?? duplicate.sameAs?.path ?? "?")))"
                )
            }
            print(
                String(
                    format:
                        "%d files in %.1f s: %d assets imported, %d Live Photos paired, %d RAW + JPEG pairs, %d duplicates skipped, %d failed%@%@",
                    report.filesExamined, seconds, report.importedLocalIdentifiers.count, report.livePhotosPaired, report.rawPairsJoined,
                    report.duplicates.count,
                    report.failures.count, thumbnails ? ", \(thumbnailCount) thumbnails" : "",
                    interrupted ? " (interrupted: the rest was not imported)" : ""))
        }
        if interrupted { throw ExitCode(Interruption.exitStatus) }
        if !report.failures.isEmpty { throw ExitCode(Self.partialFailureStatus) }
    }

    /// Renders the grid size of every imported photo, in chunks so progress can be shown and Ctrl-C heard.
    private func renderThumbnails(_ identifiers: [String], library: PHPhotoLibrary) -> Int {
        let manager = PHCachingImageManager()
        let assets = PHAsset.fetchAssets(
            withLocalIdentifiers: identifiers,
            options: global.options(library) {
                $0.includeHiddenAssets = true
                $0.includeAllBurstAssets = true
            })
        let photos = assets.objects(at: IndexSet(0..<assets.count)).filter { $0.mediaType == .image }
        let options = PHImageRequestOptions()
        options.resizeMode = .exact
        options.isNetworkAccessAllowed = true
        let bar = ProgressReporter("thumbnails", total: photos.count, unit: "photos", json: global.json)
        var done = 0
        // One rendering per photo, on every core; each original is decoded once (shrink-on-load for JPEG).
        for start in stride(from: 0, to: photos.count, by: 64) where !Interruption.requested {
            let chunk = Array(photos[start..<min(start + 64, photos.count)])
            manager.startCachingImages(for: chunk, targetSize: Self.gridSize, contentMode: .aspectFill, options: options)
            manager.waitForCaching()
            done += chunk.count
            bar.update(done)
        }
        bar.finish()
        return done
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

}
