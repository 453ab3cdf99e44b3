import ArgumentParser
import CommandLineSupport
import Foundation
import OpenPhotos

/// Whole libraries: copy one into a new one (between stores too).
struct LibraryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library", abstract: "Work on whole libraries: copy one into a new one, on another store.",
        subcommands: [LibraryCopy.self])
}

struct LibraryCopy: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy a library into a new one: a folder or a postgres:// URL each, so SQLite → PostgreSQL and back.",
        discussion: """
            The copy is the same library: local identifiers, versions and edits, albums and folders, grants, tokens and \
            the history (change tokens of the original work on the copy). The original is read in one snapshot and \
            not changed; DESTINATION must not hold a library. A copy that fails leaves nothing at DESTINATION. \
            Afterwards, `photos verify` reports the same of both.
            Example: photos library copy ~/Pictures/Family.photoslibrary \
            'postgres://photos@db:5432/photos?library=family&files=/srv/photos/family'
            """)

    @Argument(help: "The library to copy: a .photoslibrary folder or a postgres:// URL.") var source: String
    @Argument(help: "Where the new library goes: a folder path or a postgres:// URL.") var destination: String
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        for (name, location) in [("SOURCE", source), ("DESTINATION", destination)]
        where location.contains("://") && URLComponents(string: location)?.password != nil {
            throw ValidationError("\(name) must not hold a password (others can read a command line): set PGPASSWORD or use ~/.pgpass")
        }
    }

    func run() throws {
        let bar = LazyProgress("copy", unit: "files", json: global.json)
        let report: LibraryCopyReport
        do {
            report = try PHPhotoLibrary.copyLibrary(
                at: PHPhotoLibrary.libraryURL(source), to: PHPhotoLibrary.libraryURL(destination), progress: { bar.update($0, of: $1) })
        } catch { throw CLIError(describe(error)) }
        bar.finish()
        let assets = report.rows["asset"] ?? 0
        let collections = report.rows["collection"] ?? 0
        let history = report.rows["change_journal"] ?? 0
        if global.json {
            Output.printJSON([
                "assets": assets, "collections": collections, "changes": history, "files": report.files, "bytes": report.bytes,
                "rows": report.rows, "problems": report.problems.map { ["kind": $0.kind, "path": $0.path, "detail": $0.detail] },
            ])
        } else {
            for problem in report.problems { print(Output.printable(problem.description)) }
            let megabytes = String(format: "%.1f", Double(report.bytes) / 1_000_000)
            print(
                "copied \(assets) assets, \(report.files) files (\(megabytes) MB), \(collections) collections and \(history) changes of history"
                    + (report.problems.isEmpty ? "" : "; \(report.problems.count) files of the original were not as recorded (above)"))
        }
    }
}
