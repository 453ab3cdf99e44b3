import Foundation
import GRDB
import OpenPhotos
import PhotoLibraryEngine
import PhotosTestHarness
import PhotosTesting
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The command line as a new user meets it, and as an attacker feeds it.
extension PhotosCommandTests {
    /// A library with one generated photo; returns the library, its asset's identifier and a scratch folder.
    func libraryWithOnePhoto(_ label: String) throws -> (library: URL, id: String, dir: URL) {
        let dir = try TestMedia.temporaryDirectory(label)
        let library = dir.appendingPathComponent("L.photoslibrary")
        let photo = dir.appendingPathComponent("photo.jpg")
        try TestMedia.writeImage(to: photo, width: 30, height: 20)
        let added = try photos(["add", photo.path, "--json"], library: library)
        let id = try #require((try added.json() as? [[String: Any]])?.first?["localIdentifier"] as? String, "\(added.stderr)")
        return (library, id, dir)
    }

    func database(_ library: URL) throws -> DatabaseQueue {
        try DatabaseQueue(path: library.appendingPathComponent("database/Photos.sqlite").path)
    }

    @Test func globalOptionsGoBeforeOrAfterTheCommand() throws {
        let (library, id, dir) = try libraryWithOnePhoto("cli-globals")
        defer { try? FileManager.default.removeItem(at: dir) }
        for arguments in [
            ["--library", library.path, "--json", "ls"], ["--json", "--library=\(library.path)", "ls"], ["ls", "--json", "--library", library.path],
        ] {
            let run = try photos(arguments, library: nil)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            #expect((try? run.json() as? [[String: Any]])?.first?["localIdentifier"] as? String == id, "\(arguments)")
        }
        let version = try photos(["--version"], library: nil)
        #expect(version.status == 0)
        #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3)
        let completion = try photos(["--generate-completion-script", "bash"], library: nil)
        #expect(completion.status == 0 && completion.stdout.contains("photos"))
    }

    @Test func hiddenAndBurstAssetsInRecentlyDeletedCanBeNamed() throws {
        let (library, id, dir) = try libraryWithOnePhoto("cli-trash")
        defer { try? FileManager.default.removeItem(at: dir) }
        let frame = dir.appendingPathComponent("frame.jpg")
        try TestMedia.writeImage(to: frame, width: 31, height: 20)
        let added = try photos(["add", frame.path, "--json"], library: library)
        let frameID = try #require((try added.json() as? [[String: Any]])?.first?["localIdentifier"] as? String)
        // A burst frame that is not the representative (burst_hidden), and a hidden photo.
        try database(library).write { db in
            try db.execute(sql: "UPDATE asset SET burst_identifier = 'B1', burst_hidden = 1 WHERE local_id = ?", arguments: [frameID])
        }
        #expect(try photos(["hide", id], library: library).status == 0)
        for asset in [id, frameID] {
            let deleted = try photos(["delete", asset], library: library)
            #expect(deleted.status == 0, "\(deleted.stderr)")
            let favorite = try photos(["favorite", String(asset.prefix(8))], library: library)
            #expect(favorite.status == 0, "\(favorite.stderr)")
            let recovered = try photos(["recover", asset], library: library)
            #expect(recovered.status == 0, "\(recovered.stderr)")
        }
        #expect(try photos(["hide", id, "--off"], library: library).status == 0)
        let listed = try photos(["ls", "--json", "--include-all-burst-assets"], library: library)
        #expect((try listed.json() as? [[String: Any]])?.count == 2)
    }

    @Test func onlyTheOwnerGrantsAccess() throws {
        let (library, _, dir) = try libraryWithOnePhoto("cli-grant")
        defer { try? FileManager.default.removeItem(at: dir) }
        let selfGrant = try photos(["grant", "x", "readWrite"], library: library, client: "x")
        #expect(selfGrant.status != 0)
        #expect(selfGrant.stderr.contains("only the library's owner may decide access"))
        let byOther = try photos(["grant", "--default", "readWrite"], library: library, client: "y")
        #expect(byOther.status != 0)
        let byOwner = try photos(["grant", "--default", "readWrite"], library: library)
        #expect(byOwner.status == 0, "\(byOwner.stderr)")
        #expect(try photos(["grant", "x", "denied"], library: library).status == 0)
        #expect(try photos(["ls"], library: library, client: "x").stdout.isEmpty)
    }

    @Test func namesAndPathsFromTheDatabaseNeverLeaveTheirFolders() throws {
        let (library, id, dir) = try libraryWithOnePhoto("cli-paths")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        // A crafted name: the export stays in --out under a sanitised last component.
        try database(library).write { db in
            try db.execute(sql: "UPDATE resource SET original_filename = '../../escaped.jpg'")
        }
        let exported = try photos(["export", id, "--out", out.path], library: library)
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["escaped.jpg"])
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("escaped.jpg").path))

        // A long name (over NAME_MAX once a temporary suffix is added) exports under its own name.
        let long = String(repeating: "n", count: 240) + ".jpg"
        try database(library).write { db in try db.execute(sql: "UPDATE resource SET original_filename = ?", arguments: [long]) }
        let longExport = try photos(["export", id, "--out", out.appendingPathComponent("long").path], library: library)
        #expect(longExport.status == 0, "\(longExport.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.appendingPathComponent("long").path) == [long])

        // Control characters in names never reach the terminal raw.
        try database(library).write { db in
            try db.execute(sql: "UPDATE resource SET original_filename = ?", arguments: ["a\u{1B}[31mred\nforged line.jpg"])
        }
        let listed = try photos(["ls"], library: library)
        #expect(listed.stdout.split(separator: "\n").count == 1)
        #expect(!listed.stdout.contains("\u{1B}"))
        #expect(listed.stdout.contains("a\\x1B[31mred\\nforged line.jpg"))

        // A crafted resource path: nothing outside the library is read, exported or deleted.
        let outside = dir.appendingPathComponent("outside.jpg")
        try TestMedia.writeImage(to: outside, width: 10, height: 10)
        try database(library).write { db in
            try db.execute(sql: "UPDATE resource SET path = '../outside.jpg', original_filename = 'x.jpg'")
        }
        let thumbnail = try photos(["thumbnail", id, "--size", "8x8", "--out", dir.appendingPathComponent("t.png").path], library: library)
        #expect(thumbnail.status != 0)
        let leaked = try photos(["export", id, "--out", dir.appendingPathComponent("leak").path], library: library)
        #expect(leaked.status != 0)
        let leakedFiles = (try? FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("leak").path)) ?? []
        #expect(leakedFiles.isEmpty, "\(leakedFiles)")
        #expect(try photos(["delete", id], library: library).status == 0)
        #expect(try photos(["empty-trash"], library: library).status == 0)
        #expect(FileManager.default.fileExists(atPath: outside.path))
        let verify = try photos(["verify"], library: library)
        #expect(verify.status != 0 || verify.stdout.contains("0 problems") || verify.stdout.contains("no problem"))
    }

    @Test func importReportsEveryFileItCannotTakeAndSaysSoInItsStatus() throws {
        let dir = try TestMedia.temporaryDirectory("cli-hostile-import")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = dir.appendingPathComponent("L.photoslibrary")
        let card = dir.appendingPathComponent("card")
        let sub = card.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        try TestMedia.writeImage(to: card.appendingPathComponent("good.jpg"), width: 20, height: 10)
        try TestMedia.writeImage(to: sub.appendingPathComponent("deeper.jpg"), width: 21, height: 10)
        try Data("not a photo".utf8).write(to: card.appendingPathComponent("notes.jpg"))
        #expect(mkfifo(card.appendingPathComponent("pipe.jpg").path, 0o644) == 0)
        // Two links back up the tree: without loop detection the walk never ends.
        try FileManager.default.createSymbolicLink(atPath: sub.appendingPathComponent("up").path, withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(atPath: sub.appendingPathComponent("again").path, withDestinationPath: "../sub")
        // A name that is not UTF-8.
        let badName: [CChar] = (Array(card.path.utf8) + Array("/IMG_".utf8) + [0xFF] + Array(".jpg".utf8) + [0]).map { CChar(bitPattern: $0) }
        let made = creat(badName, 0o644)
        #expect(made >= 0)
        close(made)

        let run = try photos(["import", card.path, "--recursive", "--json"], library: library)
        #expect(run.status == 2, "\(run.stderr)")
        let report = try #require(try run.json() as? [String: Any])
        #expect((report["imported"] as? [String])?.count == 2)
        let failures = (report["failures"] as? [[String: String]]) ?? []
        #expect(failures.count == 3, "\(failures)")
        #expect(failures.contains { $0["file"]?.hasSuffix("IMG_\\xFF.jpg") == true && $0["reason"]?.contains("not valid UTF-8") == true })
        #expect(failures.contains { $0["file"]?.hasSuffix("pipe.jpg") == true && $0["reason"]?.contains("not a regular file") == true })
        #expect(failures.contains { $0["file"]?.hasSuffix("notes.jpg") == true })
        #expect((report["skippedLinks"] as? [String])?.count == 2)

        // A FIFO given to inspect is refused at once, never opened for reading.
        let inspect = try photos(["inspect", card.appendingPathComponent("pipe.jpg").path], library: nil)
        #expect(inspect.status == 1)
        #expect(inspect.stdout.contains("not a regular file (a FIFO)"))
    }

    @Test func aDatabaseErrorFailsTheCommandInsteadOfPrintingNothing() throws {
        let (library, _, dir) = try libraryWithOnePhoto("cli-db-error")
        defer { try? FileManager.default.removeItem(at: dir) }
        try database(library).write { db in try db.execute(sql: "ALTER TABLE asset RENAME COLUMN burst_hidden TO gone") }
        let listed = try photos(["ls"], library: library)
        #expect(listed.status != 0)
        #expect(listed.stderr.contains("burst_hidden"))
        #expect(listed.stdout.isEmpty)
    }
}

extension PhotosCommandTests {
    /// A library with a JPEG cut at two thirds imported into it (libjpeg warns "Premature end of JPEG file" while
    /// libvips still decodes it): the library, the asset's id and the folder to remove.
    func libraryWithATruncatedJPEG(_ label: String) throws -> (library: URL, id: String, dir: URL) {
        let (library, _, dir) = try libraryWithOnePhoto(label)
        let whole = dir.appendingPathComponent("whole.jpg")
        try TestMedia.writeImage(to: whole, width: 400, height: 300)
        let data = try Data(contentsOf: whole)
        let cut = dir.appendingPathComponent("cut.jpg")
        try data.prefix(data.count * 2 / 3).write(to: cut)
        let imported = try photos(["import", cut.path, "--json"], library: library)
        let id = try #require((try imported.json() as? [String: Any])?["imported"] as? [String]).first ?? ""
        return (library, id, dir)
    }

    @Test func decoderWarningsAreLoggedWithTheirFileOnlyWhenAskedFor() throws {
        let (library, id, dir) = try libraryWithATruncatedJPEG("cli-warnings")
        defer { try? FileManager.default.removeItem(at: dir) }
        let quiet = try photos(["thumbnail", id, "--size", "64x64", "--out", dir.appendingPathComponent("q.png").path], library: library)
        #expect(quiet.status == 0, "\(quiet.stderr)")
        #expect(!quiet.stderr.contains("Premature end of JPEG file"))
        #expect(!quiet.stdout.contains("WARNING"))
        let verbose = try photos(
            ["--verbose", "thumbnail", id, "--size", "64x65", "--out", dir.appendingPathComponent("v.png").path], library: library)
        #expect(verbose.status == 0, "\(verbose.stderr)")
        let line = try #require(verbose.stderr.split(separator: "\n").first { $0.contains("Premature end of JPEG file") })
        #expect(line.contains("warning") && line.contains("file=") && line.contains("/originals/"))
    }
}

extension PhotosCommandTests {
    /// A 16000 × 16000 PNG (256 megapixels, under the import pixel limit): its full size is streamed to a file with
    /// bounded memory, and the image manager refuses to hold it whole in memory with a typed error.
    @Test func fullSizeRenderingsOfHugeImagesKeepMemoryBounded() throws {
        let dir = try TestMedia.temporaryDirectory("cli-huge")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = dir.appendingPathComponent("L.photoslibrary")
        let huge = dir.appendingPathComponent("huge.png")
        try TestMedia.writeImage(to: huge, width: 16_000, height: 16_000)
        let imported = try photos(["import", huge.path, "--json"], library: library)
        let id = try #require((try imported.json() as? [String: Any])?["imported"] as? [String]).first ?? ""

        let out = dir.appendingPathComponent("full.png")
        let streamed = try ChildProcess.run(
            Self.executable, ["thumbnail", id, "--size", "max", "--out", out.path, "--json", "--library", library.path])
        #expect(streamed.status == 0)
        let written = try #require(try JSONSerialization.jsonObject(with: streamed.standardOutput) as? [String: Any])
        #expect(written["pixelWidth"] as? Int == 16_000 && written["pixelHeight"] as? Int == 16_000)
        // 256 megapixels are 750 MiB of RGB; the stream holds strips of them (about 100 MiB alone; up to 450 MiB was
        // seen with every core busy with other tests, when libvips' threads buffer more lines). Before: 1.55 GB.
        #expect(streamed.maxRSSKilobytes < 650_000, "peak \(streamed.maxRSSKilobytes) KiB")

        let inMemory = try photos(
            ["thumbnail", id, "--size", "max", "--crop", "0,0,1,1", "--resize", "exact", "--out", dir.appendingPathComponent("x.png").path],
            library: library)
        #expect(inMemory.status != 0)
        #expect(inMemory.stderr.contains("100-megapixel limit") && inMemory.stderr.contains("3307"), "\(inMemory.stderr)")
        // A smaller size of the same image is fine.
        let small = try photos(["thumbnail", id, "--size", "512x512", "--out", dir.appendingPathComponent("s.jpg").path], library: library)
        #expect(small.status == 0, "\(small.stderr)")
    }
}

extension PhotosCommandTests {
    @Test func ctrlCStopsAnImportBetweenStepsAndLeavesTheLibraryConsistent() throws {
        let dir = try TestMedia.temporaryDirectory("cli-interrupt")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = dir.appendingPathComponent("L.photoslibrary")
        let card = dir.appendingPathComponent("card")
        try FileManager.default.createDirectory(at: card, withIntermediateDirectories: true)
        let count = 400
        for index in 0..<count {
            try TestMedia.writeImage(to: card.appendingPathComponent(String(format: "IMG_%04d.jpg", index)), width: 24 + index, height: 16)
        }
        let importer = try Spawned(Self.executable, ["import", card.path, "--batch", "1", "--library", library.path])
        try importer.waitForStandardError(containing: "import: ")
        importer.interrupt()
        let status = try importer.waitForExit(timeout: 60)
        #expect(status == 130, "\(importer.standardOutput)\(importer.standardError)")
        #expect(importer.standardOutput.contains("(interrupted: the rest was not imported)"), "\(importer.standardOutput)")
        #expect(importer.standardError.contains("interrupted: finishing the current step"))
        let listed = try photos(["ls", "--json"], library: library)
        let imported = (try listed.json() as? [Any])?.count ?? -1
        #expect(imported >= 0 && imported < count)
        let verify = try photos(["verify"], library: library)
        #expect(verify.status == 0, "\(verify.stdout)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: library.appendingPathComponent("private/writers").path)
        #expect(leftovers.isEmpty, "\(leftovers)")
    }
}

extension PhotosCommandTests {
    /// One HEIC on which libheif aborts, among good files: before the HEIF helper, `photos import` died with nothing
    /// committed (0 of 12 good files). Now the good files are imported and the damaged one is reported with its reason.
    @Test func aHEICThatAbortsLibheifFailsAloneInItsImport() throws {
        let dir = try TestMedia.temporaryDirectory("cli-heif-abort")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = dir.appendingPathComponent("Import.photoslibrary")
        let folder = dir.appendingPathComponent("card")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for index in 0..<6 {
            try TestMedia.writeHEICGrid(to: folder.appendingPathComponent("IMG_\(index).HEIC"), width: 32, height: 16 * (index + 1), tile: 16) {
                x, y in [UInt8(x), UInt8(y), UInt8(index * 40)]
            }
            try TestMedia.writeImage(to: folder.appendingPathComponent("IMG_\(index + 6).JPG"), width: 40 + index, height: 30)
        }
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("FuzzCorpus/heif/abort-bitstreamrange-1.heic")
        try FileManager.default.copyItem(at: corpus, to: folder.appendingPathComponent("IMG_9999.HEIC"))

        let run = try photos(["import", folder.path, "--json"], library: library)
        #expect(run.status == 2, "\(run.stderr)")
        let report = try #require(try run.json() as? [String: Any])
        #expect((report["imported"] as? [String])?.count == 12)
        let failures = (report["failures"] as? [[String: String]]) ?? []
        #expect(failures.count == 1, "\(failures)")
        #expect(failures.first?["file"]?.hasSuffix("IMG_9999.HEIC") == true)
        #expect(failures.first?["reason"]?.contains("damaged") == true, "\(failures)")
        #expect(try photos(["verify"], library: library).status == 0)
    }
}

extension PhotosCommandTests {
    /// A file whose name cannot be a resource's name (a newline in it) failed its whole import batch, and every file
    /// of the batch was reported with its reason. Now it fails alone, with its own reason.
    @Test func anOddFileNameFailsOnlyItsOwnFile() throws {
        let dir = try TestMedia.temporaryDirectory("cli-odd-name")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = dir.appendingPathComponent("Odd.photoslibrary")
        let folder = dir.appendingPathComponent("card")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for index in 0..<3 { try TestMedia.writeImage(to: folder.appendingPathComponent("IMG_\(index).jpg"), width: 30 + index, height: 20) }
        try TestMedia.writeImage(to: folder.appendingPathComponent("two\nlines.jpg"), width: 50, height: 20)

        let run = try photos(["import", folder.path, "--json"], library: library)
        #expect(run.status == 2, "\(run.stderr)")
        let report = try #require(try run.json() as? [String: Any])
        #expect((report["imported"] as? [String])?.count == 3)
        let failures = (report["failures"] as? [[String: String]]) ?? []
        #expect(failures.count == 1, "\(failures)")
        #expect(failures.first?["file"]?.hasSuffix("lines.jpg") == true)
        #expect(failures.first?["reason"]?.contains("not a file name") == true, "\(failures)")
    }
}

extension PhotosCommandTests {
    /// A truncated JPEG imports and makes thumbnails (grey where its data ends); it is edited the same way instead
    /// of failing with "Premature end of input file".
    @Test func aTruncatedJPEGIsEditedAsItDecodes() throws {
        let (library, id, dir) = try libraryWithATruncatedJPEG("cli-truncated-edit")
        defer { try? FileManager.default.removeItem(at: dir) }
        let edit = try photos(["edit", id, "--exposure", "0.3"], library: library)
        #expect(edit.status == 0, "\(edit.stderr)")
        #expect(edit.stdout.contains("exposure"), "\(edit.stdout)")
    }
}

extension PhotosCommandTests {
    /// `photos SUBCOMMAND` through the shell, so that an argument can be bytes that are not UTF-8 (`printf`).
    func photosThroughShell(_ script: String, library: URL) throws -> PhotosCommandLine.Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        var environment = ProcessInfo.processInfo.environment
        environment["PHOTOS"] = Self.executable.path
        environment["PHOTOS_LIBRARY"] = library.path
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let errors = Mutex(Data())
        let reader = Thread { errors.withLock { $0 = err.fileHandleForReading.readDataToEndOfFile() } }
        reader.start()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !reader.isFinished { usleep(1000) }
        return .init(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: errors.withLock { $0 }, as: UTF8.self))
    }

    /// A name that is not UTF-8 given to `add` or `inspect` said "no file at …" (Swift had replaced its bad byte, and so
    /// named another file); a right-to-left override in a name was printed raw; `import` printed the decoder list on
    /// every run.
    @Test func namesThatAreNotUTF8OrDisguisedAreSaidSo() throws {
        let (library, _, dir) = try libraryWithOnePhoto("cli-names")
        defer { try? FileManager.default.removeItem(at: dir) }
        let raw: [CChar] = (Array(dir.path.utf8) + Array("/IMG_".utf8) + [0xFF] + Array(".jpg".utf8) + [0]).map { CChar(bitPattern: $0) }
        let made = creat(raw, 0o644)
        #expect(made >= 0)
        close(made)
        let quoted = "'\(dir.path)'/\"$(printf 'IMG_\\377.jpg')\""
        let add = try photosThroughShell("exec \"$PHOTOS\" add \(quoted)", library: library)
        #expect(add.status != 0)
        #expect(add.stderr.contains("IMG_\\xFF.jpg: the file name is not valid UTF-8"), "\(add.stderr)")
        #expect(!add.stderr.contains("no file at"), "\(add.stderr)")
        let inspect = try photosThroughShell("exec \"$PHOTOS\" inspect \(quoted)", library: library)
        #expect(inspect.status == 1)
        #expect(inspect.stdout.contains("not valid UTF-8"), "\(inspect.stdout)")

        // A right-to-left override: shown escaped wherever the name is printed.
        let disguised = dir.appendingPathComponent("IMG_\u{202E}gpj.exe")
        try TestMedia.writeImage(to: dir.appendingPathComponent("plain.jpg"), width: 20, height: 10)
        try FileManager.default.moveItem(at: dir.appendingPathComponent("plain.jpg"), to: disguised)
        let inspected = try photos(["inspect", disguised.path], library: nil)
        #expect(inspected.stdout.contains("IMG_\\u{202E}gpj.exe") && !inspected.stdout.contains("\u{202E}"), "\(inspected.stdout)")
        let imported = try photos(["import", disguised.path], library: library)
        #expect(imported.status == 0, "\(imported.stderr)")
        let listed = try photos(["ls"], library: library)
        #expect(listed.stdout.contains("IMG_\\u{202E}gpj.exe") && !listed.stdout.contains("\u{202E}"), "\(listed.stdout)")
        // The decoder list: with --verbose only.
        #expect(!imported.stderr.contains("libvips"), "\(imported.stderr)")
    }
}

extension PhotosCommandTests {
    /// An upload in flight kept `photos serve` from exiting after SIGTERM for as long as its client kept it open
    /// (systemd waits 90 s, then kills). Requests in flight now get `--shutdown-timeout` seconds; then the server exits
    /// 0 and its partial uploads go with it.
    @Test func serveExitsAfterSIGTERMWhileAnUploadHangs() async throws {
        let (library, _, dir) = try libraryWithOnePhoto("cli-serve-stop")
        defer { try? FileManager.default.removeItem(at: dir) }
        let owner = try PHPhotoLibrary(url: library, clientIdentifier: nil)
        try owner.setAuthorization(.authorized, for: "phone")
        let token = try owner.createAccessToken(for: "phone").secret
        let server = try ChildProcess(Self.executable, ["serve", "--library", library.path, "--port", "0", "--json", "--shutdown-timeout", "1"])
        let outcome = try await blockingOffThePool { () throws -> (ChildProcess.Outcome, Bool) in
            var port = 0
            let deadline = Date().addingTimeInterval(60)
            while port == 0, Date() < deadline {
                if let line = String(data: server.standardOutputSoFar, encoding: .utf8)?.split(separator: "\n").first,
                    let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                {
                    port = object["port"] as? Int ?? 0
                }
                if port == 0 { usleep(20_000) }
            }
            guard let fd = connectToLoopback(port: port, receiveTimeout: 30) else {
                server.kill()
                throw POSIXError(.ECONNREFUSED)
            }
            defer { close(fd) }
            // Half an upload, and then nothing more (a phone that lost its network).
            let head = Array(
                "POST /v1/uploads?filename=a.jpg HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\nContent-Length: 1000000\r\n\r\n"
                    .utf8)
            _ = send(fd, head, head.count, 0)
            let half = [UInt8](repeating: 7, count: 300_000)
            _ = send(fd, half, half.count, 0)
            usleep(500_000)
            Glibc.kill(server.pid, SIGTERM)
            // Bounded: a server that does not stop is killed after a minute (the test then fails, it does not hang).
            let watchdog = DispatchWorkItem { server.kill() }
            DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
            let outcome = server.wait(samplingMemory: false)
            watchdog.cancel()
            let uploads = library.appendingPathComponent("private/uploads")
            let left = (try? FileManager.default.contentsOfDirectory(atPath: uploads.path)) ?? []
            return (outcome, left.isEmpty)
        }
        #expect(outcome.0.status == 0 && !outcome.0.wasSignalled, "\(outcome.0.status)")
        #expect(outcome.0.seconds < 50, "it waited for the upload (\(outcome.0.seconds) s)")
        #expect(outcome.1, "its partial upload is left behind")
    }
}
