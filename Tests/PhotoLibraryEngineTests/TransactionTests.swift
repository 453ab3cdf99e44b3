import Foundation
import OpenPhotos
import PhotoLibraryEngine
import PhotosTestHarness
import PhotosTesting
import Testing

/// All-or-nothing changes and crash recovery: rows and files.
@Suite("Transactions and the library bundle")
struct TransactionTests {
    func originals(_ library: TestLibrary) throws -> [String] {
        let root = library.url.appendingPathComponent("originals")
        let enumerator = FileManager.default.enumerator(atPath: root.path)
        var files: [String] = []
        while let path = enumerator?.nextObject() as? String {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path, isDirectory: &isDir), !isDir.boolValue {
                files.append(path)
            }
        }
        return files.sorted()
    }

    func count(_ library: TestLibrary, _ sql: String) throws -> Int {
        let engine = try LibraryEngine.open(at: library.url)
        return try engine.metadata.read { try Int.fetchOne($0, sql: sql) ?? -1 }
    }

    @Test func aFailingBlockLeavesNoRowAndNoFile() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let good = try library.makeImage()
        let bad = library.scratch.appendingPathComponent("notes.jpg")
        try Data("this is not a picture".utf8).write(to: bad)

        #expect(throws: PHPhotosError.self) {
            try library.library.performChangesAndWait {
                _ = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: good)
                _ = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: bad)
                _ = PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Never")
            }
        }
        #expect(try count(library, "SELECT count(*) FROM asset") == 0)
        #expect(try count(library, "SELECT count(*) FROM resource") == 0)
        #expect(try count(library, "SELECT count(*) FROM collection WHERE type = 1") == 0)
        #expect(try originals(library) == [])
        #expect(try library.writerLeftovers() == [])
        #expect(FileManager.default.fileExists(atPath: good.path))
    }

    @Test func aDatabaseFailureAfterPlacingFilesRemovesThem() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let ids = try library.addImages(1)
        let stale = PHAsset.fetchAssets(withLocalIdentifiers: ids, options: library.options()).firstObject!
        // Delete it for good (to Recently Deleted, then from there).
        try library.library.performChangesAndWait { PHAssetChangeRequest.deleteAssets([stale] as NSArray) }
        try library.library.performChangesAndWait { PHAssetChangeRequest.deleteAssets([stale] as NSArray) }
        #expect(try originals(library) == [])
        let image = try library.makeImage()
        // The change to the purged asset fails inside the transaction, after the new file was placed.
        #expect(throws: PHPhotosError.self) {
            try library.library.performChangesAndWait {
                _ = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: image)
                PHAssetChangeRequest(for: stale).isFavorite = true
            }
        }
        #expect(try count(library, "SELECT count(*) FROM asset") == 0)
        #expect(try originals(library) == [])
    }

    @Test func interruptedTransactionsAreSweptOnlyWhenTheirWriterIsGone() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let ids = try library.addImages(1)
        let fm = FileManager.default
        let orphan = "originals/Z/ZZZ.jpeg"
        var kept = ""
        var slot: URL?
        do {
            let writer = try LibraryEngine.open(at: library.url)
            kept = try writer.metadata.read { try String.fetchOne($0, sql: "SELECT path FROM resource")! }
            // A transaction in progress: its journal lists a placed file no row references yet, and a staged file.
            try fm.createDirectory(at: library.url.appendingPathComponent("originals/Z"), withIntermediateDirectories: true)
            try Data([1, 2, 3]).write(to: library.url.appendingPathComponent(orphan))
            slot = try writer.slots.folder()
            _ = try writer.bundle.writeIntent([orphan, kept], in: slot!)
            try Data([9]).write(to: slot!.appendingPathComponent("file-staged"))

            // Another open while the writer is alive (its lock is held) touches none of it.
            let other = try LibraryEngine.open(at: library.url)
            #expect(try other.recoverInterruptedTransactions() == [])
            #expect(fm.fileExists(atPath: library.url.appendingPathComponent(orphan).path))
            #expect(fm.fileExists(atPath: slot!.appendingPathComponent("file-staged").path))
        }
        // The writer is gone (its lock released with a journal still there: a crash as far as anyone can tell).
        #expect(fm.fileExists(atPath: slot!.path))
        let engine = try LibraryEngine.open(at: library.url)
        #expect(!fm.fileExists(atPath: library.url.appendingPathComponent(orphan).path))
        #expect(fm.fileExists(atPath: library.url.appendingPathComponent(kept).path))
        #expect(!fm.fileExists(atPath: slot!.path))
        // Only the slot of the test library's own handle, alive and empty, is left.
        #expect(try library.writerLeftovers() == [])
        #expect(try fm.contentsOfDirectory(atPath: engine.bundle.writersURL.path).count == 2)  // its folder and its lock
        #expect(!fm.fileExists(atPath: slot!.path + ".lock"))
        #expect(ids.count == 1)
        #expect(try engine.verify().problems == [])
    }

    @Test func aTornJournalNamingAFolderRemovesNothingOfIt() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        _ = try library.addImages(1)
        let fm = FileManager.default
        var slot: URL?
        var kept = ""
        do {
            let writer = try LibraryEngine.open(at: library.url)
            kept = try writer.metadata.read { try String.fetchOne($0, sql: "SELECT path FROM resource")! }
            slot = try writer.slots.folder()
            // A power loss while the journal was written: its last line is the start of a path, the asset's folder.
            let folder = (kept as NSString).deletingLastPathComponent
            let journal = try writer.bundle.writeIntent([], in: slot!)
            try Data("originals/Q/QQQ.jpeg\n\(folder)".utf8).write(to: journal)
            try fm.createDirectory(at: library.url.appendingPathComponent("originals/Q"), withIntermediateDirectories: true)
            try Data([1]).write(to: library.url.appendingPathComponent("originals/Q/QQQ.jpeg"))
        }
        // The writer is gone: the next open replays the journal.
        let engine = try LibraryEngine.open(at: library.url)
        #expect(!fm.fileExists(atPath: library.url.appendingPathComponent("originals/Q/QQQ.jpeg").path))
        #expect(fm.fileExists(atPath: library.url.appendingPathComponent(kept).path))
        #expect(!fm.fileExists(atPath: slot!.path))
        #expect(try engine.verify().problems == [])
    }

    /// A power loss while a journal is written over (a reused one) leaves it torn: its digest does not match its
    /// paths, and its transaction had placed nothing yet (it places files only once the journal is durable), so
    /// recovery removes none of the paths it seems to list — here a file no row references.
    @Test func aJournalWhoseDigestDoesNotMatchRemovesNothing() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        _ = try library.addImages(1)
        let fm = FileManager.default
        let stray = "originals/Q/QQQ.jpeg"
        let listed = "originals/R/RRR.jpeg"
        var slot: URL?
        do {
            let writer = try LibraryEngine.open(at: library.url)
            slot = try writer.slots.folder()
            for path in [stray, listed] {
                try fm.createDirectory(
                    at: library.url.appendingPathComponent((path as NSString).deletingLastPathComponent), withIntermediateDirectories: true)
                try Data([1]).write(to: library.url.appendingPathComponent(path))
            }
            // Torn: the new header, then part of the new paths over the end of an older journal's.
            let torn = try writer.bundle.writeIntent([stray], in: slot!)
            var bytes = try Data(contentsOf: torn)
            bytes[bytes.count - 1] = UInt8(ascii: "X")
            try bytes.write(to: torn)
            // Whole: its paths are replayed.
            _ = try writer.bundle.writeIntent([listed], in: slot!)
            #expect(LibraryBundle.intentPaths(bytes) == [])
            #expect(LibraryBundle.intentPaths(bytes.prefix(20)) == [])
            #expect(LibraryBundle.intentPaths(Data()) == [])
            #expect(LibraryBundle.intentPaths(Data("a\nb\n".utf8)) == ["a", "b"])  // a journal of an older version
        }
        // The writer is gone: the next open replays what its journals list.
        _ = try LibraryEngine.open(at: library.url)
        #expect(fm.fileExists(atPath: library.url.appendingPathComponent(stray).path))
        #expect(!fm.fileExists(atPath: library.url.appendingPathComponent(listed).path))
        #expect(!fm.fileExists(atPath: slot!.path))
    }

    /// A writer's transactions write over the journals earlier ones emptied (no file made and removed per commit),
    /// and a writer that closes leaves nothing behind.
    @Test func journalsAreWrittenOverNotMadePerCommit() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let fm = FileManager.default
        var slot: URL?
        do {
            let writer = try LibraryEngine.open(at: library.url)
            var journals: Set<String> = []
            for round in 0..<5 {
                let image = try library.makeImage("round-\(round).jpg", width: 16, height: 12)
                let resource = ResourceInput(type: 1, source: .file(image, move: false), originalFilename: nil, uniformTypeIdentifier: nil)
                try writer.apply(
                    [.createAsset(localIdentifier: "\(UUID().uuidString)/L0/001", resources: [resource], properties: AssetPropertyChanges())],
                    access: writer.accessContext(clientID: nil))
                slot = try writer.slots.folder()
                for entry in try fm.contentsOfDirectory(atPath: slot!.path) where entry.hasPrefix("intent-") {
                    #expect(WriterSlot.isEmptiedJournal(slot!.appendingPathComponent(entry)), "\(entry)")
                    journals.insert(entry)
                }
            }
            #expect(journals.count == 1, "\(journals.sorted())")
            #expect(try writer.metadata.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM asset") } == 5)
        }
        #expect(slot != nil)
        #expect(!fm.fileExists(atPath: slot!.path))
    }

    /// A commit that returned survives a power loss: the write-ahead log is synced at every commit (SQLite's
    /// `synchronous = FULL`; NORMAL would sync it only at checkpoints, and a power loss could roll back commits whose
    /// answers were given).
    @Test func commitsAreSyncedBeforeTheyReturn() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let engine = try LibraryEngine.open(at: library.url)
        let (synchronous, journal) = try engine.metadata.writeQueue { db in
            (try Int.fetchOne(db, sql: "PRAGMA synchronous"), try String.fetchOne(db, sql: "PRAGMA journal_mode"))
        }
        #expect(synchronous == 2)
        #expect(journal == "wal")
    }

    @Test func aNewLibraryIsTheOwnersOnly() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        _ = try library.addImages(1)
        for path in [library.url.path, library.url.appendingPathComponent("originals").path, library.url.appendingPathComponent("database").path] {
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o700, "\(path)")
        }
        let engine = try LibraryEngine.open(at: library.url)
        let original = try engine.metadata.read { try String.fetchOne($0, sql: "SELECT path FROM resource")! }
        let mode = try FileManager.default.attributesOfItem(atPath: library.url.appendingPathComponent(original).path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func aLibraryFromANewerSchemaRefusesToOpen() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let engine = try LibraryEngine.open(at: library.url)
        try engine.metadata.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v999-from-the-future')")
        }
        do {
            _ = try LibraryEngine.open(at: library.url)
            Issue.record("opened a newer library")
        } catch {
            #expect(error.code == 3300)
            #expect(error.message.contains("newer version of OpenPhotoKit"))
        }
    }

    @Test func recentlyDeletedIsPurgedAfterTheRetentionPeriod() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let ids = try library.addImages(2)
        let asset = PHAsset.fetchAssets(withLocalIdentifiers: [ids[0]], options: library.options())[0]
        try library.library.performChangesAndWait { PHAssetChangeRequest.deleteAssets([asset] as NSArray) }
        #expect(try originals(library).count == 2)
        // Within the period (30 days by default) reopening keeps it; with a retention of 0 it is purged on open.
        _ = try LibraryEngine.open(at: library.url)
        #expect(try count(library, "SELECT count(*) FROM asset WHERE trashed_date IS NOT NULL") == 1)
        var configuration = LibraryConfiguration()
        configuration.trashRetention = 0
        _ = try LibraryEngine.open(at: library.url, configuration: configuration)
        #expect(try count(library, "SELECT count(*) FROM asset") == 1)
        #expect(try originals(library).count == 1)
        // The retention is a library setting.
        try library.library.setRecentlyDeletedRetention(days: 7)
        #expect(try PHPhotoLibrary(url: library.url, clientIdentifier: nil).recentlyDeletedRetention == 7 * 86_400)
    }

    @Test func pathsThatLeaveTheLibraryAreRefused() throws {
        let bundle = LibraryBundle(url: URL(fileURLWithPath: "/tmp/x.photoslibrary"))
        #expect(throws: LibraryError.self) { try bundle.resolve("../etc/passwd") }
        #expect(throws: LibraryError.self) { try bundle.resolve("/etc/passwd") }
        #expect(throws: LibraryError.self) { try bundle.resolve("originals/../../x") }
        #expect(try bundle.resolve("originals/A/A.jpeg").path == "/tmp/x.photoslibrary/originals/A/A.jpeg")
    }

    @Test func verifyReportsMissingChangedAndOrphanFiles() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        try library.addImages(2)
        let engine = try LibraryEngine.open(at: library.url)
        let paths = try engine.metadata.read { try String.fetchAll($0, sql: "SELECT path FROM resource ORDER BY path") }
        try FileManager.default.removeItem(at: library.url.appendingPathComponent(paths[0]))
        let handle = try FileHandle(forWritingTo: library.url.appendingPathComponent(paths[1]))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
        try Data([1]).write(to: library.url.appendingPathComponent("originals/stray.jpg"))
        let report = try engine.verify()
        #expect(report.checked == 2)
        #expect(report.problems.map(\.kind) == [.missingFile, .sizeMismatch, .orphanFile])
        #expect(report.problems.map(\.path) == [paths[0], paths[1], "originals/stray.jpg"])
    }

    @Test func membershipEditsFollowNSMutableArraySemantics() throws {
        let start = ["a", "b", "c", "d"]
        #expect(try LibraryEngine.applyEdits([.move(at: [0, 2], to: 1)], to: start, snapshot: nil, what: "album") == ["b", "a", "c", "d"])
        #expect(
            try LibraryEngine.applyEdits([.insert(["x", "y"], at: [1, 3])], to: start, snapshot: nil, what: "album") == [
                "a", "x", "b", "y", "c", "d",
            ])
        #expect(try LibraryEngine.applyEdits([.removeAt([1, 3])], to: start, snapshot: nil, what: "album") == ["a", "c"])
        #expect(try LibraryEngine.applyEdits([.replace(at: [0], with: ["z"])], to: start, snapshot: nil, what: "album") == ["z", "b", "c", "d"])
        #expect(try LibraryEngine.applyEdits([.add(["b", "e"])], to: start, snapshot: nil, what: "album") == ["a", "b", "c", "d", "e"])
        #expect(throws: LibraryError.self) { try LibraryEngine.applyEdits([.removeAt([4])], to: start, snapshot: nil, what: "album") }
        // With a snapshot: indexes address the snapshot; members added since are kept, removed ones stay removed.
        #expect(
            try LibraryEngine.applyEdits([.removeAt([0])], to: ["b", "c", "n"], snapshot: ["a", "b", "c"], what: "album") == ["b", "c", "n"])
    }
}

/// Content edits at the engine: who may ask for an input, and what a crash mid-commit leaves.
@Suite("Content editing in the engine")
struct EditingEngineTests {
    @Test func addOnlyAndOutOfSelectionClientsGetNoInput() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let ids = try library.addImages(2)
        let engine = try LibraryEngine.open(at: library.url)
        try engine.setGrant(.addOnly, for: "uploader")
        try engine.setGrant(.limited, for: "picker", selection: [ids[0]])
        #expect(throws: LibraryError.self) { try engine.editingState(localIdentifier: ids[0], access: engine.accessContext(clientID: "uploader")) }
        do {
            _ = try engine.editingState(localIdentifier: ids[0], access: engine.accessContext(clientID: "uploader"))
        } catch {
            #expect(error.code == 3311 && error.message.contains("addOnly"))
        }
        let picker = engine.accessContext(clientID: "picker")
        #expect(try engine.editingState(localIdentifier: ids[0], access: picker).original != nil)
        do {
            _ = try engine.editingState(localIdentifier: ids[1], access: picker)
            Issue.record("a limited client got the input of an asset outside its selection")
        } catch {
            #expect(error.code == 3311)
        }
        // Nor may they commit content changes outside it.
        do {
            try engine.apply([.revertAssetContent(localIdentifier: ids[1])], access: picker)
            Issue.record("a limited client reverted an asset outside its selection")
        } catch {
            #expect(error.code == 3311)
        }
        do {
            try engine.apply([.revertAssetContent(localIdentifier: ids[0])], access: engine.accessContext(clientID: "uploader"))
            Issue.record("an add-only client reverted an asset")
        } catch {
            #expect(error.code == 3311)
        }
    }

    @Test func assetsThatAreNeitherPhotosNorVideosHaveNoEditingInput() async throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let ids = try library.addImages(1)
        let engine = try LibraryEngine.open(at: library.url)
        try engine.metadata.write { try $0.execute(sql: "UPDATE asset SET media_type = 3") }
        let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: ids, options: library.options()).firstObject)
        #expect(asset.mediaType == .audio && !asset.canPerform(.content))
        do {
            _ = try await asset.requestContentEditingInput(with: nil)
            Issue.record("an audio asset got an editing input")
        } catch let error as PHPhotosError {
            #expect(error.code == .requestNotSupportedForAsset)
        }
    }

    /// A writer that died after placing an edit's files and before its commit: the next open removes the new
    /// files and keeps the version the rows name; one that died after its commit and before removing the
    /// superseded files: the next open removes those.
    @Test func aCrashOnEitherSideOfTheCommitLeavesOneWholeVersion() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let ids = try library.addImages(1)
        let fm = FileManager.default
        let rendering = library.scratch.appendingPathComponent("render.jpg")
        try TestMedia.writeImage(to: rendering, width: 20, height: 10)
        func edit(_ engine: LibraryEngine, version: Int) throws {
            try engine.apply(
                [
                    .editAssetContent(
                        localIdentifier: ids[0],
                        ContentEdit(
                            renderedFile: rendering, formatIdentifier: "t", formatVersion: "1", adjustmentData: Data([1]), basis: .original,
                            baseContentVersion: version, madeFor: ids[0]))
                ], access: engine.accessContext(clientID: nil))
        }
        let paths = { (engine: LibraryEngine) in
            try engine.metadata.read { try String.fetchAll($0, sql: "SELECT path FROM resource ORDER BY type") }
        }
        var placed: [String] = []
        var slot: URL?
        // A writer "dies" when its engine is released (its slot's lock goes with it). Work it handed to other threads
        // (change delivery) can hold it a moment longer on a busy machine: the reopen waits until it is really gone.
        weak var dead: LibraryEngine?
        func waitForTheWriterToDie() throws {
            let deadline = Date().addingTimeInterval(30)
            while dead != nil, Date() < deadline { usleep(1_000) }
            try #require(dead == nil, "the writer's engine was never released")
        }
        do {
            let writer = try LibraryEngine.open(at: library.url)
            dead = writer
            try edit(writer, version: 1)
            let v2 = try paths(writer)
            #expect(v2.count == 3 && v2[1].hasSuffix("_v2_render.jpeg") && v2[2].hasSuffix("_v2_adjustments.plist"))
            // The next edit as far as its files: placed under version 3 and journalled with the superseded ones.
            slot = try writer.slots.folder()
            let uuid = String(ids[0].prefix(36))
            placed = ["originals/\(uuid.prefix(1))/\(uuid)_v3_render.jpeg", "originals/\(uuid.prefix(1))/\(uuid)_v3_adjustments.plist"]
            _ = try writer.bundle.writeIntent(placed + Array(v2[1...]), in: slot!)
            for path in placed { try Data([7]).write(to: library.url.appendingPathComponent(path)) }
        }
        // The writer died before committing: version 2 stays whole, version 3's files go.
        try waitForTheWriterToDie()
        let reopened = try LibraryEngine.open(at: library.url)
        let after = try paths(reopened)
        #expect(after.count == 3 && after[1].hasSuffix("_v2_render.jpeg"))
        for path in placed { #expect(!fm.fileExists(atPath: library.url.appendingPathComponent(path).path)) }
        for path in after { #expect(fm.fileExists(atPath: library.url.appendingPathComponent(path).path)) }
        #expect(try reopened.verify().problems == [])
        #expect(!fm.fileExists(atPath: slot!.path))

        // Committed, then died before removing what it superseded: the journal still lists those files.
        do {
            let writer = try LibraryEngine.open(at: library.url)
            dead = writer
            let slot = try writer.slots.folder()
            let superseded = try paths(writer)
            try writer.metadata.write { db in
                try db.execute(sql: "DELETE FROM resource WHERE type IN (5, 7)")
                try db.execute(sql: "UPDATE asset SET has_adjustments = 0, content_version = content_version + 1")
            }
            _ = try writer.bundle.writeIntent(Array(superseded[1...]), in: slot)
        }
        try waitForTheWriterToDie()
        let last = try LibraryEngine.open(at: library.url)
        #expect(try paths(last).count == 1)
        #expect(try last.verify().problems == [], "no orphan of the superseded version")
    }
}
