import Foundation
import PhotoLibraryEngine
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An object told when a photo library becomes unavailable (its volume went offline, its folder was moved or
/// removed).
public protocol PHPhotoLibraryAvailabilityObserver: AnyObject, Sendable {
    /// The library became unavailable; ``PHPhotoLibrary/unavailabilityReason`` says why. Called once, on a private
    /// queue.
    func photoLibraryDidBecomeUnavailable(_ photoLibrary: PHPhotoLibrary)
}

/// The availability observers of one library handle and the watch that serves them: while any is registered, the
/// library's database file is checked every half second (same file, still there); when it is gone, the reason is
/// set and each observer is told once.
final class AvailabilityMonitor: Sendable {
    private struct WeakObserver {
        weak var observer: (any PHPhotoLibraryAvailabilityObserver)?
    }

    private struct State {
        var observers: [WeakObserver] = []
        var timer: (any DispatchSourceTimer)?
        var reason: PHPhotosError?
        var identity: StoreIdentity?
    }

    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "OpenPhotoKit.PHPhotoLibrary.availability")

    var reason: PHPhotosError? { state.withLock { $0.reason } }

    func register(_ observer: any PHPhotoLibraryAvailabilityObserver, library: PHPhotoLibrary) {
        state.withLock { state in
            state.observers.removeAll { $0.observer == nil || $0.observer === observer }
            state.observers.append(WeakObserver(observer: observer))
            guard state.timer == nil, state.reason == nil else { return }
            let engine = library.engineIfAvailable
            state.identity = engine?.storeIdentity()
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + .milliseconds(500), repeating: .milliseconds(500))
            timer.setEventHandler { [weak self, weak library] in
                guard let self, let library else { return }
                self.check(library: library, engine: engine)
            }
            timer.resume()
            state.timer = timer
        }
    }

    func unregister(_ observer: any PHPhotoLibraryAvailabilityObserver) {
        state.withLock { state in
            state.observers.removeAll { $0.observer == nil || $0.observer === observer }
            if state.observers.isEmpty {
                state.timer?.cancel()
                state.timer = nil
            }
        }
    }

    /// The library became unavailable for `reason` (a served library's server no longer accepts the token): its
    /// observers are told once.
    func markUnavailable(_ reason: PHPhotosError, library: PHPhotoLibrary) {
        let observers: [any PHPhotoLibraryAvailabilityObserver] = state.withLock { state in
            guard state.reason == nil else { return [] }
            state.reason = reason
            state.timer?.cancel()
            state.timer = nil
            return state.observers.compactMap(\.observer)
        }
        for observer in observers { observer.photoLibraryDidBecomeUnavailable(library) }
    }

    private func check(library: PHPhotoLibrary, engine: LibraryEngine?) {
        let observers: [any PHPhotoLibraryAvailabilityObserver] = state.withLock { state in
            guard state.reason == nil, let before = state.identity, let engine else { return [] }
            guard engine.storeIdentity() != before else { return [] }
            state.reason = PHPhotosError(
                .libraryVolumeOffline,
                userInfo: [
                    NSLocalizedDescriptionKey:
                        "the library at \(engine.locationDescription) is gone or was replaced"
                ])
            state.timer?.cancel()
            state.timer = nil
            return state.observers.compactMap(\.observer)
        }
        for observer in observers { observer.photoLibraryDidBecomeUnavailable(library) }
    }
}

extension PHPhotoLibrary {
    /// Registers an object to be told when the library becomes unavailable (held weakly).
    public func register(_ observer: any PHPhotoLibraryAvailabilityObserver) {
        availabilityMonitor.register(observer, library: self)
    }

    /// Stops telling an object about the library's availability.
    public func unregisterAvailabilityObserver(_ observer: any PHPhotoLibraryAvailabilityObserver) {
        availabilityMonitor.unregister(observer)
    }
}
