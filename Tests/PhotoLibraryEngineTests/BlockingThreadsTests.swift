import BlockingThreads
import Foundation
import Testing

/// Blocking work never waits in line behind another's wait: each job starts on a thread of its own or an idle one.
@Suite("Threads for blocking work")
struct BlockingThreadsTests {
    /// A hundred jobs that each wait until the last one has run (which Dispatch's global queues on Linux would start only
    /// after adding a thread a second: a hundred seconds, past the deadline) all finish, and every job ran exactly once.
    @Test func jobsThatWaitDoNotHoldBackTheJobTheyWaitFor() throws {
        let released = NSCondition()
        nonisolated(unsafe) var open = false
        nonisolated(unsafe) var finished: [Int] = []
        let waiters = 100
        for index in 0..<waiters {
            BlockingThreads.run {
                released.lock()
                while !open { released.wait() }
                finished.append(index)
                released.broadcast()
                released.unlock()
            }
        }
        BlockingThreads.run {
            released.lock()
            open = true
            finished.append(waiters)
            released.broadcast()
            released.unlock()
        }
        released.lock()
        defer { released.unlock() }
        // A deadlock fails (after a minute) instead of hanging the run; nothing is timed otherwise.
        let deadline = Date().addingTimeInterval(60)
        while finished.count < waiters + 1, released.wait(until: deadline) {}
        #expect(finished.sorted() == Array(0...waiters), "\(finished.count) of \(waiters + 1) jobs ran")
        // The releasing job came first: the others waited for it, not it for them.
        #expect(finished.first == waiters)
    }

    /// `perform` hands back what the work returned, or what it threw.
    @Test func performReturnsTheResultOrTheError() async throws {
        #expect(try await BlockingThreads.perform { 6 * 7 } == 42)
        struct Refused: Error, Equatable {}
        await #expect(throws: Refused.self) { try await BlockingThreads.perform { () throws -> Int in throw Refused() } }
        // Many at once, each awaited: every answer comes back to its own caller.
        let answers = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for index in 0..<100 { group.addTask { (index, try await BlockingThreads.perform { index * index }) } }
            return try await group.reduce(into: [Int: Int]()) { $0[$1.0] = $1.1 }
        }
        #expect(answers == Dictionary(uniqueKeysWithValues: (0..<100).map { ($0, $0 * $0) }))
        #expect(BlockingThreads.threads.alive <= BlockingThreads.limit)
    }

    /// A lane runs at most its width of jobs at once, then the rest (taken in the order they came), and all of them.
    @Test func aLaneRunsItsWidthAtOnceAndTheRestInOrder() throws {
        /// What the jobs did, under `condition`.
        final class Record: @unchecked Sendable {
            let condition = NSCondition()
            var open = false
            var running = 0
            var most = 0
            var started: [Int] = []
            var finished = 0
        }
        let lane = BlockingLane(width: 3)
        let record = Record()
        for index in 0..<10 {
            lane.run {
                record.condition.lock()
                record.started.append(index)
                record.running += 1
                record.most = max(record.most, record.running)
                record.condition.broadcast()
                while !record.open { record.condition.wait() }
                record.running -= 1
                record.finished += 1
                record.condition.broadcast()
                record.condition.unlock()
            }
        }
        record.condition.lock()
        defer { record.condition.unlock() }
        let deadline = Date().addingTimeInterval(60)
        while record.started.count < 3, record.condition.wait(until: deadline) {}
        // The first three run and wait; the other seven wait for a place.
        #expect(record.started == [0, 1, 2])
        record.open = true
        record.condition.broadcast()
        while record.finished < 10, record.condition.wait(until: deadline) {}
        #expect(record.finished == 10)
        #expect(record.most == 3)
        #expect(record.started.suffix(7).sorted() == [3, 4, 5, 6, 7, 8, 9])
    }
}
