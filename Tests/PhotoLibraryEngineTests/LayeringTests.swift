import Foundation
import Testing

/// The layering ARCHITECTURE.md describes, checked in the sources: nothing above the engine names SQL, the database,
/// a file of the library or the engine's storage parts — so a second store behind the engine changes nothing above it.
@Suite("Layering")
struct LayeringTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources")
        .standardizedFileURL

    /// The modules above the engine.
    static let aboveTheEngine = [
        "OpenPhotos", "PhotosServer", "photos", "CommandLineSupport", "PhotoEditingExtension", "EditingExtensionHost", "BuiltInEditor", "Photos",
        "PhotosUI",
    ]

    /// What they must not name: SQL and its building blocks, the SQLite files, the bundle's layout, and the engine's
    /// storage parts (its database, blob store, bundle and stager).
    static let forbidden = [
        "import GRDB", "SQLFragment", "SQLValue", "KeyTable", "PredicateCompiler", "FetchPlanner", ".sqlite", "-shm", "-wal",
        "LibraryBundle", "FolderBlobStore", "engine.database", "engine.metadata", "engine.reader", "SQLConnection", "MetadataStore", "engine.bundle",
        "engine.blobs", "engine.stager",
        "engine.slots",
    ]

    /// Whether `line` names `word` as a whole (`KeyTable`, not `sortKeyTable`; Apple's
    /// `relinquishingLibraryBundleToWriter` is not `LibraryBundle`).
    static func names(_ line: Substring, _ word: String) -> Bool {
        var searchStart = line.startIndex
        while let range = line.range(of: word, range: searchStart..<line.endIndex) {
            let before = range.lowerBound == line.startIndex ? nil : line[line.index(before: range.lowerBound)]
            let after = range.upperBound == line.endIndex ? nil : line[range.upperBound]
            func isIdentifier(_ c: Character?) -> Bool { c.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false }
            let startsWord = !(word.first!.isLetter) || !isIdentifier(before)
            let endsWord = !(word.last!.isLetter) || !isIdentifier(after)
            if startsWord && endsWord { return true }
            searchStart = range.upperBound
        }
        return false
    }

    /// OpenPhotoKit's own surface goes through the mirror: it does not import the engine at all.
    static let ownSurface = ["PhotosServer", "photos", "CommandLineSupport", "PhotoEditingExtension", "EditingExtensionHost", "BuiltInEditor"]

    /// The Swift files of a module (or a folder under Sources), by path inside it, with their text.
    static func swiftFiles(in module: String) throws -> [(path: String, text: String)] {
        let folder = sources.appendingPathComponent(module)
        let enumerator = try #require(FileManager.default.enumerator(atPath: folder.path), "\(folder.path)")
        var files: [(path: String, text: String)] = []
        while let path = enumerator.nextObject() as? String {
            guard path.hasSuffix(".swift") else { continue }
            files.append((path, try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)))
        }
        return files
    }

    @Test func ownSurfaceDoesNotImportTheEngine() throws {
        var offences: [String] = []
        var filesRead = 0
        for module in Self.ownSurface {
            for (path, text) in try Self.swiftFiles(in: module) {
                filesRead += 1
                if text.split(separator: "\n").contains(where: { $0.hasPrefix("import PhotoLibraryEngine") }) {
                    offences.append("\(module)/\(path)")
                }
            }
        }
        #expect(filesRead > 50, "the sources were not found at \(Self.sources.path)")
        #expect(offences == [])
    }

    @Test func theCheckMatchesWholeNames() {
        #expect(Self.names("let x: KeyTable", "KeyTable"))
        #expect(!Self.names("let sortKeyTable = 1", "KeyTable"))
        #expect(!Self.names("case relinquishingLibraryBundleToWriter", "LibraryBundle"))
        #expect(Self.names("open(\"Photos.sqlite\")", ".sqlite"))
        #expect(Self.names("import GRDB", "import GRDB"))
    }

    @Test func nothingAboveTheEngineNamesStorage() throws {
        var offences: [String] = []
        var filesRead = 0
        for module in Self.aboveTheEngine {
            for (path, text) in try Self.swiftFiles(in: module) {
                filesRead += 1
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    for word in Self.forbidden where Self.names(line, word) {
                        offences.append("\(module)/\(path):\(number + 1): \(word)")
                    }
                }
            }
        }
        #expect(filesRead > 100, "the sources were not found at \(Self.sources.path)")
        #expect(offences == [])
    }

    /// Inside the engine, only each store knows its database's driver (GRDB and SQLite's API, PostgresNIO): the engine
    /// runs its statements on ``SQLConnection``, so a store is an implementation of the seam, not an edit of every file.
    @Test(arguments: [("Store/SQLite/", ["import GRDB", "sqlite3_step"]), ("Store/PostgreSQL/", ["import PostgresNIO", "PostgresQuery"])])
    func onlyEachStoreKnowsItsDriver(folder: String, names: [String]) throws {
        var offences: [String] = []
        var storeFiles = 0
        for (path, text) in try Self.swiftFiles(in: "PhotoLibraryEngine") {
            let namesDriver = text.split(separator: "\n").contains { line in names.contains { Self.names(line, $0) } }
            if path.hasPrefix(folder) {
                if namesDriver { storeFiles += 1 }
            } else if namesDriver {
                offences.append(path)
            }
        }
        #expect(storeFiles >= 2, "the store was not found under PhotoLibraryEngine/\(folder)")
        #expect(offences == [])
    }
}
