import Foundation
import Testing

import PhotoLibraryEngine

/// A predicate written back as a format string (what a served library's client sends) parses to the same predicate.
@Suite("Predicate format")
struct PredicateFormatTests {
    static let cases: [(String, [PredicateValue])] = [
        ("mediaType == 1 AND favorite == NO", []),
        (
            "creationDate > %@ AND creationDate <= %@",
            [.date(Date(timeIntervalSince1970: 1_700_000_000.123456)), .date(Date(timeIntervalSinceReferenceDate: -3.5))]
        ),
        ("localIdentifier IN %@", [.array([.string("a\"b"), .string("c\\d"), .string("new\nline\ttab"), .string("ünïcødé 🏔")])]),
        ("NOT (favorite == YES) OR (mediaSubtypes & %d) != 0", [.int(8)]),
        ("duration BETWEEN {1.5, 1e-05}", []),
        ("title CONTAINS[cd] %@ OR title BEGINSWITH[c] 'x' OR title LIKE[d] '*a?'", [.string("Trip")]),
        ("pixelWidth >= -3 AND burstIdentifier == nil", []),
        ("TRUEPREDICATE", []),
        ("FALSEPREDICATE OR (rating > 2 AND (isHidden == NO OR favorite == YES))", []),
    ]

    @Test(arguments: cases.indices) func formatParsesBackToTheSamePredicate(_ index: Int) throws {
        let (text, arguments) = Self.cases[index]
        let predicate = try PredicateParser.parse(text, arguments: arguments)
        let written = predicate.format
        #expect(try PredicateParser.parse(written, arguments: []) == predicate, "\(text) → \(written)")
    }

    /// An object argument (`SELF == %@`) is sent as its local identifier.
    @Test func anObjectIsItsLocalIdentifier() throws {
        let predicate = FetchPredicate.comparison(.key("SELF"), .equal, .value(.object(localIdentifier: "ABC/L0/001")), [])
        #expect(predicate.format == "SELF == \"ABC/L0/001\"")
        #expect(try PredicateParser.parse(predicate.format, arguments: []) == .comparison(.key("SELF"), .equal, .value(.string("ABC/L0/001")), []))
    }
}
