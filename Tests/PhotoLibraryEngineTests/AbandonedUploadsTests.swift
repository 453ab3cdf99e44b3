import Foundation
import PhotoLibraryEngine
import PhotosTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A killed `photos serve` left its partial uploads in `private/uploads` until the next server started. Now they
/// follow the writer slots' rule: `verify` reports a folder whose lock nobody holds, and any process that opens the
/// library for writing removes it — never the folder of a live process.
@Suite("Abandoned uploads")
struct AbandonedUploadsTests {
    @Test func aDeadServersUploadsAreReportedThenSweptAndALiveOnesKept() throws {
        let library = try TestLibrary(name: "AbandonedUploads")
        defer { library.remove() }
        let engine = try LibraryEngine.open(at: library.url)
        let uploads = engine.bundle.uploadsURL
        // A live server's folder (this process holds its lock) …
        let live = try ProcessFolder(in: uploads, label: "serve", locks: FileOwnerLocks())
        try Data(repeating: 1, count: 1000).write(to: live.url.appendingPathComponent("partial"))
        // … a dead one's: its lock file is there and nobody holds it (its process was killed mid-upload) …
        let dead = uploads.appendingPathComponent("serve-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(at: dead, withIntermediateDirectories: false)
        try Data(repeating: 2, count: 5000).write(to: dead.appendingPathComponent("partial"))
        #expect(FileManager.default.createFile(atPath: dead.path + ".lock", contents: nil))
        // … and one of the layout before locks, named by a process id that no process has.
        let legacy = uploads.appendingPathComponent("serve-999999999-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(at: legacy, withIntermediateDirectories: false)

        // A live folder whose UUID begins with eight digits (one in 43 does) is not read as a dead process's id:
        // it has its lock, held (here by this test, as its server would).
        let digits = uploads.appendingPathComponent("serve-12345678-1234-4abc-8def-0123456789ab")
        try FileManager.default.createDirectory(at: digits, withIntermediateDirectories: false)
        let held = open(digits.path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        #expect(held >= 0 && flock(held, LOCK_EX | LOCK_NB) == 0)
        defer { close(held) }

        var readOnly = LibraryConfiguration()
        readOnly.readOnly = true
        let reader = try LibraryEngine.open(at: library.url, configuration: readOnly)
        let reported = try reader.verify().problems.filter { $0.kind == .abandonedUpload }.map(\.path).sorted()
        #expect(reported == ["private/uploads/\(dead.lastPathComponent)", "private/uploads/\(legacy.lastPathComponent)"].sorted())
        #expect(FileManager.default.fileExists(atPath: dead.path), "a read-only open removes nothing")

        _ = try LibraryEngine.open(at: library.url)
        #expect(!FileManager.default.fileExists(atPath: dead.path) && !FileManager.default.fileExists(atPath: dead.path + ".lock"))
        #expect(!FileManager.default.fileExists(atPath: legacy.path))
        #expect(FileManager.default.fileExists(atPath: live.url.appendingPathComponent("partial").path), "a live server's uploads stay")
        #expect(try engine.verify().problems.isEmpty)
        withExtendedLifetime(live) {}
    }
}
