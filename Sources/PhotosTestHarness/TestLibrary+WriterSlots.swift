import Foundation
import PhotosTesting

extension TestLibrary {
    /// What the writers' slots hold: staged files and intent journals (empty between
    /// transactions that finished, committed or not).
    public func writerLeftovers() throws -> [String] {
        let writers = url.appendingPathComponent("private/writers")
        var found: [String] = []
        for slot in try FileManager.default.contentsOfDirectory(atPath: writers.path) where !slot.hasSuffix(".lock") {
            let entries = try FileManager.default.contentsOfDirectory(atPath: writers.appendingPathComponent(slot).path)
            found += entries.map { "\(slot)/\($0)" }
        }
        return found.sorted()
    }
}
