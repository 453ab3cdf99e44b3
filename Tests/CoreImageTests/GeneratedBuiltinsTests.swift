import Foundation
import PhotosTestHarness
import PhotosTesting
import Testing

/// The typed filters (`Sources/OpenCoreImage/CIFilterBuiltins/*.GENERATED.swift`) are what
/// scripts/generate-filter-builtins.py makes of its table: its `--check` lists any file that differs.
@Suite struct GeneratedBuiltinsTests {
    @Test func filterBuiltinsAreUpToDate() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent("scripts/generate-filter-builtins.py").path, "--check"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        // A child to wait for: on a thread of its own, not the pool the other tests run on.
        let (status, said) = try await blockingOffThePool { () throws -> (Int32, String) in
            try process.run()
            let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, said)
        }
        #expect(status == 0, "\(said)")
    }
}
