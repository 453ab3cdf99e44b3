import BackgroundUploads
import Foundation
import OpenPhotos
import PhotosTesting
import Testing
import UniformTypeIdentifiers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A device's library backed up to a served library through background upload jobs, end to end: the example
/// extension makes the jobs, the host performs them against `photos serve` on loopback.
@Suite("Background uploads")
struct BackgroundUploadTests {
    /// A device library with two photos, a Live Photo, a RAW + JPEG pair (a TIFF stands for the RAW: no Debian
    /// libvips reads camera RAW) and an edited photo; the asset identifiers in creation order.
    static func makeDevice(_ device: TestLibrary) throws -> [String] {
        var ids = try device.addImages(2)
        let scratch = device.scratch
        let contentID = "5A1E0C11-0000-4000-8000-00000000AAAA"
        let still = scratch.appendingPathComponent("IMG_0500.JPG")
        try TestMedia.writeJPEG(
            to: still, width: 64, height: 48, exif: TestEXIF(dateTimeOriginal: "2024:06:01 12:00:00", appleContentIdentifier: contentID))
        let movie = scratch.appendingPathComponent("IMG_0500.MOV")
        try TestMedia.writeMovie(to: movie, keys: ["com.apple.quicktime.content.identifier": contentID])
        let raw = scratch.appendingPathComponent("IMG_0600.TIF")
        try TestMedia.writeImage(to: raw, width: 96, height: 64)
        let jpeg = try device.makeImage("IMG_0600.JPG", width: 96, height: 64)
        let original = try device.makeImage("IMG_0700.JPG", width: 80, height: 60)
        let rendering = try device.makeImage("render.jpg", width: 60, height: 80)
        try device.library.performChangesAndWait {
            let live = PHAssetCreationRequest.forAsset()
            live.addResource(with: .photo, fileURL: still, options: nil)
            live.addResource(with: .pairedVideo, fileURL: movie, options: nil)
            let pair = PHAssetCreationRequest.forAsset()
            pair.addResource(with: .photo, fileURL: jpeg, options: nil)
            pair.addResource(with: .alternatePhoto, fileURL: raw, options: nil)
            let edited = PHAssetCreationRequest.forAsset()
            edited.addResource(with: .photo, fileURL: original, options: nil)
            edited.isFavorite = true
            let output = PHContentEditingOutput(placeholderForCreatedAsset: edited.placeholderForCreatedAsset!)
            output.adjustmentData = PHAdjustmentData(formatIdentifier: "com.example.rotate", formatVersion: "1", data: Data("90".utf8))
            try? FileManager.default.copyItem(at: rendering, to: try! output.renderedContentURL(for: .jpeg))
            edited.contentEditingOutput = output
            ids += [live, pair, edited].map { $0.placeholderForCreatedAsset!.localIdentifier }
        }
        return ids
    }

    @Test(arguments: LibraryProviders.all)
    func aLibraryBacksUpToAServedLibraryBitForBitAndOnce(_ provider: any LibraryProvider) async throws {
        let device = try TestLibrary(name: "Device")
        defer { device.remove() }
        let fixture = try ServerFixture(name: "BackupServer", provider: provider)
        defer { fixture.library.remove() }
        let ids = try Self.makeDevice(device)
        let tokenFile = device.scratch.appendingPathComponent("token")
        try Data(try fixture.token("phone", .authorized).utf8).write(to: tokenFile)
        try device.library.enableUploadJobExtension(with: nil)
        #expect(device.library.uploadJobExtensionEnabled)
        let settings = device.scratch.appendingPathComponent("backup.json")
        let server = fixture.library

        try await fixture.test { client in
            let port = try #require(client.port)
            try JSONEncoder().encode(ServerBackupExtension.Settings(server: "http://127.0.0.1:\(port)", tokenFile: tokenFile.path))
                .write(to: settings)
            let host = UploadJobHost(library: device.library, extensionType: ServerBackupExtension.self)
            let report = try await ServerBackupExtension.$settingsFile.withValue(settings) { try await host.run() }
            // 2 photos, a Live Photo (2), a RAW + JPEG pair (2), an edited photo (original, rendering, adjustment data).
            #expect(report.jobs.succeeded == 2 + 2 + 2 + 3, "\(report)")
            #expect(report.jobs.failed == 0 && report.lastResult == .completed)

            // The server has every asset, every resource bit for bit, the edit as a version that reverts, and the
            // same cloud identifiers.
            let serverAssets = PHAsset.fetchAssets(with: server.options())
            #expect(serverAssets.count == ids.count)
            let deviceAssets = PHAsset.fetchAssets(withLocalIdentifiers: ids, options: device.options())
            let clouds = device.library.cloudIdentifierMappings(forLocalIdentifiers: ids)
            for index in 0..<deviceAssets.count {
                let mine = deviceAssets.object(at: index)
                let cloud = try #require(try clouds[mine.localIdentifier]?.get())
                let theirs = try #require(try server.library.localIdentifierMappings(for: [cloud])[cloud]?.get())
                let copy = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [theirs], options: server.options()).firstObject)
                let expected = PHAssetResource.assetResources(for: mine).filter { $0.type != .adjustmentBasePhoto }
                #expect(
                    PHAssetResource.assetResources(for: copy).map { "\($0.type.rawValue) \($0.sha256) \($0.originalFilename)" }
                        == expected.map { "\($0.type.rawValue) \($0.sha256) \($0.originalFilename)" }, "\(mine.localIdentifier)")
                #expect(copy.mediaSubtypes == mine.mediaSubtypes && copy.hasAdjustments == mine.hasAdjustments)
                #expect(
                    copy.creationDate == mine.creationDate && copy.isFavorite == mine.isFavorite,
                    "\(String(describing: copy.creationDate?.timeIntervalSince1970)) \(String(describing: mine.creationDate?.timeIntervalSince1970))")
                #expect(try server.library.cloudIdentifierMappings(forLocalIdentifiers: [theirs])[theirs]?.get() == cloud)
            }
            let editedCloud = try #require(try clouds[ids[4]]?.get())
            let edited = try #require(try server.library.localIdentifierMappings(for: [editedCloud])[editedCloud]?.get())
            let editedCopy = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [edited], options: server.options()).firstObject)
            try server.library.performChangesAndWait { PHAssetChangeRequest(for: editedCopy).revertAssetContentToOriginal() }
            let reverted = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [edited], options: server.options()).firstObject)
            #expect(!reverted.hasAdjustments && (reverted.pixelWidth, reverted.pixelHeight) == (80, 60))

            // Every job acknowledged; a second run sends nothing, and the server has nothing more.
            let again = try await ServerBackupExtension.$settingsFile.withValue(settings) { try await host.run() }
            #expect(again.jobs == UploadJobPerformer.Report(), "\(again)")
            let options = device.options()
            #expect(PHAssetResourceUploadJob.fetchJobs(action: .acknowledge, options: options).count == 0)
            #expect(PHAssetResourceUploadJob.fetchJobs(action: .process, options: options).count == 0)
            #expect(PHAsset.fetchAssets(with: server.options()).count == ids.count)

            // A photo edited on the device after its backup: the server refuses the edit's resources (409), each job
            // fails, is retried once and fails again; the run ends (no job made anew in a loop), and the next run
            // leaves them alone.
            let plain = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [ids[0]], options: device.options()).firstObject)
            let rerendered = try device.makeImage("again.jpg", width: 48, height: 64)
            let input = try await plain.requestContentEditingInput(with: PHContentEditingInputRequestOptions())
            let output = PHContentEditingOutput(contentEditingInput: input)
            output.adjustmentData = PHAdjustmentData(formatIdentifier: "com.example.turn", formatVersion: "1", data: Data("270".utf8))
            try FileManager.default.copyItem(at: rerendered, to: output.renderedContentURL)
            try device.library.performChangesAndWait { PHAssetChangeRequest(for: plain).contentEditingOutput = output }
            let refused = try await ServerBackupExtension.$settingsFile.withValue(settings) { try await host.run() }
            #expect(refused.jobs.succeeded == 0 && refused.jobs.failed == 4, "\(refused)")
            let later = try await ServerBackupExtension.$settingsFile.withValue(settings) { try await host.run() }
            #expect(later.jobs == UploadJobPerformer.Report(), "\(later)")
        }
    }
}
