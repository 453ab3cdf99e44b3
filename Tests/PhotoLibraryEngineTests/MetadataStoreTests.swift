import Foundation
import PhotoLibraryEngine
import PhotosTesting
import Testing

/// The metadata store seam as the engine uses it, checked against the database itself: values keep their type and
/// bytes, statements say how many rows they changed, writes return their new ids, a transaction that throws leaves
/// nothing, a snapshot keeps its moment, and the dialect's order is the database's `ORDER BY`.
@Suite("Metadata store")
struct MetadataStoreTests {
    func emptyLibrary(_ name: String) throws -> (TestLibrary, LibraryEngine) {
        let library = try TestLibrary(name: name)
        return (library, try LibraryEngine.open(at: library.url))
    }

    @Test func valuesComeBackWithTheirTypesAndBytes() throws {
        let (library, engine) = try emptyLibrary("StoreValues")
        defer { library.remove() }
        let values: [SQLValue] = [
            .null, .integer(Int64.min), .integer(Int64.max), .real(-0.1), .real(1e300), .text(""), .text("a b é 🙂 \"'"),
            .blob(Data()), .blob(Data([0, 255, 0, 1])),
        ]
        let read = try engine.metadata.read { db in
            try values.map { value in try #require(try db.fetchOne(sql: "SELECT ?", arguments: SQLArguments([value]))).values }
        }
        #expect(read == values.map { [$0] })
    }

    @Test func writesCountTheirRowsAndReturnTheirIDs() throws {
        let (library, engine) = try emptyLibrary("StoreWrites")
        defer { library.remove() }
        let (ids, changed, prepared) = try engine.metadata.write { db in
            try db.execute(sql: "CREATE TEMP TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE)")
            let ids = try ["a", "b", "c"].map { name in
                try Int64.fetchOne(db, sql: "INSERT INTO t (name) VALUES (?) RETURNING id", arguments: [name])
            }
            let changed = try db.execute(sql: "UPDATE t SET name = name || 'x' WHERE id > ?", arguments: [1])
            let insert = try db.prepare(sql: "INSERT INTO t (name) VALUES (?) ON CONFLICT DO NOTHING")
            let prepared = [try insert.execute(arguments: ["d"]), try insert.execute(arguments: ["d"])]
            return (ids, changed, prepared)
        }
        #expect(ids == [1, 2, 3])
        #expect(changed == 2)
        #expect(prepared == [1, 0], "the second insert conflicts and inserts nothing")
    }

    @Test func aTransactionThatThrowsLeavesNothing() throws {
        let (library, engine) = try emptyLibrary("StoreRollback")
        defer { library.remove() }
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try engine.metadata.write { db in
                try db.execute(sql: "INSERT INTO library_info (key, value) VALUES ('probe', 'x')")
                throw Refused()
            }
        }
        #expect(engine.setting("probe") == nil)
        // `finished` says whether it committed.
        var outcomes: [Bool] = []
        try? engine.metadata.write({ _ in throw Refused() }, finished: { committed, _ in outcomes.append(committed) })
        try engine.metadata.write(
            { db in try db.execute(sql: "INSERT INTO library_info (key, value) VALUES ('probe', 'y')") },
            finished: { committed, _ in outcomes.append(committed) })
        #expect(outcomes == [false, true])
        #expect(engine.setting("probe") == "y")
    }

    @Test func aSnapshotKeepsItsMoment() throws {
        let (library, engine) = try emptyLibrary("StoreSnapshot")
        defer { library.remove() }
        try engine.setSetting("probe", "before")
        let snapshot = try #require(engine.metadata.snapshot(), "a WAL library can pin a state")
        try engine.setSetting("probe", "after")
        let pinned = try snapshot.read { db in try String.fetchOne(db, sql: "SELECT value FROM library_info WHERE key = 'probe'") }
        #expect(pinned == "before")
        #expect(engine.setting("probe") == "after")
    }

    @Test func readingStopsWhenAskedAndTheStatementCanRunAgain() throws {
        let (library, engine) = try emptyLibrary("StoreStop")
        defer { library.remove() }
        let sql = "SELECT value FROM json_each('[1,2,3,4]')"
        let (firstTwo, all) = try engine.metadata.read { db in
            var seen: [Int64] = []
            try db.forEachRow(sql: sql, arguments: [], cached: true) { row in
                seen.append(row.int64(at: 0))
                return seen.count < 2
            }
            var again: [Int64] = []
            var batches: [Int] = []
            try db.forEachInt64(sql: sql, arguments: [], cached: true, firstBatch: 3) { batch in
                again += batch
                batches.append(batch.count)
            }
            #expect(batches == [3, 1], "the first batch as asked, then the rest")
            return (seen, again)
        }
        #expect(firstTwo == [1, 2])
        #expect(all == [1, 2, 3, 4])
    }

    /// The incremental change details place rows by the dialect's order: it must be the database's, for every mix
    /// of types a sort key column can hold.
    @Test func theDialectOrdersAsTheDatabaseDoes() throws {
        let (library, engine) = try emptyLibrary("StoreOrder")
        defer { library.remove() }
        let values: [SQLValue] = [
            .text("b"), .null, .integer(3), .real(2.5), .text("B"), .text("é"), .integer(-1), .real(-1.5), .text(""),
            .blob(Data([1])), .integer(2), .text("a"), .blob(Data()), .real(3), .text("ab"),
        ]
        let ordered = try engine.metadata.write { db -> [SQLValue] in
            try db.execute(sql: "CREATE TEMP TABLE k (v)")
            for value in values { try db.execute(sql: "INSERT INTO k (v) VALUES (?)", arguments: SQLArguments([value])) }
            return try db.fetchAll(sql: "SELECT v FROM k ORDER BY v ASC").map { $0.values[0] }
        }
        let dialect = engine.metadata.dialect
        for (a, b) in zip(ordered, ordered.dropFirst()) {
            #expect(dialect.compare(a, b) <= 0, "\(a) before \(b)")
            #expect(dialect.compare(b, a) >= 0, "\(b) after \(a)")
        }
        #expect(dialect.compare(.integer(3), .real(3)) == 0)
        #expect(Set(ordered) == Set(values))
    }

    @Test func listsOfAnyLengthAreOneParameter() throws {
        let (library, engine) = try emptyLibrary("StoreLists")
        defer { library.remove() }
        let texts: [SQLValue] = (0..<1000).map { .text("id-\($0) \"quoted\" \\ é") }
        let integers: [SQLValue] = (0..<1000).map { .integer(Int64($0) * 7) }
        let (orderedBack, members) = try engine.metadata.read { db in
            let list = db.dialect.list(texts, as: "t")
            #expect(list.arguments.count == 1)
            let orderedBack = try String.fetchAll(db, sql: "SELECT t.value FROM \(list.sql) ORDER BY t.key", arguments: list.statementArguments)
            let isIn = db.dialect.isIn("x.value", integers)
            let members = try Int.fetchOne(
                db, sql: "SELECT count(*) FROM json_each('[0, 7, 8, 6993, 6994]') x WHERE \(isIn.sql)", arguments: isIn.statementArguments)
            return (orderedBack, members)
        }
        #expect(orderedBack == texts.map { String.fromSQLValue($0)! })
        #expect(members == 3)
    }
}
