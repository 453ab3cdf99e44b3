import OpenPhotos
import Foundation
import PhotosTesting
import Synchronization
import Testing

/// The availability observer: told once when the library's folder goes away.
@Suite("Library availability")
struct AvailabilityTests {
    final class Recorder: PHPhotoLibraryAvailabilityObserver {
        let calls = Mutex(0)
        func photoLibraryDidBecomeUnavailable(_ photoLibrary: PHPhotoLibrary) { calls.withLock { $0 += 1 } }
    }

    @Test func observersHearOnceWhenTheLibraryGoesAway() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        _ = try library.addImages(1)
        let recorder = Recorder()
        let idle = Recorder()
        library.library.register(recorder)
        library.library.register(idle)
        library.library.unregisterAvailabilityObserver(idle)
        #expect(library.library.unavailabilityReason == nil)
        Thread.sleep(forTimeInterval: 0.7)
        #expect(recorder.calls.withLock { $0 } == 0)

        // The library moved away (as when its volume is ejected).
        let moved = library.url.deletingLastPathComponent().appendingPathComponent("Moved.photoslibrary")
        try FileManager.default.moveItem(at: library.url, to: moved)
        let deadline = Date().addingTimeInterval(60)
        while recorder.calls.withLock({ $0 }) == 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        Thread.sleep(forTimeInterval: 1.2)
        #expect(recorder.calls.withLock { $0 } == 1)
        #expect(idle.calls.withLock { $0 } == 0)
        #expect((library.library.unavailabilityReason as? PHPhotosError)?.code == .libraryVolumeOffline)
    }
}
