import ArgumentParser
import CommandLineSupport
import Foundation
import OpenPhotos
import PhotosTesting

#if canImport(Glibc)
    import Glibc
#endif

/// The monotonic clock in nanoseconds: one clock for every process of the machine.
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// Commit-to-observer delay in another process: a child process (`photos-bench observe-child`) registers a change
/// observer on the library and prints the monotonic time of each `photoLibraryDidChange`; this process commits
/// `commits` one-asset changes, one at a time, each after the previous one was heard. Returns the delays in
/// milliseconds from each `performChangesAndWait` returning (the commit acknowledged) to the other process's
/// observer being called.
func crossProcessObserverDelays(library: PHPhotoLibrary, url: URL, commits: Int) throws -> [Double] {
    let child = Process()
    child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    child.arguments = ["observe-child", "--library", url.isFileURL ? url.path : url.absoluteString]
    let output = Pipe()
    let input = Pipe()
    child.standardOutput = output
    child.standardInput = input
    try child.run()
    defer {
        try? input.fileHandleForWriting.close()
        child.waitUntilExit()
    }
    var lines = PipeLines(output.fileHandleForReading)
    guard lines.next() == "ready" else { throw CLIError("the observing process did not start") }

    let options = PHFetchOptions()
    options.photoLibrary = library
    options.fetchLimit = 1
    guard let asset = PHAsset.fetchAssets(with: options).firstObject else { throw CLIError("the library is empty") }
    var delays: [Double] = []
    // One warm-up commit, not counted.
    for round in 0...commits {
        try library.performChangesAndWait { PHAssetChangeRequest(for: asset).isHidden = round % 2 == 0 }
        let acknowledged = monotonicNanoseconds()
        guard let line = lines.next(), let heard = UInt64(line) else { throw CLIError("the observing process stopped") }
        if round > 0 { delays.append((Double(heard) - Double(acknowledged)) / 1_000_000) }
    }
    try library.performChangesAndWait { PHAssetChangeRequest(for: asset).isHidden = false }
    _ = lines.next()
    return delays
}

/// The observing process of ``crossProcessObserverDelays(library:url:commits:)``.
struct BenchObserveChild: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "observe-child",
        abstract: "Print the monotonic time of each change observed in a library, until standard input closes.",
        shouldDisplay: false)
    @Option(help: "The library (a folder path or a URL).") var library: String

    func run() throws {
        let url = library.contains("://") ? URL(string: library) : URL(fileURLWithPath: library)
        guard let url else { throw ValidationError("not a library URL: \(library)") }
        let photos = try PHPhotoLibrary(url: url, clientIdentifier: nil)
        let observer = TimestampObserver()
        photos.register(observer)
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        _ = FileHandle.standardInput.readDataToEndOfFile()
        photos.unregisterChangeObserver(observer)
    }
}

private final class TimestampObserver: NSObject, PHPhotoLibraryChangeObserver, Sendable {
    func photoLibraryDidChange(_ changeInstance: PHChange) {
        FileHandle.standardOutput.write(Data("\(monotonicNanoseconds())\n".utf8))
    }
}
