import Foundation
import OpenPhotos
import PhotosTestHarness
import PhotosTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A device library backed up to a served library through upload jobs (`photos uploads run` against `photos
/// serve`, two processes), with one side or the other killed with SIGKILL at random instants while a third process
/// imports into the served library: in the end the server has every asset once, every resource bit for bit, the
/// other process's photos, and nothing received is left waiting.
@Suite("Reliability: background uploads killed mid-way")
struct BackupKillTests {
    struct Outcome: Sendable {
        var kills = 0
        /// Kills that came while the server still lacked assets.
        var midway = 0
        var deviceAssets = 0
        var serverAssets = 0
        /// Photos another process imported into the served library meanwhile (and said so).
        var othersImported = 0
        var mismatches: [String] = []
        var leftWaiting: [String] = []
        var problems: [String] = []
        var finalStatus: Int32 = -1
        var secondRun: String = ""
    }

    @Test func killedUploadersAndServersLoseNothingAndStoreNothingTwice() async throws {
        let outcome = try await blockingOffThePool { try Self.campaign() }
        #expect(outcome.finalStatus == 0)
        #expect(outcome.serverAssets == outcome.deviceAssets + outcome.othersImported)
        #expect(outcome.othersImported > 0)
        #expect(outcome.mismatches.isEmpty, "\(outcome.mismatches)")
        #expect(outcome.leftWaiting.isEmpty, "\(outcome.leftWaiting)")
        #expect(outcome.problems.isEmpty, "\(outcome.problems)")
        #expect(outcome.secondRun.contains("\"sent\":0") || outcome.secondRun.contains("\"sent\" : 0"), "\(outcome.secondRun)")
        #expect(outcome.midway >= outcome.kills / 2, "\(outcome.midway) of \(outcome.kills) kills came mid-way")
    }

    /// A port nothing listens on now.
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func campaign() throws -> Outcome {
        let workspace = try TestMedia.temporaryDirectory("backup-kill")
        defer { try? FileManager.default.removeItem(at: workspace) }
        let executable = ReliabilityTests.KillCampaignTests.executable
        let deviceURL = workspace.appendingPathComponent("Device.photoslibrary")
        let serverURL = workspace.appendingPathComponent("Server.photoslibrary")
        let device = try PHPhotoLibrary(url: deviceURL, clientIdentifier: nil)
        // 40 photos, a Live Photo and an edited photo.
        var files: [URL] = []
        for index in 0..<40 {
            let file = workspace.appendingPathComponent("IMG_\(1000 + index).JPG")
            try TestMedia.writeImage(to: file, width: 320 + index, height: 240)
            files.append(file)
        }
        let contentID = "B0C1D2E3-0000-4000-8000-00000000BBBB"
        let still = workspace.appendingPathComponent("IMG_2000.JPG")
        try TestMedia.writeJPEG(to: still, width: 64, height: 48, exif: TestEXIF(appleContentIdentifier: contentID))
        let movie = workspace.appendingPathComponent("IMG_2000.MOV")
        try TestMedia.writeMovie(to: movie, keys: ["com.apple.quicktime.content.identifier": contentID])
        let original = workspace.appendingPathComponent("IMG_3000.JPG")
        try TestMedia.writeImage(to: original, width: 90, height: 60)
        let rendering = workspace.appendingPathComponent("render.jpg")
        try TestMedia.writeImage(to: rendering, width: 60, height: 90)
        try device.performChangesAndWait {
            for file in files { PHAssetCreationRequest.forAsset().addResource(with: .photo, fileURL: file, options: nil) }
            let live = PHAssetCreationRequest.forAsset()
            live.addResource(with: .photo, fileURL: still, options: nil)
            live.addResource(with: .pairedVideo, fileURL: movie, options: nil)
            let edited = PHAssetCreationRequest.forAsset()
            edited.addResource(with: .photo, fileURL: original, options: nil)
            let output = PHContentEditingOutput(placeholderForCreatedAsset: edited.placeholderForCreatedAsset!)
            output.adjustmentData = PHAdjustmentData(formatIdentifier: "com.example.turn", formatVersion: "1", data: Data("90".utf8))
            try? FileManager.default.copyItem(at: rendering, to: try! output.renderedContentURL(for: .jpeg))
            edited.contentEditingOutput = output
        }
        let tokenFile = workspace.appendingPathComponent("token")
        do {
            let owner = try PHPhotoLibrary(url: serverURL, clientIdentifier: nil)
            try owner.setAuthorization(.authorized, for: "phone")
            try Data(try owner.createAccessToken(for: "phone").secret.utf8).write(to: tokenFile)
        }
        let port = freePort()
        let settings = workspace.appendingPathComponent("backup.json")
        let enable = try ChildProcess(
            executable,
            [
                "uploads", "enable", "--library", deviceURL.path, "--server", "http://127.0.0.1:\(port)", "--token-file", tokenFile.path,
                "--settings", settings.path,
            ]
        ).wait()
        guard enable.status == 0 else { throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "photos uploads enable failed"]) }

        func startServer() throws -> ChildProcess {
            let server = try ChildProcess(
                executable, ["serve", "--library", serverURL.path, "--port", String(port), "--json", "--log-level", "warning"])
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                if String(decoding: server.standardOutputSoFar, as: UTF8.self).contains("\"port\"") { return server }
                usleep(10_000)
            }
            server.kill()
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "photos serve did not start"])
        }
        func uploader(_ extra: [String] = []) throws -> ChildProcess {
            try ChildProcess(
                executable,
                ["uploads", "run", "--library", deviceURL.path, "--settings", settings.path, "--lease", "2", "--concurrency", "2"] + extra)
        }
        let watcher = try PHPhotoLibrary(url: serverURL, clientIdentifier: nil, readOnly: true)
        let watch = PHFetchOptions()
        watch.photoLibrary = watcher
        func serverCount() -> Int { PHAsset.fetchAssets(with: watch).count }

        var outcome = Outcome()
        let total = files.count + 2
        var random = SplitMix64(seed: 20_261_128)
        for round in 0..<8 {
            let server = try startServer()
            let run = try uploader()
            // Killed once the server has a few more assets (or when the run ends by itself).
            let backedUp = { serverCount() - outcome.othersImported }
            let target = min(total, backedUp() + 1 + random.next(below: 4))
            let deadline = Date().addingTimeInterval(30)
            while backedUp() < target, Date() < deadline { usleep(2_000) }
            // Another process writes the same library meanwhile.
            let photo = workspace.appendingPathComponent("other-\(round).jpg")
            try TestMedia.writeImage(to: photo, width: 33 + round, height: 21)
            let other = try ChildProcess(executable, ["import", "--library", serverURL.path, photo.path])
            usleep(UInt32(random.next(below: 20_000)))
            if round % 2 == 0 {
                run.kill()
                _ = run.wait()
                server.kill()
                _ = server.wait()
            } else {
                server.kill()
                _ = server.wait()
                usleep(100_000)
                run.kill()
                _ = run.wait()
            }
            if other.wait().status == 0 { outcome.othersImported += 1 }
            outcome.kills += 1
            if backedUp() < total { outcome.midway += 1 }
        }
        // The last round: nothing killed; a second run finds nothing to send.
        let server = try startServer()
        let final = try uploader(["--json"]).wait()
        outcome.finalStatus = final.status
        outcome.secondRun = String(decoding: try uploader(["--json"]).wait().standardOutput, as: UTF8.self)
        server.kill()
        _ = server.wait()

        // Every asset once, every resource bit for bit (found by cloud identifier), nothing left waiting.
        let served = try PHPhotoLibrary(url: serverURL, clientIdentifier: nil)
        let deviceOptions = PHFetchOptions()
        deviceOptions.photoLibrary = device
        let serverOptions = PHFetchOptions()
        serverOptions.photoLibrary = served
        let mine = PHAsset.fetchAssets(with: deviceOptions)
        outcome.deviceAssets = mine.count
        outcome.serverAssets = PHAsset.fetchAssets(with: serverOptions).count
        let ids = mine.objects(at: IndexSet(0..<mine.count)).map(\.localIdentifier)
        let clouds = device.cloudIdentifierMappings(forLocalIdentifiers: ids)
        for asset in mine.objects(at: IndexSet(0..<mine.count)) {
            guard let cloud = try? clouds[asset.localIdentifier]?.get(),
                let theirs = try? served.localIdentifierMappings(for: [cloud])[cloud]?.get(),
                let copy = PHAsset.fetchAssets(withLocalIdentifiers: [theirs], options: serverOptions).firstObject
            else {
                outcome.mismatches.append("\(asset.localIdentifier): not on the server")
                continue
            }
            let expected = PHAssetResource.assetResources(for: asset).map { "\($0.type.rawValue) \($0.sha256)" }
            let found = PHAssetResource.assetResources(for: copy).map { "\($0.type.rawValue) \($0.sha256)" }
            if expected != found { outcome.mismatches.append("\(asset.localIdentifier): \(found) instead of \(expected)") }
        }
        let incoming = serverURL.appendingPathComponent("originals/incoming")
        if let enumerator = FileManager.default.enumerator(atPath: incoming.path) {
            while let name = enumerator.nextObject() as? String {
                var directory: ObjCBool = false
                if FileManager.default.fileExists(atPath: incoming.appendingPathComponent(name).path, isDirectory: &directory), !directory.boolValue {
                    outcome.leftWaiting.append(name)
                }
            }
        }
        outcome.problems = try served.verify().problems.map { "\($0.kind) \($0.path) \($0.detail)" }
        return outcome
    }
}
