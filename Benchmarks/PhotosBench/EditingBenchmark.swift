import BuiltInEditor
import ArgumentParser
import CBenchBaselines
import CVipsShims
import CommandLineSupport
import EditingExtensionHost
import Foundation
import OpenPhotos
import PhotosTesting

struct BenchEditing: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "editing",
        abstract: "Measure content editing: the editing input, the built-in editor end to end, the commit, and a long churn.",
        discussion: """
            In one run, medians of --repetitions, on a generated 12-MP JPEG and a 48-MP HEIC (a grid of HEVC tiles, as an
            iPhone writes it) in a new library:
            requestContentEditingInput until the handler has displaySizeImage and fullSizeImageURL, against an in-process
            vips_thumbnail of the same file to the same display size (2048 px);
            the built-in editor (what `photos edit` runs: input, crop + exposure + saturation through Core Image, JPEG,
            commit) against the same operations written directly against libvips plus the median commit;
            committing an edit, rendering excluded (a prepared JPEG copied into each output);
            then --edits edits (built-in and a foreign editor's, so edits reopen and stack) and --reverts reverts over
            --assets photos, after which `verify` must be clean, with no orphan, and the library's files must be exactly
            the originals, current renderings, previous versions and recipes its rows name. Build with -c release:
            swift run -c release photos-bench editing
            """)
    @Option(help: "Timed repetitions per measurement.") var repetitions = 9
    @Option(help: "Edits of the churn.") var edits = 1000
    @Option(help: "Reverts of the churn.") var reverts = 200
    @Option(help: "Photos of the churn.") var assets = 40
    @Flag(help: "Skip the 48-MP HEIC (encoding it takes a while).") var skipHEIC = false
    @Option(
        help: "The test fixture extension for the round trip (swift build -c release --product broken-extension); skipped when missing.")
    var extensionProgram = ".build/release/broken-extension"
    @Flag(help: "Print JSON.") var json = false

    static let recipe = PhotoEditRecipe(steps: [.crop(x: 0.05, y: 0.05, width: 0.9, height: 0.9), .exposure(ev: 0.3), .saturation(1.15)])!

    func run() throws {
        let scratch = try TestMedia.temporaryDirectory("OpenPhotoKit-bench-editing")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let library = try PHPhotoLibrary(url: scratch.appendingPathComponent("Bench.photoslibrary"), clientIdentifier: nil)
        let jpeg = scratch.appendingPathComponent("IMG_12MP.jpg")
        try TestMedia.writeImage(to: jpeg, width: 4032, height: 3024, quality: 92)
        var files = [("12-MP JPEG", jpeg)]
        if !skipHEIC {
            let heic = scratch.appendingPathComponent("IMG_48MP.heic")
            if !json { print("encoding a 48-MP HEIC grid…") }
            try TestMedia.writeHEICGrid(to: heic, width: 8064, height: 6048, tile: 504, quality: 80) { x, y in
                [UInt8(x * 255 / 8064), UInt8(y * 255 / 6048), UInt8((x + y) * 255 / 14112)]
            }
            files.append(("48-MP HEIC", heic))
        }
        var identifiers: [String] = []
        try library.performChangesAndWait {
            for (_, file) in files {
                identifiers.append(
                    PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)!.placeholderForCreatedAsset!.localIdentifier)
            }
        }
        func asset(_ identifier: String) throws -> PHAsset { try fetchAsset(identifier, in: library) }
        var rows: [(String, Double, Double, String)] = []

        // 1. The editing input against vips_thumbnail of the stored original to the same size.
        for ((name, _), identifier) in zip(files, identifiers) {
            let target = try asset(identifier)
            guard let original = PHAssetResource.assetResources(for: target).first(where: { $0.type == .photo })?.fileURL else {
                throw CLIError("no original")
            }
            var kept: [PHContentEditingInput] = []
            let times = try pair(
                {
                    let input = try waitFor { try await target.requestContentEditingInput(with: nil) }
                    guard input.displaySizeImage != nil, input.fullSizeImageURL != nil else { throw CLIError("an incomplete input") }
                    kept.append(input)  // released after the timing (its copy is removed then)
                }, { guard cbench_thumbnail_to_memory(original.path, 2048) == 0 else { throw CLIError("vips_thumbnail failed") } })
            kept.removeAll()
            rows.append(("requestContentEditingInput, \(name) (display 2048 px + full-size copy)", times.0, times.1, "≤ 1.2×"))
        }

        // 2. Committing, rendering excluded: a prepared 12-MP rendering copied into each output.
        let target = try asset(identifiers[0])
        let prepared = scratch.appendingPathComponent("prepared.jpg")
        try TestMedia.writeImage(to: prepared, width: 3629, height: 2722, quality: 92)
        var commits: [Double] = []
        for repetition in 0..<(repetitions * 2 + 1) {
            let current = try asset(identifiers[0])
            let input = try waitFor { try await current.requestContentEditingInput(with: nil) }
            let output = PHContentEditingOutput(contentEditingInput: input)
            try FileManager.default.copyItem(at: prepared, to: output.renderedContentURL)
            output.adjustmentData = PHAdjustmentData(formatIdentifier: "org.example.bench", formatVersion: "1.0", data: Data("\(repetition)".utf8))
            let start = DispatchTime.now()
            try library.performChangesAndWait { PHAssetChangeRequest(for: current).contentEditingOutput = output }
            commits.append(ms(since: start))
        }
        let commit = median(commits)

        // 3. The built-in editor end to end against libvips doing the same operations, plus the commit.
        let vipsOut = scratch.appendingPathComponent("vips.jpg")
        guard let original = PHAssetResource.assetResources(for: target).first(where: { $0.type == .photo })?.fileURL else {
            throw CLIError("no original")
        }
        let editTimes = try pair(
            {
                let current = try asset(identifiers[0])
                _ = try waitFor { try await PhotoEditRecipe.edit(current) { _ in Self.recipe } }
            },
            {
                guard cbench_crop_exposure_saturation(original.path, vipsOut.path, 0.05, 0.05, 0.9, 0.9, 0.3, 1.15, 92) == 0 else {
                    throw CLIError("libvips failed: \(String(cString: vips_error_buffer()))")
                }
            })
        rows.append(("built-in edit (crop + exposure + saturation), 12-MP JPEG, end to end", editTimes.0, editTimes.1 + commit, "≤ 1.25×"))

        // 4. An extension round trip without the edit itself: spawn, handshake, the input's copies, the output
        //    handed back unchanged, validation and commit.
        var roundTrip: (median: Double, max: Double)?
        var coldRoundTrip = 0.0
        if FileManager.default.isExecutableFile(atPath: extensionProgram) {
            let folder = scratch.appendingPathComponent("extensions")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let fixture = try EditingExtension.install(executable: URL(fileURLWithPath: extensionProgram), into: folder)
            let upright = scratch.appendingPathComponent("IMG_upright.jpg")
            try TestMedia.writeImage(to: upright, width: 4032, height: 3024, quality: 92)
            var id = ""
            try library.performChangesAndWait {
                id = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: upright)!.placeholderForCreatedAsset!.localIdentifier
            }
            func sessions() throws -> [Double] {
                var times: [Double] = []
                for _ in 0..<(repetitions * 2 + 1) {
                    let target = try asset(id)
                    let start = DispatchTime.now()
                    do { try EditingSession(extension: fixture, asset: target, settings: ["fault": "copy"]).run() } catch {
                        throw CLIError("the round trip failed: \(error)")
                    }
                    times.append(ms(since: start))
                    usleep(300_000)  // a host between two edits (the spare process starts meanwhile)
                }
                return times
            }
            let cold = try sessions()
            EditingSession.prepare(fixture)
            usleep(300_000)
            let warm = try sessions()
            roundTrip = (median(warm), warm.max() ?? 0)
            coldRoundTrip = median(cold)
        }

        // 5. The churn.
        let churn = try self.churn(in: scratch)

        if json {
            printBenchJSON([
                "repetitions": repetitions,
                "rows": rows.map {
                    ["measurement": $0.0, "openPhotoKitMilliseconds": $0.1, "baselineMilliseconds": $0.2, "ratio": $0.1 / $0.2, "goal": $0.3]
                },
                "commitMilliseconds": ["median": commit, "max": commits.max() ?? 0, "goal": "≤ 10 ms median"],
                "extensionRoundTripMilliseconds": roundTrip.map {
                    ["median": $0.median, "max": $0.max, "goal": "≤ 50 ms median", "startedOnDemandMedian": coldRoundTrip]
                } ?? NSNull(),
                "churn": churn,
            ])
            return
        }
        print("Content editing (medians of \(repetitions), one run; baselines: vips_thumbnail / libvips + the median commit)")
        for row in rows {
            print(
                String(
                    format: "  %@\n      %.1f ms, baseline %.1f ms: %.2f× (goal %@)", row.0, row.1, row.2, row.1 / row.2, row.3))
        }
        print(
            String(format: "  commit of an edit, rendering excluded: median %.2f ms, max %.2f ms (goal ≤ 10 ms median)", commit, commits.max() ?? 0))
        if let roundTrip {
            print(
                String(
                    format:
                        "  extension round trip, 12-MP JPEG, no edit (handshake, copies, validation, commit), process started ahead: median %.1f ms, max %.1f ms (goal ≤ 50 ms); started on demand: median %.1f ms",
                    roundTrip.median, roundTrip.max, coldRoundTrip))
        } else {
            print("  extension round trip: skipped (no \(extensionProgram); swift build -c release --product broken-extension)")
        }
        print(
            "  churn: \(churn["edits"]!) edits (\(churn["stacked"]!) stacked on another editor's), \(churn["reverts"]!) reverts over \(churn["assets"]!) photos in \(churn["seconds"]!) s"
        )
        print(
            "    verify: \(churn["verifyProblems"]!) problems, \(churn["orphans"]!) orphans; files \(churn["fileBytes"]!) bytes = originals \(churn["originalBytes"]!) + current \(churn["currentBytes"]!) + previous \(churn["previousBytes"]!) + recipes \(churn["recipeBytes"]!) (\(churn["accountedFor"]! as! Bool ? "exactly" : "NOT"))"
        )
    }

    func pair(_ ours: () throws -> Void, _ theirs: () throws -> Void) throws -> (Double, Double) {
        try alternatingMedians(repetitions: repetitions, ours, theirs)
    }

    /// Many edits and reverts, then the library's files are checked against its rows.
    func churn(in scratch: URL) throws -> [String: Any] {
        let url = scratch.appendingPathComponent("Churn.photoslibrary")
        let library = try PHPhotoLibrary(url: url, clientIdentifier: nil)
        var identifiers: [String] = []
        for batch in stride(from: 0, to: assets, by: 20) {
            var files: [URL] = []
            for index in batch..<min(assets, batch + 20) {
                let file = scratch.appendingPathComponent("churn-\(index).jpg")
                try TestMedia.writeImage(to: file, width: 640 + index, height: 480)
                files.append(file)
            }
            try library.performChangesAndWait {
                for file in files {
                    identifiers.append(
                        PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)!.placeholderForCreatedAsset!.localIdentifier)
                }
            }
        }
        func fetch(_ identifier: String) throws -> PHAsset { try fetchAsset(identifier, in: library) }
        var random = SplitMix64(seed: 14)
        var (edited, stacked, reverted) = (0, 0, 0)
        let started = Date()
        let bar = ProgressReporter("churn", total: edits + reverts, unit: "changes", json: json)
        while edited + reverted < edits + reverts {
            let asset = try fetch(identifiers[random.next(below: identifiers.count)])
            let revertNow = reverted < reverts && (edited >= edits || random.next(below: edits + reverts) < reverts)
            if revertNow {
                if asset.hasAdjustments {
                    try library.performChangesAndWait { PHAssetChangeRequest(for: asset).revertAssetContentToOriginal() }
                }
                reverted += 1
            } else if random.next(below: 5) == 0 {
                // A foreign editor: it cannot read the recipe, so its edit stacks on the current rendering.
                let input = try waitFor { try await asset.requestContentEditingInput(with: nil) }
                guard let file = input.fullSizeImageURL, let image = CIImage(contentsOf: file, options: [.applyOrientationProperty: true])
                else { throw CLIError("cannot read an input") }
                let output = PHContentEditingOutput(contentEditingInput: input)
                try CIContext().writeJPEGRepresentation(
                    of: image.applyingFilter("CIPhotoEffectMono"), to: output.renderedContentURL, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!)
                output.adjustmentData = PHAdjustmentData(formatIdentifier: "org.example.mono", formatVersion: "1.0", data: Data("mono".utf8))
                try library.performChangesAndWait { PHAssetChangeRequest(for: asset).contentEditingOutput = output }
                if asset.hasAdjustments { stacked += 1 }
                edited += 1
            } else {
                let ev = Double(random.next(below: 200)) / 100 - 1
                _ = try waitFor { try await PhotoEditRecipe.edit(asset) { $0.setting(.exposure(ev: ev)) } }
                edited += 1
            }
            bar.update(edited + reverted)
        }
        bar.finish()
        let seconds = Date().timeIntervalSince(started)
        let check = try library.verify()
        var bytes: [Int: Int64] = [:]
        let options = PHFetchOptions()
        options.photoLibrary = library
        options.includeHiddenAssets = true
        PHAsset.fetchAssets(with: options).enumerateObjects { asset, _, _ in
            for resource in PHAssetResource.assetResources(for: asset) { bytes[resource.type.rawValue, default: 0] += resource.fileSize }
        }
        var fileBytes: Int64 = 0
        var inodes = Set<UInt64>()
        if let enumerator = FileManager.default.enumerator(at: url.appendingPathComponent("originals"), includingPropertiesForKeys: nil) {
            for case let file as URL in enumerator {
                var info = stat()
                guard lstat(file.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, inodes.insert(UInt64(info.st_ino)).inserted else { continue }
                fileBytes += Int64(info.st_size)
            }
        }
        let accounted = bytes.values.reduce(0, +)
        return [
            "assets": assets, "edits": edited, "stacked": stacked, "reverts": reverted, "seconds": String(format: "%.1f", seconds),
            "verifyProblems": check.problems.filter { $0.kind != "orphanFile" }.count,
            "orphans": check.problems.filter { $0.kind == "orphanFile" }.count, "fileBytes": fileBytes, "originalBytes": bytes[1] ?? 0,
            "currentBytes": bytes[5] ?? 0, "previousBytes": bytes[8] ?? 0, "recipeBytes": bytes[7] ?? 0, "accountedFor": fileBytes == accounted,
        ]
    }
}
