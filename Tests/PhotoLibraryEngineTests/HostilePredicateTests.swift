import Foundation
@testable import OpenPhotos
import PhotoLibraryEngine
import PhotosTesting
import Testing

/// Predicates as an attacker writes them, and NSPredicate's nil semantics, asserted on the SQL and on real rows.
@Suite("Hostile and nil predicates")
struct HostilePredicateTests {
    let compiler = PredicateCompiler(table: .asset, dialect: .sqlite)

    func sql(_ format: String, _ args: [PredicateValue] = []) throws -> SQLFragment {
        try compiler.compile(try PredicateParser.parse(format, arguments: args))
    }

    func syntaxMessage(_ format: String) -> String? {
        do {
            _ = try PredicateParser.parse(format, arguments: [])
            return nil
        } catch {
            guard case .syntax(_, _, let message) = error else { return "\(error)" }
            return message
        }
    }

    @Test func deepParenthesesAreASyntaxErrorNotACrash() {
        let deep = String(repeating: "(", count: 10_000) + "favorite == YES" + String(repeating: ")", count: 10_000)
        #expect(syntaxMessage(deep) == "parentheses and braces nest more than 64 levels deep")
        let operand = String(repeating: "(", count: 10_000) + "mediaSubtypes & 4" + String(repeating: ")", count: 10_000) + " != 0"
        #expect(syntaxMessage(operand) == "parentheses and braces nest more than 64 levels deep")
        // Found by libFuzzer: aggregates nest too (`{{{…`), through the same recursion.
        let braces = "mediaType IN " + String(repeating: "{", count: 10_000)
        #expect(syntaxMessage(braces) == "parentheses and braces nest more than 64 levels deep")
        // Within the limit both readings of a parenthesis still parse, and quickly (no 2^depth backtracking).
        let started = Date()
        let nested = String(repeating: "(", count: 60) + "mediaSubtypes & 4" + String(repeating: ")", count: 60) + " != 0"
        #expect(syntaxMessage(nested) == nil)
        #expect(Date().timeIntervalSince(started) < 5)
    }

    @Test func anyNumberOfNotsCostsNoStackAndCancelsInPairs() throws {
        let even = String(repeating: "! ", count: 100_000) + "favorite == YES"
        #expect(try sql(even).sql == "a.is_favorite = ?")
        let odd = String(repeating: "NOT ", count: 20_001) + "favorite == YES"
        #expect(try sql(odd).sql == "NOT (a.is_favorite = ?)")
        let parenthesised = "NOT (NOT (NOT (NOT (favorite == YES))))"
        #expect(try sql(parenthesised).sql == "a.is_favorite = ?")
    }

    @Test func chainsOfOneConnectiveBecomeOneFlatList() throws {
        // Nested AND in AND (and OR in OR, and NOT of OR in AND) flatten: no parentheses pile up in the SQL.
        var format = "mediaType == 1"
        for _ in 0..<60 { format = "(favorite == YES AND \(format))" }
        let flat = try sql(format)
        #expect(!flat.sql.dropFirst().contains("("))
        #expect(flat.arguments.count == 61)
        #expect(
            try sql("favorite == YES AND NOT (hidden == YES OR mediaType == 2)").sql
                == "(a.is_favorite = ? AND NOT (a.is_hidden = ?) AND NOT (a.media_type = ?))")
    }

    @Test func alternatingDepthIsLimitedBeforeSQLiteRefusesIt() throws {
        func alternating(_ levels: Int) -> String {
            var format = "mediaType == 1"
            for level in 0..<levels { format = "(favorite == YES \(level % 2 == 0 ? "AND" : "OR") \(format))" }
            return format
        }
        #expect(syntaxMessage(alternating(17)) == "AND and OR alternate more than 16 levels deep; simplify the predicate")
        // The deepest accepted predicate runs on SQLite (whose parser stack is fixed) inside the planner's query.
        let library = try TestLibrary()
        defer { library.remove() }
        _ = try library.addImages(2) { index, request in request.isFavorite = index == 0 }
        let engine = try LibraryEngine.open(at: library.url)
        var options = FetchOptionsSpec()
        options.predicate = try PredicateParser.parse(alternating(16), arguments: [])
        let ids = try engine.fetchAssetIDs(scope: .library, options: options, access: engine.accessContext(clientID: nil))
        #expect(ids.count == 1)
    }

    @Test func comparisonsOnNilKeysFollowNSPredicate() throws {
        #expect(try sql("burstIdentifier != %@", [.string("x")]).sql == "(a.burst_identifier != ? OR a.burst_identifier IS NULL)")
        #expect(try sql("NOT (burstIdentifier == %@)", [.string("x")]).sql == "(NOT (a.burst_identifier = ?) OR a.burst_identifier IS NULL)")
        #expect(try sql("NOT (burstIdentifier != %@)", [.string("x")]).sql == "a.burst_identifier = ?")
        #expect(try sql("burstIdentifier == nil").sql == "a.burst_identifier IS NULL")
        #expect(try sql("NOT (burstIdentifier == nil)").sql == "NOT (a.burst_identifier IS NULL)")
        #expect(
            try sql("NOT (creationDate < %@)", [.date(Date(timeIntervalSince1970: 5))]).sql
                == "(NOT (a.creation_date < ?) OR a.creation_date IS NULL)")
        // Keys that are never nil keep the plain form.
        #expect(try sql("favorite != YES").sql == "a.is_favorite != ?")
        #expect(try sql("NOT (favorite == YES)").sql == "NOT (a.is_favorite = ?)")

        let library = try TestLibrary()
        defer { library.remove() }
        let ids = try library.addImages(3)
        let engine = try LibraryEngine.open(at: library.url)
        try engine.metadata.write { db in
            try db.execute(sql: "UPDATE asset SET burst_identifier = 'x' WHERE local_id = ?", arguments: [ids[0]])
            try db.execute(sql: "UPDATE asset SET burst_identifier = 'y' WHERE local_id = ?", arguments: [ids[1]])
        }
        func count(_ format: String) throws -> Int {
            var options = FetchOptionsSpec()
            options.predicate = try PredicateParser.parse(format, arguments: [])
            options.includeAllBurstAssets = true
            return try engine.fetchAssetIDs(scope: .library, options: options, access: engine.accessContext(clientID: nil)).count
        }
        #expect(try count("burstIdentifier != 'x'") == 2)
        #expect(try count("NOT (burstIdentifier == 'x')") == 2)
        #expect(try count("NOT (burstIdentifier != 'x')") == 1)
        #expect(try count("burstIdentifier == 'x' OR NOT (burstIdentifier IN {'y'})") == 2)
        #expect(try count("NOT (burstIdentifier BEGINSWITH 'x')") == 2)
    }
}

/// A fetch the database cannot answer is empty, as Apple's are, but says why.
@Suite("Failed fetches")
struct FailedFetchTests {
    @Test func aDatabaseErrorIsReportedNotPassedOffAsNoPhotos() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        _ = try library.addImages(2)
        #expect(PHAsset.fetchAssets(with: library.options()).fetchError == nil)
        // A damaged schema: the default fetch filters on this column.
        let engine = try LibraryEngine.open(at: library.url)
        try engine.metadata.write { try $0.execute(sql: "ALTER TABLE asset RENAME COLUMN burst_hidden TO burst_hidden_gone") }
        let reopened = try PHPhotoLibrary(url: library.url)
        let options = PHFetchOptions()
        options.photoLibrary = reopened
        let assets = PHAsset.fetchAssets(with: options)
        #expect(assets.count == 0)
        let error = try #require(assets.fetchError)
        #expect(error.code == .internalError)
        #expect(error.localizedDescription.contains("burst_hidden"))
    }

    @Test func aLibraryThatCannotBeOpenedSaysSo() throws {
        let dir = try TestMedia.temporaryDirectory("unopenable")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("NotALibrary.photoslibrary")
        try Data("x".utf8).write(to: file)
        let library = PHPhotoLibrary(openingAt: file, clientIdentifier: nil)
        let options = PHFetchOptions()
        options.photoLibrary = library
        let assets = PHAsset.fetchAssets(with: options)
        #expect(assets.count == 0)
        #expect(assets.fetchError?.code == .invalidResource)
    }
}
