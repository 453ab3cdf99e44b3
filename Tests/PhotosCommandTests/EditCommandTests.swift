import Foundation
import PhotoLibraryEngine
import PhotosTestHarness
import PhotosTesting
import Testing

/// `photos edit`, `revert`, `show`, `export --version` and `thumbnail --version` end to end.
@Suite("photos edit")
struct EditCommandTests {
    let cli = PhotosCommandTests()

    func sha256(_ url: URL) throws -> String {
        try FileStager.hashFile(url).1
    }

    @Test func editReopenRevertAndTheVersions() throws {
        let dir = try TestMedia.temporaryDirectory("photos-edit")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = dir.appendingPathComponent("Edit.photoslibrary")
        let photo = dir.appendingPathComponent("IMG_0001.jpg")
        try TestMedia.writeImage(to: photo, width: 400, height: 300)
        let originalHash = try sha256(photo)
        let added = try cli.photos(["add", photo.path, "--json"], library: library)
        let id = try #require((try added.json() as? [[String: Any]])?.first?["localIdentifier"] as? String)

        // A crop and light: the asset takes the rendering's size.
        let edit = try cli.photos(["edit", id, "--crop", "0,0,0.5,0.5", "--exposure", "0.5", "--saturation", "1.2", "--json"], library: library)
        #expect(edit.status == 0, "\(edit.stderr)")
        let edited = try #require(try edit.json() as? [String: Any])
        #expect(edited["pixelWidth"] as? Int == 200 && edited["pixelHeight"] as? Int == 150 && edited["hasAdjustments"] as? Bool == true)
        #expect(edited["recipe"] as? [String] == ["crop(x: 0.0, y: 0.0, width: 0.5, height: 0.5)", "exposure(ev: 0.5)", "saturation(1.2)"])

        // Editing again changes the recipe: the crop is replaced, not applied to the crop.
        let again = try cli.photos(["edit", id, "--crop", "0,0,1,0.5", "--reset", "exposure", "--json"], library: library)
        #expect(again.status == 0, "\(again.stderr)")
        let twice = try #require(try again.json() as? [String: Any])
        #expect(twice["pixelWidth"] as? Int == 400 && twice["pixelHeight"] as? Int == 150)
        #expect(twice["reopened"] as? Bool == true)
        #expect(twice["recipe"] as? [String] == ["crop(x: 0.0, y: 0.0, width: 1.0, height: 0.5)", "saturation(1.2)"])

        // show lists the versions and the adjustment with its editor and time.
        let show = try cli.photos(["show", id, "--json"], library: library, client: nil)
        let shown = try #require(try show.json() as? [String: Any])
        let versions = try #require(shown["versions"] as? [[String: Any]])
        #expect(versions.map { $0["version"] as? String } == ["original", "previous", "current"])
        #expect(versions[0]["sha256"] as? String == originalHash && versions[1]["sha256"] as? String == originalHash)
        let adjustment = try #require(shown["adjustment"] as? [String: Any])
        #expect(adjustment["formatIdentifier"] as? String == "org.openphotokit.adjustment" && adjustment["formatVersion"] as? String == "1.0")
        #expect(adjustment["editor"] is NSNull && adjustment["timestamp"] is String)
        let plain = try cli.photos(["show", id], library: library)
        #expect(
            plain.stdout.contains("version current: fullSizePhoto 400x150")
                && plain.stdout.contains("adjustment: org.openphotokit.adjustment 1.0, editor owner"))

        // export and thumbnail by version.
        let out = dir.appendingPathComponent("out")
        let exportOriginal = try cli.photos(["export", id, "--version", "original", "--out", out.appendingPathComponent("o").path], library: library)
        #expect(exportOriginal.status == 0, "\(exportOriginal.stderr)")
        #expect(try sha256(out.appendingPathComponent("o/IMG_0001.jpg")) == originalHash)
        let exportCurrent = try cli.photos(["export", id, "--out", out.appendingPathComponent("c").path, "--json"], library: library)
        let written = try #require((try exportCurrent.json() as? [String: Any])?["written"] as? [String])
        #expect(written.map { URL(fileURLWithPath: $0).lastPathComponent } == ["IMG_0001.JPEG"])
        for (version, width) in [("current", 400), ("original", 400), ("unadjusted", 400)] {
            let thumb = try cli.photos(
                ["thumbnail", id, "--version", version, "--size", "max", "--out", out.appendingPathComponent("\(version).png").path, "--json"],
                library: library)
            #expect(thumb.status == 0, "\(thumb.stderr)")
            let size = try #require(try thumb.json() as? [String: Any])
            #expect(size["pixelWidth"] as? Int == width && size["pixelHeight"] as? Int == (version == "current" ? 150 : 300), "\(version)")
        }

        // revert: the original, bit for bit, and nothing else.
        let revert = try cli.photos(["revert", id, "--json"], library: library)
        #expect(revert.status == 0, "\(revert.stderr)")
        let reverted = try #require((try revert.json() as? [[String: Any]])?.first)
        #expect(reverted["pixelWidth"] as? Int == 400 && reverted["pixelHeight"] as? Int == 300 && reverted["hasAdjustments"] as? Bool == false)
        let verify = try cli.photos(["verify"], library: library)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        let files = try FileManager.default.subpathsOfDirectory(atPath: library.appendingPathComponent("originals").path).filter { $0.contains(".") }
        #expect(files.count == 1)
    }

    @Test func badEditsAreOneLineErrors() throws {
        let dir = try TestMedia.temporaryDirectory("photos-edit-bad")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = dir.appendingPathComponent("Bad.photoslibrary")
        let photo = dir.appendingPathComponent("a.jpg")
        try TestMedia.writeImage(to: photo, width: 40, height: 30)
        let id = try #require(
            (try cli.photos(["add", photo.path, "--json"], library: library).json() as? [[String: Any]])?.first?["localIdentifier"] as? String)
        for arguments in [
            ["--exposure", "20"], ["--crop", "0.5,0.5,0.8,0.8"], ["--look", "sepia"], ["--rotate", "45"], ["--reset", "everything"], [],
        ] {
            let run = try cli.photos(["edit", id] + arguments, library: library)
            #expect(run.status != 0 && run.stderr.split(separator: "\n").count == 1, "\(arguments): \(run.stderr)")
        }
        #expect((try cli.photos(["show", id, "--json"], library: library).json() as? [String: Any])?["hasAdjustments"] as? Bool == false)
        // An editor's client identity is kept with its edit.
        _ = try cli.photos(["grant", "darkroom", "readWrite"], library: library)
        let byClient = try cli.photos(["edit", id, "--look", "mono"], library: library, client: "darkroom")
        #expect(byClient.status == 0, "\(byClient.stderr)")
        let shown = try #require(try cli.photos(["show", id, "--json"], library: library).json() as? [String: Any])
        #expect((shown["adjustment"] as? [String: Any])?["editor"] as? String == "darkroom")
    }
}
