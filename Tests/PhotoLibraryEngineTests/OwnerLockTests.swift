import Foundation
import PhotoLibraryEngine
import PhotosTesting
import Testing

/// Writer slots of a library on a server, whose files folder several hosts share: their owners' liveness is a
/// session advisory lock, not a `flock` (which does not reach across hosts). Recovery never touches a live owner's
/// slot, sweeps one whose owner's connection ended, and the owner that lived on is refused at its next commit from
/// the swept slot — then goes on in a new one.
@Suite("Owner locks on a server")
struct OwnerLockTests {
    @Test(.enabled(if: StoreUnderTest.postgresURL != nil))
    func aSlotIsSweptOnlyOnceItsOwnersConnectionEndedAndItsOwnerIsFenced() throws {
        let provider = PostgreSQLLibraryProvider(base: try #require(StoreUnderTest.postgresURL))
        let library = try TestLibrary(name: "OwnerLocks", provider: provider)
        defer { library.remove() }
        // "Host A": an engine with a transaction under way — a file staged in its slot, not yet committed.
        let a = try LibraryEngine.open(at: library.url)
        let staged = try a.stager.stage(data: Data(repeating: 7, count: 4096))
        let slot = staged.url.deletingLastPathComponent()
        #expect(FileManager.default.fileExists(atPath: staged.url.path))

        // "Host B" opens the library (recovery runs at every open for writing) and recovers again: A is alive.
        let b = try LibraryEngine.open(at: library.url)
        #expect(try b.recoverInterruptedTransactions().isEmpty)
        #expect(FileManager.default.fileExists(atPath: staged.url.path), "a live owner's slot is left alone")
        try a.metadata.write { db in try a.slots.checkHeld(on: db) }

        // A's connection to the server ends (its host cut off; the server's keepalives end the session): the session
        // that holds the slot's lock, and no other (other tests' sessions run beside this one).
        let schema = try #require(URLComponents(url: library.url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "library" }?.value)
        let key = UInt64(bitPattern: PostgreSQLOwnerLocks.key(schema: schema, area: "writers", name: slot.lastPathComponent))
        let ended = try b.metadata.write { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted
                    AND classid::bigint = ? AND objid::bigint = ? AND objsubid = 1) t
                    """, arguments: [Int64(key >> 32), Int64(key & 0xffff_ffff)]) ?? 0
        }
        #expect(ended == 1)
        // Termination is a signal: the lock goes when the backend has exited.
        let gone = Date().addingTimeInterval(30)
        while try b.metadata.read({ db in
            try Int.fetchOne(
                db, sql: "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid::bigint = ? AND objid::bigint = ? AND objsubid = 1",
                arguments: [Int64(key >> 32), Int64(key & 0xffff_ffff)]) ?? 0
        }) > 0, Date() < gone {
            Thread.sleep(forTimeInterval: 0.01)
        }
        try b.recoverInterruptedTransactions()
        #expect(!FileManager.default.fileExists(atPath: slot.path), "the slot of an owner whose connection ended is swept")

        // A lived on: a commit from its old slot is refused — whether or not it has noticed yet …
        #expect(throws: LibraryError.self) { try a.metadata.write { db in try a.slots.checkHeld(on: db) } }
        // … and once it has, its next transaction stages in a new slot and commits.
        let deadline = Date().addingTimeInterval(10)
        var next = try a.slots.folder()
        while next == slot, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            next = try a.slots.folder()
        }
        #expect(next != slot)
        try a.metadata.write { db in try a.slots.checkHeld(on: db) }
        #expect(try b.recoverInterruptedTransactions().isEmpty)
        #expect(FileManager.default.fileExists(atPath: next.path), "and its new slot is live")
    }
}
