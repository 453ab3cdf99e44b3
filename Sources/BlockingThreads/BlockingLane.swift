import Synchronization

/// Blocking work of one kind, at most ``width`` jobs of it at once on ``BlockingThreads`` — the rest wait in order.
/// For work that waits on something shared and slow (downloads from one server): a bound of its own, without
/// holding threads that other work needs.
package final class BlockingLane: Sendable {
    /// How many of its jobs run at once.
    package let width: Int

    private struct State {
        var running = 0
        var waiting: [@Sendable () -> Void] = []
        var head = 0
    }
    private let state = Mutex(State())

    package init(width: Int) { self.width = max(1, width) }

    /// Runs `job` now if fewer than ``width`` jobs of the lane run, else once the jobs before it have started.
    package func run(_ job: @escaping @Sendable () -> Void) {
        let starts = state.withLock { state -> Bool in
            guard state.running < width else {
                state.waiting.append(job)
                return false
            }
            state.running += 1
            return true
        }
        if starts { BlockingThreads.run { self.drain(from: job) } }
    }

    /// Runs `first`, then the jobs waiting, until none is.
    private func drain(from first: @escaping @Sendable () -> Void) {
        var job = first
        while true {
            job()
            let next = state.withLock { state -> (@Sendable () -> Void)? in
                guard state.head < state.waiting.count else {
                    state.running -= 1
                    state.waiting.removeAll(keepingCapacity: state.waiting.capacity <= 64)
                    state.head = 0
                    return nil
                }
                defer { state.head += 1 }
                return state.waiting[state.head]
            }
            guard let next else { return }
            job = next
        }
    }
}
