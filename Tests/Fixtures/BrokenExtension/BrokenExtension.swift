// A photo editing extension that misbehaves on request, for the host's tests: the `fault` setting picks how, and
// installed under a name ending in `-garbage` or `-crash` it fails before speaking the protocol at all.
import CoreImage
import OpenPhotos
import PhotoEditingExtension
import PhotoEditingProtocol
import PhotosUI

#if canImport(Glibc)
    import Glibc
#endif

final class BrokenController: NSObject, PHContentEditingController {
    private var input: PHContentEditingInput?
    private var cancelled = false

    func canHandle(_ adjustmentData: PHAdjustmentData) -> Bool { true }

    func startContentEditing(with contentEditingInput: PHContentEditingInput, placeholderImage: UIImage) {
        input = contentEditingInput
        if PhotoEditingExtension.settings.choice("fault") == "crash-on-start" { abort() }
    }

    func finishContentEditing(completionHandler: @escaping @Sendable (PHContentEditingOutput?) -> Void) {
        guard let input else { return completionHandler(nil) }
        let fault = PhotoEditingExtension.settings.choice("fault") ?? "none"
        let output = PHContentEditingOutput(contentEditingInput: input)
        let folder = output.renderedContentURL.deletingLastPathComponent()
        switch fault {
        case "crash-on-finish": abort()
        case "hang-on-finish": while true { sleep(60) }
        case "no-output": return completionHandler(nil)
        case "copy":
            // No edit at all: the input handed back (what an extension round trip costs without the edit itself).
            guard let url = input.fullSizeImageURL, (try? FileManager.default.copyItem(at: url, to: output.renderedContentURL)) != nil else {
                return completionHandler(nil)
            }
            output.adjustmentData = PHAdjustmentData(formatIdentifier: "org.openphotokit.tests.copy", formatVersion: "1.0", data: Data([1]))
            return completionHandler(output)
        default: break
        }
        var report = "fault=\(fault)"
        if fault == "report-session" {
            report += " session=\(((ProcessInfo.processInfo.environment["HOME"] ?? "") as NSString).deletingLastPathComponent)"
            FileHandle.standardError.write(Data(repeating: UInt8(ascii: "x"), count: 3 << 20))
        }
        if fault == "open-library" {
            // Whatever it can reach: the shared library (its home is the session's) and the environment.
            let options = PHFetchOptions()
            options.includeHiddenAssets = true
            report += " assets=\(PHAsset.fetchAssets(with: options).count)"
            report += " library=\(PHPhotoLibrary.shared().libraryURL.path)"
            report += " env=\(ProcessInfo.processInfo.environment.keys.filter { $0.hasPrefix("PHOTOS") }.sorted())"
            let display = input.displaySizeImage?.size ?? .zero
            report += " display=\(Int(display.width))x\(Int(display.height))"
        }
        if fault == "escape-library" { report += " reached=\(escapeAttempts())" }
        if fault == "daemon" {
            // A detached child that ignores SIGTERM and SIGHUP, and this process ignores SIGTERM too: neither may
            // outlive the session.
            signal(SIGTERM, SIG_IGN)
            let marker = "opk-daemon-\(UUID().uuidString)"
            let daemon = Process()
            daemon.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
            daemon.arguments = ["/bin/sh", "-c", "trap '' TERM HUP; while :; do sleep 1; done", marker]
            try? daemon.run()
            // Seen running before the session ends (so the host's test is about a daemon that really ran).
            var seen = false
            for _ in 0..<200 where !seen {
                seen = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).contains { pid in
                    guard Int32(pid) != nil, let line = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
                    return String(decoding: line, as: UTF8.self).contains(marker)
                }
                if !seen { usleep(10_000) }
            }
            report += " daemon=\(marker) seen=\(seen)"
        }
        guard let url = input.fullSizeImageURL, let image = CIImage(contentsOf: url)?.oriented(forExifOrientation: input.fullSizeImageOrientation)
        else { return completionHandler(nil) }
        let target: URL
        switch fault {
        case "outside-folder": target = folder.deletingLastPathComponent().appendingPathComponent("FullSizeRender.jpg")
        default: target = output.renderedContentURL
        }
        do {
            if fault == "wrong-type" {
                try CIContext().pngRepresentation(of: image, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!)?.write(to: target)
            } else {
                try CIContext().writeJPEGRepresentation(
                    of: image.applyingFilter("CIColorInvert"), to: target, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!)
            }
            if fault == "video-for-still" {
                // A Live Photo video for an asset that has none.
                try Data("not a movie".utf8).write(to: output.renderedPairedVideoURL)
            }
            if fault == "symlink" {
                try FileManager.default.removeItem(at: output.renderedContentURL)
                try FileManager.default.createSymbolicLink(at: output.renderedContentURL, withDestinationURL: url)
            }
        } catch {
            return completionHandler(nil)
        }
        output.adjustmentData = PHAdjustmentData(formatIdentifier: "org.openphotokit.tests.broken", formatVersion: "1.0", data: Data(report.utf8))
        if fault == "slow-finish" {
            // Long enough for the host to cancel while this finishes; the late output must be dropped.
            DispatchQueue.global().asyncAfter(deadline: .now() + 1.5) { completionHandler(output) }
            return
        }
        if fault == "double-finish" { completionHandler(output) }
        completionHandler(output)
    }

    var shouldShowCancelConfirmation: Bool { PhotoEditingExtension.settings.choice("fault") == "slow-finish" }

    func cancelContentEditing() { cancelled = true }
}

/// Everything a hostile extension tries to reach a photo library through, as "[what it reached]" (empty: nothing): the
/// host's command line, working folder and descriptors in /proc, its own inherited descriptors, libraries found in
/// temporary folders and homes (directly, through /proc/1/root and through a symbolic link it makes), and the user's
/// real home.
func escapeAttempts() -> [String] {
    let fileManager = FileManager.default
    var reached: [String] = []
    // The session folder: its $HOME is a folder of it.
    let here = ((ProcessInfo.processInfo.environment["HOME"] ?? fileManager.currentDirectoryPath) as NSString).deletingLastPathComponent
    func writable(_ path: String) -> Bool {
        let fd = open(path, O_RDWR)
        if fd >= 0 { close(fd) }
        return fd >= 0
    }
    // Other processes (the host among them): command line, working folder, open files.
    for pid in (try? fileManager.contentsOfDirectory(atPath: "/proc")) ?? [] where Int32(pid) != nil && Int32(pid) != getpid() {
        if let line = fileManager.contents(atPath: "/proc/\(pid)/cmdline"), String(decoding: line, as: UTF8.self).contains(".photoslibrary") {
            reached.append("/proc/\(pid)/cmdline")
        }
        if let cwd = try? fileManager.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd"), !cwd.hasPrefix(here), cwd != "/" {
            reached.append("/proc/\(pid)/cwd → \(cwd)")
        }
        for fd in (try? fileManager.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? [] {
            let link = "/proc/\(pid)/fd/\(fd)"
            guard let target = try? fileManager.destinationOfSymbolicLink(atPath: link) else { continue }
            if target.contains(".photoslibrary") && writable(link) { reached.append("\(link) → \(target)") }
        }
    }
    // Its own descriptors: nothing but its pipes, its log and /dev.
    for fd in (try? fileManager.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
        guard let target = try? fileManager.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)"), target.hasPrefix("/") else { continue }
        if !target.hasPrefix(here) && !target.hasPrefix("/dev/") && !target.hasPrefix("/proc/") { reached.append("inherited \(fd) → \(target)") }
    }
    // Libraries where libraries are kept, a few levels down.
    var found: [String] = []
    var budget = 20_000
    func search(_ folder: String, depth: Int) {
        guard depth >= 0, budget > 0, let names = try? fileManager.contentsOfDirectory(atPath: folder) else { return }
        for name in names {
            budget -= 1
            let path = folder + "/" + name
            if name.hasSuffix(".photoslibrary") { found.append(path) } else { search(path, depth: depth - 1) }
        }
    }
    let realHome = getpwuid(getuid()).map { String(cString: $0.pointee.pw_dir) } ?? "/root"
    for root in ["/tmp", "/var/tmp", "/root", "/home", realHome, "/proc/1/root/tmp", "/proc/1/root/root", "/proc/1/root/home"] {
        search(root, depth: 3)
    }
    for (index, library) in found.enumerated() {
        let database = library + "/database/Photos.sqlite"
        if writable(database) { reached.append(database) }
        let link = here + "/link-\(index)"
        if (try? fileManager.createSymbolicLink(atPath: link, withDestinationPath: database)) != nil, writable(link) {
            reached.append("\(link) → \(database)")
        }
    }
    // The user's real home (its $HOME is the session's).
    if realHome != here, let names = try? fileManager.contentsOfDirectory(atPath: realHome), !names.isEmpty {
        reached.append("home \(realHome): \(names.count) entries")
    }
    return reached
}

/// Speaks the protocol by hand and names a rendering outside its folder.
func speakWithAnEscapingPath() -> Never {
    while let call = try? EditingExtensionWire.read(EditingExtensionWire.Call.self, from: STDIN_FILENO) {
        var reply: EditingExtensionWire.Reply
        switch call.call {
        case .hello: reply = .init(.hello)
        case .canHandle: reply = .init(.canHandle)
        case .start: reply = .init(.started)
        case .finish:
            reply = .init(.finished)
            reply.hasOutput = true
            reply.renderedContent = "../Input/DisplaySize.jpg"
            reply.adjustmentData = .init(formatIdentifier: "x.y", formatVersion: "1", data: Data([1]))
        case .cancel: reply = .init(.cancelled)
        }
        try? EditingExtensionWire.write(reply, to: STDOUT_FILENO)
    }
    exit(0)
}

@main
struct BrokenExtension {
    static func main() async {
        let name = URL(fileURLWithPath: CommandLine.arguments[0]).lastPathComponent
        if !CommandLine.arguments.contains("--print-info-plist") {
            if name.hasSuffix("-garbage") {
                FileHandle.standardOutput.write(Data("Hello from an extension that prints instead of speaking\n".utf8))
                sleep(30)
            }
            if name.hasSuffix("-crash") { abort() }
            if name.hasSuffix("-escape") { speakWithAnEscapingPath() }
            if name.hasSuffix("-huge") {
                var length = UInt32(64 << 20).bigEndian
                FileHandle.standardOutput.write(Data(bytes: &length, count: 4))
                sleep(30)
            }
        }
        await PhotoEditingExtension.main(
            manifest: .init(
                bundleIdentifier: "org.openphotokit.tests.broken", displayName: "Broken", supportedMediaTypes: [.image],
                settings: [
                    .init(
                        name: "fault",
                        kind: .choice([
                            "none", "crash-on-start", "crash-on-finish", "hang-on-finish", "no-output", "outside-folder", "symlink", "wrong-type",
                            "slow-finish", "open-library", "double-finish", "copy", "video-for-still", "escape-library", "daemon", "report-session",
                        ]), defaultValue: "none")
                ])
        ) { BrokenController() }
    }
}
