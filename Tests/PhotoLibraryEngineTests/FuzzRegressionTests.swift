import Foundation
import PhotosFuzzing
import Testing

/// Every input kept in `Tests/FuzzCorpus/<target>/` — the seeds, and any input libFuzzer once crashed on — runs
/// through its target again: none may crash (a crash fails the whole test run, which is the point).
@Suite("Fuzzing regressions")
struct FuzzRegressionTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("FuzzCorpus")

    @Test(arguments: FuzzTarget.allCases)
    func keptInputsRunCleanly(target: FuzzTarget) throws {
        let folder = Self.corpus.appendingPathComponent(target.rawValue)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(!names.isEmpty, "no inputs for \(target.rawValue)")
        for name in names {
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            data.withUnsafeBytes { target.run($0) }
        }
    }
}
