import BackgroundUploads
import Foundation
import Logging
import OpenPhotos
import PhotosTestHarness
import PhotosTesting
import Testing
import UploadExtensionHost

#if canImport(Glibc)
    import Glibc
#endif

/// Upload extensions as programs in a kernel sandbox: the example backs a library up through the library its host
/// serves it; a hostile one reaches neither the library's files nor the network, and one that crashes or hangs
/// costs failed calls, never the host.
@Suite("Sandboxed upload extensions")
struct SandboxedUploadExtensionTests {
    static let app = "org.example.backup"

    /// The device's handle as the app's client, granted full access, with background uploads enabled.
    static func appLibrary(_ device: TestLibrary) throws -> PHPhotoLibrary {
        try device.library.setAuthorization(.authorized, for: app)
        let library = try PHPhotoLibrary(url: device.url, clientIdentifier: app)
        try library.enableUploadJobExtension(with: nil)
        return library
    }

    static var quiet: Logger {
        var logger = Logger(label: "photos.uploads.test")
        logger.logLevel = .critical
        return logger
    }

    @Test func theExampleBacksALibraryUpFromItsSandbox() async throws {
        let device = try TestLibrary(name: "SandboxedDevice")
        defer { device.remove() }
        let fixture = try ServerFixture(name: "SandboxedBackupServer")
        defer { fixture.library.remove() }
        let ids = try BackgroundUploadTests.makeDevice(device)
        let library = try Self.appLibrary(device)
        // The extension's container: its settings and what it remembers; the token beside the library, read-only.
        let container = device.scratch.appendingPathComponent("container")
        try FileManager.default.createDirectory(at: container, withIntermediateDirectories: true)
        let tokenFile = device.scratch.appendingPathComponent("token")
        try Data(try fixture.token("phone", .authorized).utf8).write(to: tokenFile)
        let settings = container.appendingPathComponent("backup.json")

        try await fixture.test { client in
            let port = try #require(client.port)
            try JSONEncoder().encode(ServerBackupExtension.Settings(server: "http://127.0.0.1:\(port)", tokenFile: tokenFile.path)).write(
                to: settings)
            let program = UploadExtensionProgram(
                executableURL: ChildProcess.builtProduct("backup-extension"), environment: ["PHOTOS_BACKUP_SETTINGS": settings.path],
                readOnlyPaths: [tokenFile.path], readWritePaths: [container.path])
            let host = try UploadJobHost.sandboxed(library: library, program: program, logger: Self.quiet)
            let report = try await host.run()
            // 2 photos, a Live Photo (2), a RAW + JPEG pair (2), an edited photo (original, rendering, adjustment data).
            #expect(report.jobs.succeeded == 9 && report.jobs.failed == 0 && report.lastResult == .completed, "\(report)")
            #expect(PHAsset.fetchAssets(with: fixture.library.options()).count == ids.count)
            // The jobs are the app's, all acknowledged by the extension; the owner's handle has none.
            let options = PHFetchOptions()
            options.photoLibrary = library
            #expect(PHAssetResourceUploadJob.fetchJobs(action: .acknowledge, options: options).count == 0)
            #expect(PHAssetResourceUploadJob.fetchJobs(action: .process, options: options).count == 0)
            // What it remembers is in its container; a second run sends nothing.
            #expect(FileManager.default.fileExists(atPath: container.appendingPathComponent("backup.state.json").path))
            let again = try await host.run()
            #expect(again.jobs == UploadJobPerformer.Report() && again.lastResult == .completed, "\(again)")
            #expect(PHAsset.fetchAssets(with: fixture.library.options()).count == ids.count)
        }
    }

    @Test func anExtensionReachesNeitherTheLibrarysFilesNorTheNetwork() async throws {
        let device = try TestLibrary(name: "HostileDevice")
        defer { device.remove() }
        _ = try device.addImages(3)
        let library = try Self.appLibrary(device)
        let outbox = device.scratch.appendingPathComponent("outbox")
        try FileManager.default.createDirectory(at: outbox, withIntermediateDirectories: true)
        // A listener on loopback that the extension tries to reach.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try #require(withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } } == 0)
        try #require(listen(listener, 4) == 0)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        let port = UInt16(bigEndian: address.sin_port)

        let report = outbox.appendingPathComponent("report.json")
        let program = UploadExtensionProgram(
            executableURL: ChildProcess.builtProduct("hostile-upload-extension"),
            environment: [
                "HOSTILE_MODE": "peek", "HOSTILE_LIBRARY": device.url.path, "HOSTILE_PORT": String(port), "HOSTILE_REPORT": report.path,
                "HOSTILE_HOST_HOME": FileManager.default.homeDirectoryForCurrentUser.path,
            ],
            readWritePaths: [outbox.path])
        let result = try await UploadJobHost.sandboxed(library: library, program: program, logger: Self.quiet).run()
        #expect(result.lastResult == .completed && result.activations == 1, "\(result)")
        let found = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        // PhotoKit answers, with the app's access; the library's folder and the network are not there.
        #expect(found["assets"] as? Int == 3, "\(found)")
        #expect(found["uploadsEnabled"] as? Bool == true, "\(found)")
        #expect(found["libraryListed"] as? Bool == false && found["libraryOpened"] as? Bool == false, "\(found)")
        #expect(found["networkReached"] as? Bool == false, "\(found)")
        #expect(found["homeIsTheHosts"] as? Bool == false, "\(found)")
    }

    @Test(arguments: ["crash", "exit", "hang"])
    func anExtensionThatFailsCostsFailedCallsNotTheHost(_ mode: String) async throws {
        let device = try TestLibrary(name: "FailingDevice")
        defer { device.remove() }
        let ids = try device.addImages(2)
        let library = try Self.appLibrary(device)
        let program = UploadExtensionProgram(
            executableURL: ChildProcess.builtProduct("hostile-upload-extension"), environment: ["HOSTILE_MODE": mode], timeout: 3)
        let result = try await UploadJobHost.sandboxed(library: library, program: program, logger: Self.quiet).run()
        // Three calls, each to a fresh process, each a failure; then the host gives up, and the library is as it was.
        #expect(result.lastResult == .failure && result.activations == 3 && result.jobs == UploadJobPerformer.Report(), "\(result)")
        #expect(PHAsset.fetchAssets(with: device.options()).count == ids.count)
        let options = PHFetchOptions()
        options.photoLibrary = library
        #expect(PHAssetResourceUploadJob.fetchJobs(action: .process, options: options).count == 0)
    }

    @Test func theOwnersHandleIsNotLent() throws {
        let device = try TestLibrary(name: "OwnerDevice")
        defer { device.remove() }
        let program = UploadExtensionProgram(executableURL: ChildProcess.builtProduct("backup-extension"))
        #expect(throws: UploadExtensionHostError.self) { _ = try UploadJobHost.sandboxed(library: device.library, program: program) }
    }
}
