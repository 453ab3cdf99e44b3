import Foundation
import PhotoLibraryEngine
import PhotosTesting

extension TestLibrary {
    /// What the writers' slots hold: staged files and intent journals (empty between
    /// transactions that finished, committed or not).
    public func writerLeftovers() throws -> [String] {
        let writers = url.appendingPathComponent("private/writers")
        var found: [String] = []
        for slot in try FileManager.default.contentsOfDirectory(atPath: writers.path) where !slot.hasSuffix(".lock") {
            let folder = writers.appendingPathComponent(slot)
            let entries = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            // A journal emptied by a finished transaction and kept for the next is not a leftover.
            found += entries.filter { !WriterSlot.isEmptiedJournal(folder.appendingPathComponent($0)) }.map { "\(slot)/\($0)" }
        }
        return found.sorted()
    }
}
