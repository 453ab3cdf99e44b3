import Foundation
import PhotoLibraryEngine
import PhotosTestHarness
import PhotosTesting
import Testing

/// Several processes on one library at once: none may touch another's transaction in progress.
extension PhotosCommandTests {
    /// Defect: every read-write open swept every staged file and every journal without a committed row —
    /// including those of an import running in another process, whose originals then went missing.
    @Test func anotherProcessOpeningTheLibraryNeverTouchesARunningImport() throws {
        let dir = try TestMedia.temporaryDirectory("photos-concurrent-import")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = dir.appendingPathComponent("Busy.photoslibrary")
        let folder = dir.appendingPathComponent("card")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let count = 60
        for index in 0..<count {
            try TestMedia.writeImage(to: folder.appendingPathComponent(String(format: "IMG_%04d.jpg", index)), width: 40 + index, height: 30)
        }
        let seed = dir.appendingPathComponent("seed.jpg")
        try TestMedia.writeImage(to: seed, width: 17, height: 13)
        let added = try photos(["add", seed.path, "--json"], library: library)
        #expect(added.status == 0, "\(added.stderr)")
        let seedID = try #require((try added.json() as? [[String: Any]])?.first?["localIdentifier"] as? String)

        // One transaction per file, so the import is mid-way through staged files and journals for a while.
        let importer = try Spawned(
            Self.executable, ["import", folder.path, "--batch", "1", "--json", "--library", library.path])
        var opens = 0
        var rounds = 0
        while importer.isRunning {
            // This process opens the library (recovery runs on every read-write open) …
            let engine = try LibraryEngine.open(at: library)
            _ = try engine.recoverInterruptedTransactions()
            opens += 1
            // … and other processes read and write it.
            if opens % 4 == 0 {
                let listed = try photos(["ls", "--json"], library: library)
                #expect(listed.status == 0, "\(listed.stderr)")
                let toggled = try photos(["favorite", seedID] + (rounds % 2 == 0 ? [] : ["--off"]), library: library)
                #expect(toggled.status == 0, "\(toggled.stderr)")
                rounds += 1
            }
        }
        #expect(try importer.waitForExit() == 0, "\(importer.standardError)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(importer.standardOutput.utf8)) as? [String: Any])
        #expect((report["imported"] as? [String])?.count == count, "\(report["failures"] ?? "")")
        #expect((report["failures"] as? [Any])?.isEmpty == true, "\(report["failures"] ?? "")")
        #expect(opens > 3, "the import ended before anyone opened the library beside it")

        let verify = try photos(["verify"], library: library)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        let listed = try photos(["ls", "--json"], library: library)
        #expect((try listed.json() as? [Any])?.count == count + 1)
        let favorite = try photos(["show", seedID, "--json"], library: library)
        // The last of the other process's writes holds: favourite after an odd number of rounds.
        #expect((try favorite.json() as? [String: Any])?["isFavorite"] as? Bool == (rounds % 2 == 1))
    }
}
