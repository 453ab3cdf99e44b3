import CommandLineSupport
import Foundation
import PhotosTestHarness

/// One wrk run's figures, and wrk run over a list of paths.
struct WrkResult {
    var requestsPerSecond: Double
    var p50: Double
    var p99: Double
    var json: [String: Any] { ["requestsPerSecond": requestsPerSecond, "p50Milliseconds": p50, "p99Milliseconds": p99] }

    /// wrk over `paths` in turn (a Lua script), `connections` connections on 2 threads for `seconds`, against
    /// 127.0.0.1:`port`; its run is a child process whose memory is not measured.
    static func run(
        port: Int, paths: [String], token: String?, connections: Int, seconds: Int, folder: URL, log: (String) -> Void
    ) throws -> WrkResult {
        let script = folder.appendingPathComponent("paths-\(port).lua")
        let list = paths.map { "\"\($0)\"" }.joined(separator: ",")
        let header = token.map { "wrk.headers[\"Authorization\"] = \"Bearer \($0)\"" } ?? ""
        try """
        \(header)
        local paths = {\(list)}
        local i = 0
        request = function()
          i = i % #paths + 1
          return wrk.format("GET", paths[i])
        end
        """.write(to: script, atomically: true, encoding: .utf8)
        let outcome = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/wrk"),
            [
                "-t", connections > 1 ? "2" : "1", "-c", String(connections), "-d", "\(seconds)s", "--latency", "-s", script.path,
                "http://127.0.0.1:\(port)",
            ], samplingMemory: false)
        let text = String(decoding: outcome.standardOutput, as: UTF8.self)
        func milliseconds(_ label: String) -> Double {
            guard let line = text.split(separator: "\n").first(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) }),
                let value = line.split(separator: " ").last
            else { return .nan }
            let number = Double(value.filter { $0.isNumber || $0 == "." }) ?? .nan
            if value.hasSuffix("us") { return number / 1000 }
            if value.hasSuffix("ms") { return number }
            if value.hasSuffix("s") { return number * 1000 }
            return number
        }
        let rate = text.split(separator: "\n").first { $0.hasPrefix("Requests/sec:") }.flatMap { Double($0.split(separator: " ").last ?? "") } ?? .nan
        if text.contains("Non-2xx") { log("  wrk: \(text.split(separator: "\n").filter { $0.contains("Non-2xx") }.joined())") }
        return WrkResult(requestsPerSecond: rate, p50: milliseconds("50%"), p99: milliseconds("99%"))
    }
}
