import Foundation
import PhotosTestHarness
import PhotosTesting
import Testing

/// The `photos` command end to end, on real libraries, as a user runs it.
@Suite("photos command")
struct PhotosCommandTests {
    typealias Run = PhotosCommandLine.Run

    /// The test bundle sits beside the products of the build (photos among them).
    static var executable: URL { ChildProcess.builtProduct("photos") }

    func photos(_ arguments: [String], library: URL?, client: String? = nil, environment extra: [String: String] = [:]) throws -> Run {
        var changes: [String: String?] = ["PHOTOS_CLIENT_ID": client]
        for (key, value) in extra { changes[key] = value }
        return try PhotosCommandLine.run(
            arguments + (library.map { ["--library", $0.isFileURL ? $0.path : $0.absoluteString] } ?? []), environment: changes)
    }

    @Test func addListShowFavoriteHideDeleteRecover() throws {
        let dir = try TestMedia.temporaryDirectory("photos-cli")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = dir.appendingPathComponent("CLI.photoslibrary")
        let a = dir.appendingPathComponent("a.jpg")
        let b = dir.appendingPathComponent("b.png")
        try TestMedia.writeImage(to: a, width: 40, height: 30)
        try TestMedia.writeImage(to: b, width: 20, height: 10, orientation: 1)

        let added = try photos(["add", a.path, b.path, "--json"], library: library)
        #expect(added.status == 0, "\(added.stderr)")
        let assets = try #require(try added.json() as? [[String: Any]])
        #expect(assets.count == 2)
        #expect(assets[0]["mediaType"] as? String == "image")
        #expect(assets[0]["pixelWidth"] as? Int == 40)
        #expect(assets[0]["isFavorite"] as? Bool == false)
        let ids = assets.compactMap { $0["localIdentifier"] as? String }
        #expect(ids.count == 2)

        let favorite = try photos(["favorite", String(ids[1].prefix(8))], library: library)
        #expect(favorite.status == 0, "\(favorite.stderr)")
        let favorites = try photos(["ls", "--predicate", "favorite == YES", "--json"], library: library)
        #expect((try favorites.json() as? [[String: Any]])?.compactMap { $0["localIdentifier"] as? String } == [ids[1]])
        let smart = try photos(["ls", "--smart-album", "favorites", "--json"], library: library)
        #expect((try smart.json() as? [[String: Any]])?.count == 1)

        let show = try photos(["show", ids[0], "--json"], library: library)
        let shown = try #require(try show.json() as? [String: Any])
        let resources = try #require(shown["resources"] as? [[String: Any]])
        #expect(resources.first?["originalFilename"] as? String == "a.jpg")
        #expect(resources.first?["type"] as? String == "photo")
        #expect((resources.first?["sha256"] as? String)?.count == 64)

        _ = try photos(["hide", ids[0]], library: library)
        #expect((try photos(["ls", "--json"], library: library).json() as? [Any])?.count == 1)
        #expect((try photos(["ls", "--include-hidden", "--json"], library: library).json() as? [Any])?.count == 2)

        _ = try photos(["delete", ids[1]], library: library)
        #expect((try photos(["ls", "--smart-album", "recently-deleted", "--json"], library: library).json() as? [Any])?.count == 1)
        _ = try photos(["recover", ids[1]], library: library)
        #expect((try photos(["ls", "--include-hidden", "--json"], library: library).json() as? [Any])?.count == 2)
        _ = try photos(["delete", ids[1]], library: library)
        let purge = try photos(["empty-trash", "--json"], library: library)
        #expect((try purge.json() as? [String: Any])?["purged"] as? Int == 1)

        let sorted = try photos(["ls", "--include-hidden", "--sort", "pixelWidth:desc", "--limit", "1", "--json"], library: library)
        #expect((try sorted.json() as? [[String: Any]])?.first?["localIdentifier"] as? String == ids[0])

        let verify = try photos(["verify"], library: library)
        #expect(verify.status == 0)
        #expect(verify.stdout.contains("1 files checked, 0 problems"))
    }

    /// The README's main job: `photos demo` builds a library from the shared media when it is beside the repository,
    /// otherwise from generated images and a movie, and lists what it added.
    @Test func theDemoBuildsAndListsALibrary() async throws {
        let dir = try TestMedia.temporaryDirectory("photos-demo")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = dir.appendingPathComponent("Demo.photoslibrary")
        let run = try await blockingOffThePool { try PhotosCommandLine.run(["demo", "--library", library.path, "--json"]) }
        #expect(run.status == 0, "\(run.stderr)")
        let report = try #require(try run.json() as? [String: Any])
        let assets = try #require(report["assets"] as? [[String: Any]])
        #expect(report["added"] as? Int == assets.count)
        let listed = try PhotosCommandLine.run(["ls", "--library", library.path, "--json"])
        #expect((try listed.json() as? [Any])?.count == assets.count)
        if TestMedia.sharedMediaFolder == nil {
            // Generated: four JPEGs and a two-second movie, none refused.
            #expect(assets.map { $0["mediaType"] as? String }.sorted { ($0 ?? "") < ($1 ?? "") } == ["image", "image", "image", "image", "video"])
            #expect((report["failures"] as? [Any])?.isEmpty == true)
        } else {
            #expect(assets.count >= 30, "the shared media's readable files")
        }
    }

    @Test func albumsFoldersAndMoments() throws {
        let dir = try TestMedia.temporaryDirectory("photos-cli")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = dir.appendingPathComponent("CLI.photoslibrary")
        let file = dir.appendingPathComponent("a.jpg")
        try TestMedia.writeImage(to: file, width: 40, height: 30)
        let added = try photos(["add", file.path, "--json"], library: library)
        let id = try #require((try added.json() as? [[String: Any]])?.first?["localIdentifier"] as? String)

        let album = try photos(["album", "create", "Trip", id, "--json"], library: library)
        #expect(album.status == 0, "\(album.stderr)")
        #expect((try album.json() as? [String: Any])?["estimatedAssetCount"] as? Int == 1)
        #expect(try photos(["album", "rename", "Trip", "Trip 2025"], library: library).status == 0)
        #expect(try photos(["folder", "create", "Years"], library: library).status == 0)
        #expect(try photos(["folder", "add", "Years", "Trip 2025"], library: library).status == 0)
        let tree = try photos(["albums", "--json"], library: library)
        let top = try #require((try tree.json() as? [String: Any])?["userCollections"] as? [[String: Any]])
        #expect(top.count == 1)
        #expect(top[0]["localizedTitle"] as? String == "Years")
        #expect((top[0]["collections"] as? [[String: Any]])?.first?["localizedTitle"] as? String == "Trip 2025")
        #expect((try photos(["ls", "--album", "Trip 2025", "--json"], library: library).json() as? [Any])?.count == 1)
        #expect(try photos(["album", "remove", "Trip 2025", id], library: library).status == 0)
        #expect((try photos(["ls", "--album", "Trip 2025", "--json"], library: library).json() as? [Any])?.count == 0)

        let moments = try photos(["moments", "--json"], library: library)
        #expect((try moments.json() as? [[String: Any]])?.first?["estimatedAssetCount"] as? Int == 1)

        #expect(try photos(["folder", "delete", "Years"], library: library).status == 0)
        #expect(((try photos(["albums", "--json"], library: library).json() as? [String: Any])?["userCollections"] as? [Any])?.count == 0)
    }

    @Test func errorsAreOneLineWithANonZeroExit() throws {
        let dir = try TestMedia.temporaryDirectory("photos-cli")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = dir.appendingPathComponent("CLI.photoslibrary")
        let text = dir.appendingPathComponent("notes.jpg")
        try Data("hello".utf8).write(to: text)

        let bad = try photos(["add", text.path], library: library)
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("notes.jpg"))
        #expect(bad.stderr.contains("PHPhotosError 3302"))
        #expect(bad.stderr.split(separator: "\n").count == 1)

        let key = try photos(["ls", "--predicate", "filename == 'a'"], library: library)
        #expect(key.status != 0)
        #expect(key.stderr.contains("Unsupported predicate key 'filename'"))
        let syntax = try photos(["ls", "--predicate", "mediaType =="], library: library)
        #expect(syntax.status != 0)
        #expect(syntax.stderr.contains("Unable to parse the format string"))
        let missing = try photos(["show", "NOPE"], library: library)
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("no asset 'NOPE'"))
    }

    @Test func theDefaultLibraryComesFromTheEnvironment() throws {
        let dir = try TestMedia.temporaryDirectory("photos-cli")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = dir.appendingPathComponent("FromEnv.photoslibrary")
        let file = dir.appendingPathComponent("a.jpg")
        try TestMedia.writeImage(to: file, width: 40, height: 30)
        let added = try photos(["add", file.path], library: nil, environment: ["PHOTOS_LIBRARY": library.path])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(FileManager.default.fileExists(atPath: library.appendingPathComponent("database/Photos.sqlite").path))
        #expect(FileManager.default.fileExists(atPath: library.appendingPathComponent("resources").path))
        #expect((try photos(["ls", "--json"], library: library).json() as? [Any])?.count == 1)
    }

    @Test func verifyFailsOnAMissingFile() throws {
        let dir = try TestMedia.temporaryDirectory("photos-cli")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = dir.appendingPathComponent("CLI.photoslibrary")
        let file = dir.appendingPathComponent("a.jpg")
        try TestMedia.writeImage(to: file, width: 40, height: 30)
        _ = try photos(["add", file.path], library: library)
        let originals = library.appendingPathComponent("originals")
        let stored = try #require(
            FileManager.default.enumerator(atPath: originals.path)?.allObjects.compactMap { $0 as? String }.first { $0.hasSuffix(".jpeg") })
        try FileManager.default.removeItem(at: originals.appendingPathComponent(stored))
        let verify = try photos(["verify", "--json"], library: library)
        #expect(verify.status == 1)
        let problems = try #require((try verify.json() as? [String: Any])?["problems"] as? [[String: Any]])
        #expect(problems.map { $0["kind"] as? String } == ["missingFile"])
    }

    @Test func grantsDecideWhatClientsSee() throws {
        let dir = try TestMedia.temporaryDirectory("photos-cli")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = dir.appendingPathComponent("CLI.photoslibrary")
        let file = dir.appendingPathComponent("a.jpg")
        try TestMedia.writeImage(to: file, width: 40, height: 30)
        _ = try photos(["add", file.path], library: library)
        #expect(try photos(["grant", "uploader", "addOnly"], library: library).status == 0)
        #expect((try photos(["ls", "--json"], library: library, client: "uploader").json() as? [Any])?.count == 0)
        let other = dir.appendingPathComponent("b.jpg")
        try TestMedia.writeImage(to: other, width: 40, height: 30)
        #expect(try photos(["add", other.path], library: library, client: "uploader").status == 0)
        #expect((try photos(["ls", "--json"], library: library).json() as? [Any])?.count == 2)

        let stranger = try photos(["favorite", "--off", "xyz"], library: library, client: "stranger")
        #expect(stranger.status != 0)
        #expect(try photos(["grant", "viewer", "readWrite"], library: library).status == 0)
        #expect((try photos(["ls", "--json"], library: library, client: "viewer").json() as? [Any])?.count == 2)
        #expect(try photos(["grant", "viewer", "denied"], library: library).status == 0)
        #expect((try photos(["ls", "--json"], library: library, client: "viewer").json() as? [Any])?.count == 0)
        #expect(try photos(["grant", "viewer", "bogus"], library: library).status != 0)
    }
}
