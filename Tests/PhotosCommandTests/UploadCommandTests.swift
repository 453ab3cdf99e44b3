import Foundation
import PhotosTestHarness
import PhotosTesting
import Testing

/// `photos uploads`: the app the extension acts for, and where uploads are hosted.
@Suite("photos uploads")
struct UploadCommandTests {
    func photos(_ arguments: [String], library: URL, client: String? = nil) throws -> PhotosCommandLine.Run {
        try PhotosCommandLine.run(arguments + ["--library", library.path], environment: ["PHOTOS_CLIENT_ID": client])
    }

    @Test func enableGrantsTheAppAndStatusIsTheApps() throws {
        let dir = try TestMedia.temporaryDirectory("photos-uploads")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = dir.appendingPathComponent("Uploads.photoslibrary")
        let image = dir.appendingPathComponent("a.jpg")
        try TestMedia.writeImage(to: image, width: 40, height: 30)
        #expect(try photos(["add", image.path], library: library).status == 0)
        let settings = dir.appendingPathComponent("backup/backup.json")

        let enabled = try photos(
            ["uploads", "enable", "--server", "http://127.0.0.1:9", "--settings", settings.path, "--client", "com.example.app", "--json"],
            library: library)
        #expect(enabled.status == 0, "\(enabled.stderr)")
        #expect((try enabled.json() as? [String: Any])?["client"] as? String == "com.example.app")
        // Enabled for that app only (enabling needs full access: the owner granted it).
        let app = try photos(["uploads", "status", "--json"], library: library, client: "com.example.app")
        #expect((try app.json() as? [String: Any])?["enabled"] as? Bool == true, "\(app.stderr)")
        let other = try photos(["uploads", "status", "--json", "--client", "org.openphotokit.backup"], library: library)
        #expect((try other.json() as? [String: Any])?["enabled"] as? Bool == false, "\(other.stderr)")

        // Uploads are hosted where the library is kept, not through a server of it.
        let served = try PhotosCommandLine.run(
            ["uploads", "run", "--library", "http://127.0.0.1:9", "--settings", settings.path], environment: ["PHOTOS_TOKEN": "opk_x"])
        #expect(served.status != 0 && served.stderr.contains("where the library is kept"), "\(served.stderr)")
    }
}
