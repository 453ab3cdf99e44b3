import Foundation
import PhotosTesting

/// The reliability check of a library on a database server when the server itself dies: `photos` children import
/// and change the library, and at a random instant of each the server is stopped at once (`pg_ctl stop -m immediate`:
/// no shutdown checkpoint, sessions cut mid-commit), then started again. The children must end — with success or a
/// clear error, never a hang — and after each restart the library is opened (recovery runs) and checked as after a
/// kill (``KillCampaign/check(library:after:ledger:into:)``): every commit a child acknowledged (it exited 0) is there,
/// no file without a row, no row without its file, no writer slot left.
public struct ServerCrashCampaign {
    /// What the campaign counted.
    public struct Result: Sendable, CustomStringConvertible {
        public var crashes = 0
        /// Children that reported success (their commits must be there) and that failed with an error.
        public var acknowledged = 0
        public var failed = 0
        /// Children still running 60 s after the crash (killed then): a missing timeout.
        public var hung = 0
        public var checks = KillCampaign.Result()
        public var seconds = 0.0

        public var description: String {
            String(
                format: "%d server crashes: %d children acknowledged, %d failed, %d hung; %d inconsistencies, %d lost commits, %d orphans; %.1f s",
                crashes, acknowledged, failed, hung, checks.inconsistencies.count, checks.lostCommits, checks.orphans, seconds)
        }
    }

    let executable: URL
    let workspace: URL
    let library: URL
    let crash: () throws -> Void
    let restart: () throws -> Void
    var random: SplitMix64

    /// A campaign on the server library `library`; `crash` stops its server at once, `restart` starts it again.
    public init(
        photos executable: URL, workspace: URL, library: URL, seed: UInt64, crash: @escaping () throws -> Void,
        restart: @escaping () throws -> Void
    ) throws {
        self.executable = executable
        self.workspace = workspace
        self.library = library
        self.crash = crash
        self.restart = restart
        random = SplitMix64(seed: seed)
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
    }

    private func photos(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(executable, arguments + ["--library", library.absoluteString])
    }

    /// A new photo in the workspace (its path).
    private func image(_ counter: inout Int) throws -> String {
        counter += 1
        let file = workspace.appendingPathComponent("crash-\(counter).jpg")
        try TestMedia.writeImage(to: file, width: 20 + counter % 300, height: 10 + counter / 300)
        return file.path
    }

    /// Stops the PostgreSQL server of the cluster in `dataDirectory` at once — what `pg_ctl stop -m immediate` does
    /// (SIGQUIT to the postmaster: no checkpoint, every session cut), without the start-up time of a program — and
    /// waits until it is gone.
    public static func stopImmediately(dataDirectory: URL) throws {
        let pidFile = dataDirectory.appendingPathComponent("postmaster.pid")
        guard let text = try? String(contentsOf: pidFile, encoding: .utf8), let first = text.split(separator: "\n").first,
            let pid = Int32(first)
        else { throw CocoaError(.fileReadNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "no running server in \(dataDirectory.path)"]) }
        guard kill(pid, SIGQUIT) == 0 else { throw POSIXError(.ESRCH) }
        let deadline = Date().addingTimeInterval(30)
        while kill(pid, 0) == 0, Date() < deadline { usleep(10_000) }
    }

    public mutating func run(crashes: Int, log: (String) -> Void = { _ in }) throws -> Result {
        var result = Result()
        let started = Date()
        var ledger = Set<String>()
        var counter = 0
        // How long a child runs, from ones that are not crashed (the first makes the library, which takes longer):
        // crashes are drawn over that time, so that some land before, during and after its commit.
        var duration = 0.0
        for _ in 0..<2 {
            let calibration = try photos(["add", try image(&counter), try image(&counter), try image(&counter), "--json"]).wait()
            guard calibration.status == 0, let seeded = KillCampaign.identifiers(fromAddJSON: calibration.standardOutput) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "an add failed (\(calibration.status))"])
            }
            ledger.formUnion(seeded)
            duration = calibration.seconds
        }
        for round in 0..<crashes {
            // The victim: an add of several photos in one transaction (its identifiers, once acknowledged, must
            // survive), or a burst of changes to what is there.
            var arguments: [String]
            let known = ledger.sorted()
            if random.next(below: 3) != 0 {
                var files: [String] = []
                for _ in 0..<(2 + random.next(below: 5)) { files.append(try image(&counter)) }
                arguments = ["add"] + files + ["--json"]
            } else {
                let target = known[random.next(below: known.count)]
                arguments = random.next(below: 2) == 0 ? ["favorite", target] : ["edit", target, "--exposure", "0.\(round % 9 + 1)"]
            }
            let victim = try photos(arguments)
            let draw = Double(random.next(below: 1_000_000)) / 1_000_000 * duration
            // The instants are drawn over a calibrated duration, which a loaded machine makes noisy: every crash could
            // land after its child finished, and the campaign would test nothing mid-commit. The last round, if no child
            // has failed yet, crashes the server as its child starts, which no child survives.
            let delay = round == crashes - 1 && result.failed == 0 ? 0 : draw
            usleep(UInt32(delay * 1_000_000))
            try crash()
            result.crashes += 1
            // Bounded: a child that waits forever on a dead server is a bug, counted, then killed.
            let watchdog = DispatchWorkItem { victim.kill() }
            DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
            let end = victim.wait()
            watchdog.cancel()
            if end.wasSignalled {
                result.hung += 1
            } else if end.status == 0 {
                result.acknowledged += 1
                if arguments.first == "add", let added = KillCampaign.identifiers(fromAddJSON: end.standardOutput) { ledger.formUnion(added) }
            } else {
                result.failed += 1
            }
            try restart()
            KillCampaign.check(
                library: library, after: "server crash \(round + 1) during \(arguments.first ?? "?")", ledger: ledger, into: &result.checks)
            if round % 10 == 9 { log("\(round + 1) crashes: \(result)") }
        }
        result.seconds = Date().timeIntervalSince(started)
        return result
    }
}
