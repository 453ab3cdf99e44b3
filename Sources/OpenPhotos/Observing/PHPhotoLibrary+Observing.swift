import Foundation
import Logging
import PhotoLibraryEngine
import PhotoMedia

/// The observers of one ``PHPhotoLibrary`` handle (held weakly) and its subscription to the library's changes.
final class ObserverRegistry: @unchecked Sendable {
    private struct WeakObserver {
        weak var observer: (any PHPhotoLibraryChangeObserver)?
    }

    private struct WeakPersistentObserver {
        weak var observer: (any PHPhotoLibraryPersistentChangesObserver)?
    }

    private let lock = NSLock()
    private var observers: [WeakObserver] = []
    private var persistentObservers: [WeakPersistentObserver] = []
    private var streams: [UUID: AsyncStream<PHChange>.Continuation] = [:]
    private var subscription: Int?
    /// A served library's change feed, while someone observes.
    private var feed: RemoteChangeFeed?

    func add(_ observer: any PHPhotoLibraryChangeObserver, library: PHPhotoLibrary) {
        lock.withLock {
            observers.removeAll { $0.observer == nil || $0.observer === observer }
            observers.append(WeakObserver(observer: observer))
        }
        subscribeIfNeeded(library)
    }

    func remove(_ observer: any PHPhotoLibraryChangeObserver, library: PHPhotoLibrary) {
        lock.withLock { observers.removeAll { $0.observer == nil || $0.observer === observer } }
        unsubscribeIfUnused(library)
    }

    func add(_ observer: any PHPhotoLibraryPersistentChangesObserver, library: PHPhotoLibrary) {
        lock.withLock {
            persistentObservers.removeAll { $0.observer == nil || $0.observer === observer }
            persistentObservers.append(WeakPersistentObserver(observer: observer))
        }
        subscribeIfNeeded(library)
    }

    func remove(_ observer: any PHPhotoLibraryPersistentChangesObserver, library: PHPhotoLibrary) {
        lock.withLock { persistentObservers.removeAll { $0.observer == nil || $0.observer === observer } }
        unsubscribeIfUnused(library)
    }

    func addStream(_ continuation: AsyncStream<PHChange>.Continuation, library: PHPhotoLibrary) -> UUID {
        let id = UUID()
        lock.withLock { streams[id] = continuation }
        subscribeIfNeeded(library)
        return id
    }

    func removeStream(_ id: UUID, library: PHPhotoLibrary) {
        lock.withLock { streams[id] = nil }
        unsubscribeIfUnused(library)
    }

    private func subscribeIfNeeded(_ library: PHPhotoLibrary) {
        if let remote = library.remote {
            guard lock.withLock({ feed == nil }), library.availabilityMonitor.reason == nil else { return }
            // From the server's newest transaction: observers hear of what happens after they register. (Asked
            // without the lock held: a slow server must not hold up the registry; one that cannot be reached now is
            // asked again by the feed, which starts from its answer.)
            let token = try? remote.currentChangeToken()
            if token == nil {
                PhotosLog.library.warning("the served library's change feed waits for the server (its change token did not come)")
            }
            let started = RemoteChangeFeed(
                library: remote, after: token,
                deliver: { [weak self, weak library] event in
                    guard let self, let library else { return }
                    self.deliver(RemoteChange(event: event, library: library, remote: remote), library: library)
                },
                ended: { [weak self, weak library] error in
                    guard let self, let library else { return }
                    let ended = self.lock.withLock {
                        defer { self.feed = nil }
                        return self.feed
                    }
                    ended?.stop()
                    library.availabilityMonitor.markUnavailable(PHPhotosError(error), library: library)
                })
            // Two registrations at once: the first feed kept stays.
            let kept = lock.withLock { () -> Bool in
                guard feed == nil else { return false }
                feed = started
                return true
            }
            if !kept { started.stop() }
            return
        }
        guard let engine = try? library.state.get() else { return }
        lock.lock()
        defer { lock.unlock() }
        guard subscription == nil else { return }
        subscription = engine.changeCenter.subscribe { [weak self, weak library] delivery in
            guard let self, let library else { return }
            self.deliver(delivery, library: library, engine: engine)
        }
    }

    private func unsubscribeIfUnused(_ library: PHPhotoLibrary) {
        if library.remote != nil {
            let stopped: RemoteChangeFeed? = lock.withLock {
                guard observers.allSatisfy({ $0.observer == nil }), persistentObservers.allSatisfy({ $0.observer == nil }), streams.isEmpty
                else { return nil }
                defer { feed = nil }
                return feed
            }
            stopped?.stop()
            return
        }
        guard let engine = try? library.state.get() else { return }
        let token: Int? = lock.withLock {
            guard observers.allSatisfy({ $0.observer == nil }), persistentObservers.allSatisfy({ $0.observer == nil }), streams.isEmpty,
                let token = subscription
            else { return nil }
            subscription = nil
            return token
        }
        if let token { engine.changeCenter.unsubscribe(token) }
    }

    /// Runs on the change center's serial queue: one PHChange per transaction, to every live observer in turn.
    private func deliver(_ delivery: ChangeDelivery, library: PHPhotoLibrary, engine: LibraryEngine) {
        deliver(PHChange(delivery: delivery, library: library, engine: engine), library: library)
    }

    /// One PHChange (made only when someone wants it) to every live observer in turn.
    private func deliver(_ makeChange: @autoclosure () -> PHChange, library: PHPhotoLibrary) {
        let (live, persistent, continuations) = lock.withLock {
            () -> ([any PHPhotoLibraryChangeObserver], [any PHPhotoLibraryPersistentChangesObserver], [AsyncStream<PHChange>.Continuation]) in
            observers.removeAll { $0.observer == nil }
            persistentObservers.removeAll { $0.observer == nil }
            return (observers.compactMap(\.observer), persistentObservers.compactMap(\.observer), Array(streams.values))
        }
        if live.isEmpty, persistent.isEmpty, continuations.isEmpty {
            unsubscribeIfUnused(library)
            return
        }
        if !live.isEmpty || !continuations.isEmpty {
            let change = makeChange()
            for observer in live { observer.photoLibraryDidChange(change) }
            for continuation in continuations { continuation.yield(change) }
        }
        // After the transaction is in the history (it is: the delivery follows the commit), so a fetch from here
        // finds it.
        for observer in persistent { observer.photoLibraryPersistentChangesDidUpdate(library) }
    }
}

extension PHPhotoLibrary {
    /// Registers an object to be told about every change to the library (held weakly).
    ///
    /// `photoLibraryDidChange(_:)` is called once per committed transaction, made by this process or any other
    /// process using the same library folder, in commit order, on a serial queue that is not the committing
    /// caller's. Changes committed by other processes arrive within the polling interval (50 ms).
    public func register(_ observer: any PHPhotoLibraryChangeObserver) {
        observerRegistry.add(observer, library: self)
    }

    /// Stops telling an observer about changes.
    public func unregisterChangeObserver(_ observer: any PHPhotoLibraryChangeObserver) {
        observerRegistry.remove(observer, library: self)
    }

    /// Registers an object to be told when the library's persistent change history grows (iOS 27), held weakly.
    ///
    /// The observer is called after each committed transaction — this process's or another's, in commit order — on
    /// a serial queue of the library's; it then reads the changes with ``fetchPersistentChanges(since:)``. As on
    /// Apple platforms it needs full read and write access: a client without it (limited, add-only, denied) is not
    /// registered.
    public func register(_ observer: any PHPhotoLibraryPersistentChangesObserver) {
        let access = self.access
        guard access.canRead, !access.isLimited, access.canModify else { return }
        observerRegistry.add(observer, library: self)
    }

    /// Stops telling an observer that the persistent change history grew.
    public func unregisterPersistentChangesObserver(_ observer: any PHPhotoLibraryPersistentChangesObserver) {
        observerRegistry.remove(observer, library: self)
    }

    /// OpenPhotoKit: the library's changes as an `AsyncSequence`, one ``PHChange`` per committed transaction from
    /// the moment you start iterating, in commit order. Iteration ends when the task is cancelled.
    ///
    /// ```swift
    /// for await change in library.changes {
    ///     if let details = change.changeDetails(for: assets) { assets = details.fetchResultAfterChanges }
    /// }
    /// ```
    public var changes: AsyncStream<PHChange> {
        AsyncStream(bufferingPolicy: .unbounded) { continuation in
            let id = observerRegistry.addStream(continuation, library: self)
            continuation.onTermination = { [weak self] _ in
                guard let self else { return }
                self.observerRegistry.removeStream(id, library: self)
            }
        }
    }
}
