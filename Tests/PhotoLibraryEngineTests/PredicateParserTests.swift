import Foundation
import PhotoLibraryEngine
import Testing

@Suite("NSPredicate format parsing")
struct PredicateParserTests {
    func parse(_ format: String, _ args: [PredicateValue] = []) throws -> FetchPredicate {
        try PredicateParser.parse(format, arguments: args)
    }

    @Test func comparisonsAndConnectives() throws {
        #expect(
            try parse("mediaType == %d AND favorite == NO", [.int(1)])
                == .and([
                    .comparison(.key("mediaType"), .equal, .value(.int(1)), []),
                    .comparison(.key("favorite"), .equal, .value(.bool(false)), []),
                ]))
        #expect(try parse("pixelWidth >= 100 || pixelHeight =< 20").description == "(pixelWidth >= 100 OR pixelHeight <= 20)")
        #expect(try parse("NOT hidden = YES").description == "NOT hidden == YES")
        #expect(try parse("!(duration > 1.5)").description == "NOT duration > 1.5")
        #expect(try parse("a <> 1 && b => 2").description == "(a != 1 AND b >= 2)")
        #expect(try parse("TRUEPREDICATE") == .constant(true))
        #expect(try parse("falsepredicate") == .constant(false))
    }

    /// Dates without arguments, as Foundation writes them: seconds since 2001-01-01.
    @Test func castToNSDate() throws {
        #expect(
            try parse(#"creationDate >= CAST(700000000, "NSDate")"#)
                == .comparison(.key("creationDate"), .greaterOrEqual, .value(.date(Date(timeIntervalSinceReferenceDate: 700_000_000))), []))
        #expect(
            try parse(#"creationDate < cast(1.5, "NSDate")"#)
                == .comparison(.key("creationDate"), .less, .value(.date(Date(timeIntervalSinceReferenceDate: 1.5))), []))
        for bad in [
            #"creationDate < CAST("x", "NSDate")"#, #"creationDate < CAST(1, "NSString")"#, "creationDate < CAST(1", "creationDate < CAST(1 2)",
        ] {
            #expect(throws: FetchPredicateError.self, "\(bad)") { try parse(bad) }
        }
    }

    @Test func bitwiseAndInParentheses() throws {
        #expect(
            try parse("(mediaSubtypes & %d) != 0", [.int(8)])
                == .comparison(.bitwiseAnd(.key("mediaSubtypes"), .value(.int(8))), .notEqual, .value(.int(0)), []))
        #expect(
            try parse("NOT ((mediaSubtypes & 4) != 0) AND (mediaType = 1)").description
                == "(NOT (mediaSubtypes & 4) != 0 AND mediaType == 1)")
    }

    @Test func aggregatesInAndBetween() throws {
        #expect(
            try parse("mediaType IN {1, 2}") == .comparison(.key("mediaType"), .in, .value(.array([.int(1), .int(2)])), []))
        #expect(
            try parse("localIdentifier IN %@", [.array([.string("A"), .string("B")])])
                == .comparison(.key("localIdentifier"), .in, .value(.array([.string("A"), .string("B")])), []))
        #expect(try parse("duration BETWEEN {1, 5}").description == "duration BETWEEN {1, 5}")
    }

    @Test func stringOperatorsWithOptions() throws {
        #expect(
            try parse("title BEGINSWITH[cd] %@", [.string("Ré")])
                == .comparison(.key("title"), .beginsWith, .value(.string("Ré")), [.caseInsensitive, .diacriticInsensitive]))
        #expect(try parse("title CONTAINS[c] 'trip'").description == "title CONTAINS[c] \"trip\"")
        #expect(try parse("title LIKE \"IMG_*\"").description == "title LIKE \"IMG_*\"")
        #expect(try parse("title ENDSWITH 'x'").description == "title ENDSWITH \"x\"")
    }

    @Test func keyArgumentsAndNumbers() throws {
        #expect(
            try parse("%K == %@", [.string("creationDate"), .date(Date(timeIntervalSince1970: 0))])
                == .comparison(.key("creationDate"), .equal, .value(.date(Date(timeIntervalSince1970: 0))), []))
        #expect(try parse("pixelWidth > %f", [.int(3)]) == .comparison(.key("pixelWidth"), .greater, .value(.double(3)), []))
        #expect(try parse("pixelWidth > -5").description == "pixelWidth > -5")
        #expect(try parse("pixelWidth == 0x10").description == "pixelWidth == 16")
        #expect(try parse("burstIdentifier == nil").description == "burstIdentifier == nil")
        #expect(try parse("SELF == %@", [.object(localIdentifier: "X/L0/001")]).description == "SELF == <X/L0/001>")
    }

    @Test(arguments: [
        ("mediaType ==", "expected a key, a value or an argument"),
        ("mediaType = 1 AND", "expected a key, a value or an argument"),
        ("(mediaType = 1", "expected"),
        ("mediaType ? 1", "unexpected character '?'"),
        ("title == 'open", "unterminated string"),
        ("mediaType = 1 1", "after the end of the predicate"),
        ("mediaType %", "incomplete format specifier"),
        ("mediaType = %s", "unsupported format specifier %s"),
    ])
    func malformedFormatsAreSyntaxErrors(format: String, fragment: String) {
        do throws(FetchPredicateError) {
            _ = try PredicateParser.parse(format, arguments: [])
            Issue.record("\(format) parsed")
        } catch {
            guard case .syntax(let f, _, let message) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(f == format)
            #expect(message.contains(fragment), "\(message)")
            #expect(error.description.hasPrefix("Unable to parse the format string \"\(format)\""))
        }
    }

    @Test func missingArgumentsAndWrongTypes() {
        #expect(throws: FetchPredicateError.badArgument(format: "mediaType == %d", message: "no argument for the specifier at offset 13")) {
            try parse("mediaType == %d")
        }
        #expect(throws: FetchPredicateError.self) { try parse("%K == 1", [.int(3)]) }
        #expect(throws: FetchPredicateError.self) { try parse("mediaType == %d", [.string("x")]) }
    }

    @Test func unsupportedOperators() {
        #expect(
            throws: FetchPredicateError.unsupportedOperator(
                operator: "MATCHES", key: "title", message: "regular expressions are not supported in fetches")
        ) {
            try parse("title MATCHES '.*'")
        }
        #expect(throws: FetchPredicateError.self) { try parse("ANY title == 'x'") }
    }
}
