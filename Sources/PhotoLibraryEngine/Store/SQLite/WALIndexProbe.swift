import Foundation
import Synchronization

/// Whether a commit became visible in the library's database since the last look, by any process.
///
/// The database is in WAL mode, and a commit becomes visible to readers when its writer updates the header of the
/// log's index (the `-shm` file, <https://www.sqlite.org/walformat.html>): frame count, change counter, checksums
/// and salts. Reading those 48 bytes with `pread` tells exactly whether anything was committed since the last read —
/// one system call without a path to resolve, and neither early (a log write not yet published) nor late. Without
/// the index (a library not in WAL mode) the size, time and inode of the database files (`stat`) stand in.
final class WALIndexProbe: CommitProbe {
    private let state: Mutex<State>

    private struct State {
        var index: Int32
        var header = Header()
        var stamp: [[Int]] = []
        let indexPath: String
        let paths: [String]
    }

    /// The index header's 48 bytes, compared as six words (no allocation per request).
    private struct Header: Equatable {
        var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
        static func == (a: Header, b: Header) -> Bool {
            a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2 && a.words.3 == b.words.3
                && a.words.4 == b.words.4 && a.words.5 == b.words.5
        }
    }

    init(databaseURL: URL) {
        let database = databaseURL.path
        state = Mutex(
            State(index: open(database + "-shm", O_RDONLY | O_CLOEXEC), indexPath: database + "-shm", paths: [database, database + "-wal"]))
        _ = changed()
    }

    /// True when the database changed since the last call.
    func changed() -> Bool {
        state.withLock { Self.changed(&$0) }
    }

    deinit { state.withLock { if $0.index >= 0 { close($0.index) } } }

    private static func changed(_ state: inout State) -> Bool {
        if state.index >= 0 {
            var now = Header()
            let descriptor = state.index
            if withUnsafeMutableBytes(of: &now.words, { pread(descriptor, $0.baseAddress, 48, 0) }) == 48 {
                defer { state.header = now }
                return now != state.header
            }
            // The index is gone (every connection closed, which this server's own do not): open it again.
            close(state.index)
            state.index = open(state.indexPath, O_RDONLY | O_CLOEXEC)
            return true
        }
        let now = state.paths.map { path -> [Int] in
            var info = stat()
            guard stat(path, &info) == 0 else { return [] }
            return [Int(info.st_size), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec), Int(info.st_ino)]
        }
        defer { state.stamp = now }
        return now != state.stamp
    }
}
