// An upload extension that misbehaves on request ($HOSTILE_MODE), for the tests of its host:
// - peek: tries to read the library's folder ($HOSTILE_LIBRARY) and to reach a TCP port on loopback ($HOSTILE_PORT),
//   counts the assets of the library it is served, writes what it found to $HOSTILE_REPORT, and is done;
// - crash: aborts in processJobs(); exit: exits with status 7 there; hang: never answers.
import Foundation
import OpenPhotos
import PhotoUploadExtension

#if canImport(Glibc)
    import Glibc
#endif

final class Hostile: PHBackgroundResourceUploadJobExtension {
    init() {}

    func processJobs() async -> PHBackgroundResourceUploadProcessingResult {
        let environment = ProcessInfo.processInfo.environment
        switch environment["HOSTILE_MODE"] ?? "" {
        case "crash": abort()
        case "exit": exit(7)
        case "hang":
            while true { sleep(60) }
        default: break
        }
        var report: [String: Any] = [:]
        let library = environment["HOSTILE_LIBRARY"] ?? "/nonexistent"
        report["libraryListed"] = (try? FileManager.default.contentsOfDirectory(atPath: library)) != nil
        report["libraryOpened"] = open(library, O_RDONLY) >= 0
        report["homeIsTheHosts"] = environment["HOME"] == environment["HOSTILE_HOST_HOME"]
        // The network: a listener of the test's on loopback.
        let port = UInt16(environment["HOSTILE_PORT"] ?? "") ?? 9
        let sock = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(sock, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        report["networkReached"] = connected == 0
        close(sock)
        // The library it is served: what PhotoKit answers.
        let options = PHFetchOptions()
        options.photoLibrary = PHPhotoLibrary.shared()
        report["assets"] = PHAsset.fetchAssets(with: options).count
        report["uploadsEnabled"] = PHPhotoLibrary.shared().uploadJobExtensionEnabled
        print("hostile extension: \(report)")  // to the host's log, not into the conversation
        if let path = environment["HOSTILE_REPORT"], let data = try? JSONSerialization.data(withJSONObject: report) {
            try? data.write(to: URL(fileURLWithPath: path))
        }
        return .completed
    }

    func willTerminate() async {}
}

await UploadExtensionMain.run(Hostile.self)
