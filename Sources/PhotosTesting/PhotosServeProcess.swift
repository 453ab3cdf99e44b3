import Foundation

/// A `photos serve` process on a free loopback port, as a test starts and stops it.
///
/// A server in a process of its own answers whatever the test process is doing: one that runs inside the test
/// process shares Swift concurrency's few cooperative threads with every other test there, and on a busy machine its
/// replies wait for them.
///
/// The `photos` command is found at `$OPENPHOTOKIT_PHOTOS_COMMAND`, else among the build's products beside the
/// running tests, else on the `PATH`.
public final class PhotosServeProcess: @unchecked Sendable {
    /// The running process.
    public let process: Process
    /// Where it listens: `http://127.0.0.1:…/`.
    public let url: URL
    /// The port it listens on.
    public var port: Int { url.port ?? 0 }

    /// Starts `photos serve` over `library` (a library's URL as `PHPhotoLibrary(url:)` takes it: a folder or a
    /// store's address) with `arguments` added, and returns once it listens; its standard error goes to
    /// `standardError` (nothing: discarded).
    public init(library: URL, arguments: [String] = [], standardError: URL? = nil) throws {
        let process = Process()
        process.executableURL = try Self.photosCommand()
        let location = library.isFileURL ? library.path : library.absoluteString
        process.arguments = ["serve", "--library", location, "--port", "0", "--json"] + arguments
        let output = Pipe()
        process.standardOutput = output
        if let standardError {
            FileManager.default.createFile(atPath: standardError.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: standardError)
        } else {
            process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        }
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        try process.run()
        // The first line says where it listens: {"host":…,"port":…,"url":"http://127.0.0.1:…/"}.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let more = output.fileHandleForReading.availableData
            if more.isEmpty { break }
            line.append(more)
        }
        struct Listening: Decodable { let url: String }
        guard let listening = try? JSONDecoder().decode(Listening.self, from: line.prefix { $0 != UInt8(ascii: "\n") }),
            let url = URL(string: listening.url)
        else {
            process.terminate()
            process.waitUntilExit()
            let said = standardError.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? ""
            throw CocoaError(
                .executableLoad,
                userInfo: [NSLocalizedDescriptionKey: "photos serve did not start: \(String(decoding: line, as: UTF8.self))\(said)"])
        }
        self.process = process
        self.url = url
    }

    /// Stops it (SIGTERM: a graceful shutdown) and waits for its end.
    public func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    /// The `photos` command this runs.
    public static func photosCommand() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["OPENPHOTOKIT_PHOTOS_COMMAND"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        if let built = BuiltProducts.find("photos") { return built }
        for entry in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(entry)).appendingPathComponent("photos")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "the photos command was not found (set OPENPHOTOKIT_PHOTOS_COMMAND)"])
    }
}
