import Foundation
import OpenPhotos
import PhotosTestHarness
import PhotosTesting
import Testing

/// Changes that cross processes: the `photos` command commits while this process observes, and `photos watch`
/// observes while this process commits.
extension PhotosCommandTests {
    @Test func commitsOfAnotherProcessReachObserversOnceEachInCommitOrder() throws {
        let test = try TestLibrary(name: "TwoProcesses")
        defer { test.remove() }
        try test.addImages(3)
        let library = test.library
        let start = library.currentChangeToken
        var all = PHAsset.fetchAssets(with: test.options { $0.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: true)] })
        var favorites = PHAsset.fetchAssets(with: test.options { $0.predicate = NSPredicate(format: "favorite == YES") })
        let (a, b, c) = (all[0].localIdentifier, all[1].localIdentifier, all[2].localIdentifier)
        let recorder = ChangeRecorder()
        library.register(recorder)
        defer { library.unregisterChangeObserver(recorder) }

        // Three transactions, each committed by another process once the previous one has arrived here. (Commits
        // of another process that land between two wake-ups are all described against the later state: exact
        // for the result held, but not one transaction at a time; see ARCHITECTURE.md.)
        func commit(_ arguments: [String]) throws -> PHChange {
            let run = try photos(arguments, library: test.url)
            #expect(run.status == 0, "\(run.stderr)")
            return try recorder.next()
        }

        let favorited = try commit(["favorite", b])
        let inAll = try #require(favorited.changeDetails(for: all))
        #expect(inAll.removedIndexes == IndexSet() && inAll.insertedIndexes == IndexSet() && inAll.changedIndexes == IndexSet([1]))
        #expect(inAll.changedObjects.map(\.localIdentifier) == [b])
        #expect(inAll.changedObjects.first?.isFavorite == true)
        all = inAll.fetchResultAfterChanges
        let inFavorites = try #require(favorited.changeDetails(for: favorites))
        #expect(inFavorites.insertedIndexes == IndexSet([0]) && inFavorites.insertedObjects.map(\.localIdentifier) == [b])
        favorites = inFavorites.fetchResultAfterChanges

        let hidden = try commit(["hide", a])
        let afterHiding = try #require(hidden.changeDetails(for: all))
        #expect(afterHiding.removedIndexes == IndexSet([0]) && afterHiding.removedObjects.map(\.localIdentifier) == [a])
        #expect(afterHiding.insertedIndexes == IndexSet() && afterHiding.changedIndexes == IndexSet())
        #expect(hidden.changeDetails(for: favorites) == nil)
        all = afterHiding.fetchResultAfterChanges

        let deleted = try commit(["delete", c])
        let afterDeleting = try #require(deleted.changeDetails(for: all))
        #expect(afterDeleting.removedIndexes == IndexSet([1]) && afterDeleting.removedObjects.map(\.localIdentifier) == [c])
        all = afterDeleting.fetchResultAfterChanges
        #expect(identifiers(all) == [b])

        // Once each: nothing more arrives, and the persistent history names the same three transactions.
        #expect(recorder.nothingArrives(within: 0.3))
        let history = try library.fetchPersistentChanges(since: start).map(\.changeToken)
        #expect(history == [favorited.changeToken, hidden.changeToken, deleted.changeToken])
    }

    @Test func watchPrintsTheDetailsOfEveryCommitOfAnotherProcess() throws {
        let test = try TestLibrary(name: "Watch")
        defer { test.remove() }
        let ids = try test.addImages(3)
        let watch = try Spawned(
            Self.executable,
            ["watch", "--library", test.url.path, "--predicate", "favorite == NO", "--sort", "creationDate", "--json", "--count", "4"])
        defer { watch.kill() }
        try watch.waitForStandardError(containing: "watching 3 assets")

        // Each commit once the watcher has printed the previous one (see the test above).
        let library = test.library
        let assets = PHAsset.fetchAssets(withLocalIdentifiers: ids, options: test.options { $0.includeHiddenAssets = true })
        try library.performChangesAndWait { PHAssetChangeRequest(for: assets[0]).isFavorite = true }
        try watch.waitForStandardOutput(lines: 1)
        try library.performChangesAndWait { PHAssetChangeRequest(for: assets[1]).isHidden = true }
        try watch.waitForStandardOutput(lines: 2)
        try library.performChangesAndWait {
            _ = PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Not an asset")
        }
        try watch.waitForStandardOutput(lines: 3)
        let added = try test.addImages(1, startingAt: Date(timeIntervalSince1970: 1_600_000_000))

        let status = try watch.waitForExit()
        #expect(status == 0, "\(watch.standardError)")
        let lines = watch.standardOutput.split(separator: "\n").map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
        }
        try #require(lines.count == 4, "\(watch.standardOutput)")
        // favorite == NO loses the first asset, then hiding loses the (new) first, an album does not touch the
        // fetch, and an older photo enters at the front.
        #expect(lines[0]["removedIndexes"] as? [Int] == [0])
        #expect(lines[0]["removedLocalIdentifiers"] as? [String] == [ids[0]])
        #expect(lines[0]["count"] as? Int == 2)
        #expect(lines[1]["removedIndexes"] as? [Int] == [0])
        #expect(lines[1]["removedLocalIdentifiers"] as? [String] == [ids[1]])
        #expect(lines[1]["count"] as? Int == 1)
        #expect(lines[2]["hasDetails"] as? Bool == false)
        #expect(lines[2]["count"] as? Int == 1)
        #expect(lines[3]["insertedIndexes"] as? [Int] == [0])
        #expect(lines[3]["insertedLocalIdentifiers"] as? [String] == added)
        #expect(lines[3]["count"] as? Int == 2)
        #expect(lines.allSatisfy { ($0["moves"] as? [[Int]])?.isEmpty == true })

        // The last token printed is the library's token, and `photos changes` continues from it.
        let lastToken = try #require(lines[3]["token"] as? String)
        let current = try photos(["changes", "--json"], library: test.url)
        #expect((try current.json() as? [String: Any])?["currentToken"] as? String == lastToken)
        let firstToken = try #require(lines[0]["token"] as? String)
        let history = try photos(["changes", "--since", firstToken, "--json"], library: test.url)
        let historyObject = try #require(try history.json() as? [String: Any])
        let changes = try #require(historyObject["changes"] as? [[String: Any]])
        #expect(changes.map { $0["token"] as? String } == lines[1...].map { $0["token"] as? String })
        #expect((changes[0]["assets"] as? [String: [String]])?["updated"] == [ids[1]])
        #expect((changes[1]["assetCollections"] as? [String: [String]])?["inserted"]?.count == 1)
        #expect((changes[2]["assets"] as? [String: [String]])?["inserted"] == added)
    }

    @Test func changesRefusesATokenOfAnotherLibraryOrNoToken() throws {
        let first = try TestLibrary(name: "TokenA")
        let second = try TestLibrary(name: "TokenB")
        defer {
            first.remove()
            second.remove()
        }
        let token = try photos(["changes"], library: first.url).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let foreign = try photos(["changes", "--since", token], library: second.url)
        #expect(foreign.status != 0)
        #expect(foreign.stderr.contains("another library"))
        let garbage = try photos(["changes", "--since", "not-a-token"], library: first.url)
        #expect(garbage.status != 0)
        #expect(garbage.stderr.contains("is not a change token"))
    }
}

/// A `photos` process running beside the test, its output collected as it comes.
final class Spawned: @unchecked Sendable {
    private let process = Process()
    private let lock = NSLock()
    private var out = Data()
    private var err = Data()
    private let outPipe = Pipe()
    private let errPipe = Pipe()

    init(_ executable: URL, _ arguments: [String]) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = outPipe
        process.standardError = errPipe
        outPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.lock.withLock { self?.out.append(data) }
        }
        errPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.lock.withLock { self?.err.append(data) }
        }
        try process.run()
    }

    var standardOutput: String { lock.withLock { String(decoding: out, as: UTF8.self) } }
    var standardError: String { lock.withLock { String(decoding: err, as: UTF8.self) } }

    struct Timeout: Error, CustomStringConvertible {
        var description: String
    }

    func waitForStandardError(containing text: String, timeout: TimeInterval = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !standardError.contains(text) {
            guard Date() < deadline, process.isRunning else {
                throw Timeout(description: "no '\(text)' on stderr: \(standardError)")
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    func waitForStandardOutput(lines count: Int, timeout: TimeInterval = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while standardOutput.filter({ $0 == "\n" }).count < count {
            guard Date() < deadline, process.isRunning else {
                throw Timeout(description: "fewer than \(count) lines on stdout: \(standardOutput)")
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    func waitForExit(timeout: TimeInterval = 20) throws -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            guard Date() < deadline else { throw Timeout(description: "still running; stdout: \(standardOutput)") }
            Thread.sleep(forTimeInterval: 0.01)
        }
        // Take what the readability handlers have not taken yet.
        for (pipe, isOut) in [(outPipe, true), (errPipe, false)] {
            pipe.fileHandleForReading.readabilityHandler = nil
            let rest = pipe.fileHandleForReading.readDataToEndOfFile()
            lock.withLock { isOut ? out.append(rest) : err.append(rest) }
        }
        return process.terminationStatus
    }

    func kill() {
        if process.isRunning { process.terminate() }
    }

    var isRunning: Bool { process.isRunning }

    /// Ctrl-C: SIGINT.
    func interrupt() { process.interrupt() }
}

extension PhotosCommandTests {
    @Test func thumbnailAndExportWriteFiles() throws {
        let test = try TestLibrary(name: "Thumbs")
        defer { test.remove() }
        let ids = try test.addImages(1)
        let out = test.scratch.appendingPathComponent("thumb.png")
        let thumb = try photos(
            ["thumbnail", ids[0], "--size", "32x32", "--mode", "fill", "--resize", "exact", "--out", out.path, "--json"], library: test.url)
        #expect(thumb.status == 0, "\(thumb.stderr)")
        let written = try #require(try thumb.json() as? [String: Any])
        #expect(written["pixelWidth"] as? Int == 32 && written["pixelHeight"] as? Int == 32)
        #expect(try Data(contentsOf: out).starts(with: [0x89, 0x50, 0x4E, 0x47]))

        let folder = test.scratch.appendingPathComponent("exported")
        let export = try photos(["export", ids[0], "--out", folder.path, "--json"], library: test.url)
        #expect(export.status == 0, "\(export.stderr)")
        let files = try #require((try export.json() as? [String: Any])?["written"] as? [String])
        #expect(files.count == 1)
        let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: ids, options: test.options()).firstObject)
        let original = try #require(PHAssetResource.assetResources(for: asset).first?.fileURL)
        #expect(try Data(contentsOf: URL(fileURLWithPath: files[0])) == Data(contentsOf: original))

        let bad = try photos(["thumbnail", ids[0], "--size", "0x10", "--out", out.path], library: test.url)
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("3302"))
    }
}

extension PhotosCommandTests {
    @Test func importWithThumbnailsLeavesTheGridSizeInTheLibrary() throws {
        let dir = try TestMedia.temporaryDirectory("photos-thumbs")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = dir.appendingPathComponent("T.photoslibrary")
        for i in 0..<3 { try TestMedia.writeImage(to: dir.appendingPathComponent("p\(i).jpg"), width: 600 + i, height: 400) }
        let run = try photos(["import", dir.path, "--thumbnails", "--json"], library: library)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try #require(try run.json() as? [String: Any])
        #expect(report["thumbnails"] as? Int == 3)
        let derivatives = library.appendingPathComponent("resources/derivatives")
        let files = (FileManager.default.enumerator(atPath: derivatives.path)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".pixels") }
        #expect(files.count == 3)
        #expect(files.allSatisfy { $0.contains("256x256-fill-exact") })
    }
}

extension PhotosCommandTests {
    @Test func exportWithAPresetReencodesAVideoAndNeverReplacesAFile() throws {
        let dir = try TestMedia.temporaryDirectory("photos-export")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = dir.appendingPathComponent("E.photoslibrary")
        let movie = dir.appendingPathComponent("clip.mov")
        try TestMedia.writeMovie(to: movie, width: 1280, height: 720, seconds: 1, audio: true, audioCodec: "pcm_s16le")
        let imported = try photos(["import", movie.path, "--json"], library: library)
        let id = try #require((try imported.json() as? [String: Any])?["imported"] as? [String]).first ?? ""
        let folder = dir.appendingPathComponent("out")
        let export = try photos(["export", id, "--preset", "640x480", "--out", folder.path, "--json"], library: library)
        #expect(export.status == 0, "\(export.stderr)")
        let files = try #require((try export.json() as? [String: Any])?["written"] as? [String])
        #expect(files == [folder.appendingPathComponent("clip.mp4").path])
        let streams = try TestMedia.probeStreams(URL(fileURLWithPath: files[0]))
        #expect(streams.map(\.codec_name) == ["h264", "aac"] && streams[0].width == 640 && streams[0].height == 360)

        let again = try photos(["export", id, "--preset", "640x480", "--out", folder.path], library: library)
        #expect(again.status != 0 && again.stderr.contains("-11823"), "\(again.stderr)")
        let unknown = try photos(["export", id, "--preset", "Bogus", "--out", folder.path], library: library)
        #expect(unknown.status != 0 && unknown.stderr.contains("unknown preset"))
    }

    @Test func lsSearchesCaptionsKeywordsNamesAndDates() throws {
        let test = try TestLibrary(name: "SearchCommand")
        defer { test.remove() }
        let ids = try test.addImages(3, startingAt: Date(timeIntervalSince1970: 1_563_105_600), step: 400 * 86_400) { index, request in
            if index == 1 {
                request.caption = "Dunes at List"
                request.addKeyword("Sylt")
                request.rating = .four
            }
        }
        let found = try photos(["ls", "--json", "--search", "sylt dune"], library: test.url)
        #expect(found.status == 0, "\(found.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(found.stdout.utf8)) as? [[String: Any]])
        #expect(rows.map { $0["localIdentifier"] as? String } == [ids[1]])
        #expect(rows.first?["rating"] as? Int == 4 && rows.first?["caption"] as? String == "Dunes at List")
        #expect(rows.first?["keywords"] as? [String] == ["Sylt"])
        let byYear = try photos(["ls", "--search", "2019"], library: test.url)
        #expect(byYear.stdout.split(separator: "\n").count == 1 && byYear.stdout.contains(ids[0]))
        #expect(try photos(["ls", "--search", "nothing-like-it"], library: test.url).stdout.isEmpty)
        // photos describe: rating, caption, keywords added and removed, in one change.
        let described = try photos(
            ["describe", ids[0], "--rating", "2", "--caption", "Harbour", "--add-keyword", "boats", "--add-keyword", "kiel", "--json"],
            library: test.url)
        #expect(described.status == 0, "\(described.stderr)")
        let row = try #require((try JSONSerialization.jsonObject(with: Data(described.stdout.utf8)) as? [[String: Any]])?.first)
        #expect(row["rating"] as? Int == 2 && row["caption"] as? String == "Harbour" && row["keywords"] as? [String] == ["boats", "kiel"])
        let removed = try photos(["describe", ids[0], "--remove-keyword", "boats", "--caption", "", "--json"], library: test.url)
        let after = try #require((try JSONSerialization.jsonObject(with: Data(removed.stdout.utf8)) as? [[String: Any]])?.first)
        #expect(after["keywords"] as? [String] == ["kiel"] && after["caption"] is NSNull)
        #expect(try photos(["describe", ids[0], "--rating", "7"], library: test.url).status != 0)
        #expect(try photos(["describe", ids[0]], library: test.url).status != 0)
    }

    /// `export --version all` writes what Photos exports of an edited photo — the original, `IMG_E…` and an `.AAE` —
    /// and importing those into another library gives the same edit back.
    @Test func exportAllWritesTheEditAsPhotosDoesAndItImportsBack() throws {
        let test = try TestLibrary(name: "ExportAAE")
        defer { test.remove() }
        let original = try test.makeImage("IMG_0042.JPG", width: 64, height: 48)
        var id = ""
        try test.library.performChangesAndWait {
            id = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: original)!.placeholderForCreatedAsset!.localIdentifier
        }
        let edit = try photos(["edit", id, "--exposure", "0.5"], library: test.url)
        #expect(edit.status == 0, "\(edit.stderr)")
        let folder = test.scratch.appendingPathComponent("exported")
        let exported = try photos(["export", id, "--version", "all", "--out", folder.path, "--json"], library: test.url)
        #expect(exported.status == 0, "\(exported.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ["IMG_0042.AAE", "IMG_0042.JPG", "IMG_E0042.JPG"])
        let sidecar = try #require(AdjustmentSidecar(plist: try Data(contentsOf: folder.appendingPathComponent("IMG_0042.AAE"))))
        let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [id], options: test.options()).firstObject)
        #expect(sidecar.formatIdentifier == asset.adjustmentFormatIdentifier)
        // Again: nothing replaced.
        #expect(try photos(["export", id, "--version", "all", "--out", folder.path], library: test.url).status != 0)

        let other = try TestLibrary(name: "ImportAAE")
        defer { other.remove() }
        let report = try other.library.importItems(at: [folder])
        #expect(report.importedLocalIdentifiers.count == 1 && report.editsKept == 1, "\(report.failures)")
        let copy = try #require(PHAsset.fetchAssets(with: other.options()).firstObject)
        #expect(copy.hasAdjustments && copy.adjustmentFormatIdentifier == asset.adjustmentFormatIdentifier)
        let resources = PHAssetResource.assetResources(for: copy)
        let rendering = try #require(resources.first { $0.type == .fullSizePhoto }?.fileURL)
        #expect(try Data(contentsOf: rendering) == (try Data(contentsOf: folder.appendingPathComponent("IMG_E0042.JPG"))))
    }
}
