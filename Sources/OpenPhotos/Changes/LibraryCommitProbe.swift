import Foundation
import PhotoLibraryEngine

/// OpenPhotoKit: whether a library committed anything since the last look, by any process — one cheap look per
/// call (a server checks it before every request to keep per-commit caches exact). Make one with
/// ``PHPhotoLibrary/makeCommitProbe()``.
package final class LibraryCommitProbe: Sendable {
    private let probe: any CommitProbe

    init(_ probe: any CommitProbe) {
        self.probe = probe
    }

    /// True when the library committed since the last call (or since the probe was made).
    package func changed() -> Bool { probe.changed() }
}

extension PHPhotoLibrary {
    /// A probe of this library's commits (see ``LibraryCommitProbe``).
    package func makeCommitProbe() throws -> LibraryCommitProbe {
        do { return LibraryCommitProbe(try engine().makeCommitProbe()) } catch { throw PHPhotosError(error) }
    }
}
