import CProcessControl
import Foundation
import PhotosTesting

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with posix_spawn, whose end is collected with wait4 — so its own peak resident memory
/// is known (Foundation's `Process` does not give it) — and which can be killed at any instant (SIGKILL).
public final class ChildProcess: @unchecked Sendable {
    /// How a child ended.
    public struct Outcome: Sendable {
        /// The exit status, or 128 + the signal that ended it.
        public var status: Int32
        /// Whether a signal ended it.
        public var wasSignalled: Bool
        /// Seconds from start to end.
        public var seconds: Double
        /// Its own peak resident memory, in KiB: the largest `VmHWM` read from `/proc/<pid>/status` while it ran
        /// (sampled every 2 ms). Not wait4's `ru_maxrss`: Linux carries the parent's peak into a child started with
        /// posix_spawn (the vfork'd address space's high-water mark is kept across execve), so a large parent made
        /// every child look as large as itself.
        public var maxRSSKilobytes: Int
        /// What it wrote to standard output.
        public var standardOutput: Data
        /// The processor time it used, user and system (wait4's `ru_utime` + `ru_stime`), in seconds.
        public var cpuSeconds: Double = 0
    }

    public let pid: pid_t
    private let started = DispatchTime.now()
    private let outputFile: URL

    /// Starts `executable` with `arguments`; standard output goes to a file read at the end, standard error to
    /// /dev/null unless `standardError` names a file.
    public init(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil, standardError: URL? = nil) throws {
        outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString).out")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outputFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, standardError?.path ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        // The child gets nothing else of this process's: a descriptor another test left open without O_CLOEXEC (a
        // program being copied, say) would otherwise stay open for the child's whole life.
        opk_spawn_close_from(&actions, 3)
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { envp?.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned =
            envp.map { env in posix_spawn(&pid, executable.path, &actions, nil, argv, env) }
            ?? posix_spawn(&pid, executable.path, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw CocoaError(
                .executableLoad, userInfo: [NSLocalizedDescriptionKey: "cannot run \(executable.path): \(String(cString: strerror(spawned)))"])
        }
        self.pid = pid
    }

    /// A product of this build, found beside the running test bundle or executable (`photos` for the CLI tests).
    public static func builtProduct(_ name: String) -> URL {
        BuiltProducts.find(name) ?? URL(fileURLWithPath: "/\(name)")
    }

    /// Runs a command to its end.
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, samplingMemory: Bool = true
    ) throws -> Outcome {
        try ChildProcess(executable, arguments, environment: environment).wait(samplingMemory: samplingMemory)
    }

    /// What it has written to standard output so far.
    public var standardOutputSoFar: Data { (try? Data(contentsOf: outputFile)) ?? Data() }

    /// Sends SIGKILL.
    public func kill() { _ = Glibc.kill(pid, SIGKILL) }

    /// Whether it has ended (its state in `/proc` is gone or a zombie's), without collecting it: ``wait(samplingMemory:)``
    /// still tells how it ended.
    public var hasEnded: Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return true }
        return stat[close...].dropFirst(2).first == "Z"
    }

    /// The child's peak resident memory so far (`VmHWM`, KiB), or nil once it has ended.
    private func highWaterMark() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }

    /// Waits for the end. `samplingMemory` reads the child's peak memory every 2 ms while it runs (what
    /// ``Outcome/maxRSSKilobytes`` reports); without it the wait blocks in `wait4` and costs nothing — for children
    /// whose memory is not measured while this process measures something else (a load generator's).
    public func wait(samplingMemory: Bool = true) -> Outcome {
        var status: Int32 = 0
        var usage = rusage()
        var peak = 0
        while true {
            if samplingMemory, let mark = highWaterMark() { peak = max(peak, mark) }
            let ended = wait4(pid, &status, samplingMemory ? WNOHANG : 0, &usage)
            if ended == pid { break }
            if ended < 0 && errno != EINTR { break }
            if samplingMemory { usleep(2000) }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        let output = (try? Data(contentsOf: outputFile)) ?? Data()
        try? FileManager.default.removeItem(at: outputFile)
        let signalled = (status & 0x7F) != 0
        return Outcome(
            status: signalled ? 128 + (status & 0x7F) : (status >> 8) & 0xFF, wasSignalled: signalled, seconds: seconds,
            maxRSSKilobytes: peak > 0 ? peak : Int(usage.ru_maxrss), standardOutput: output,
            cpuSeconds: Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6)
    }
}

/// Runs the `photos` command built beside the tests and collects what it printed (for tests of the command line).
public enum PhotosCommandLine {
    public struct Run: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String

        public init(status: Int32, stdout: String, stderr: String) {
            (self.status, self.stdout, self.stderr) = (status, stdout, stderr)
        }

        /// The standard output as JSON.
        public func json() throws -> Any { try JSONSerialization.jsonObject(with: Data(stdout.utf8)) }
    }

    /// `photos ARGUMENTS` with this process's environment changed by `environment` (nil values remove a variable).
    public static func run(_ arguments: [String], environment changes: [String: String?] = [:]) throws -> Run {
        let process = Process()
        process.executableURL = ChildProcess.builtProduct("photos")
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in changes { environment[key] = value }
        process.environment = environment
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }
}
