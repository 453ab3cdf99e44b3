import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Wakes a queue when a process writes a SQLite database: inotify on the database's folder, for the
/// SQLite files of that database (a commit in WAL mode always writes the `-wal` file; a checkpoint writes the main
/// file). Watching the folder rather than the files keeps working when SQLite deletes and re-creates the `-wal`.
///
/// Events are coalesced: one wake-up reads every pending event and calls the handler once. The handler must be
/// cheap and idempotent (the change center reads the journal's newest id), because this process's own writes
/// wake it too. Where inotify is missing (not Linux, or out of watches) ``start()`` returns false and the change
/// center polls instead.
final class SQLiteFileWatcher: CommitWatch, @unchecked Sendable {
    private let databaseURL: URL
    private let queue: DispatchQueue
    private let handler: @Sendable () -> Void
    private var source: (any DispatchSourceRead)?

    init(databaseURL: URL, queue: DispatchQueue, handler: @escaping @Sendable () -> Void) {
        self.databaseURL = databaseURL
        self.queue = queue
        self.handler = handler
    }

    /// Starts watching; false when this system offers no file-change notifications.
    func start() -> Bool {
        #if canImport(Glibc)
            guard source == nil else { return true }
            let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard fd >= 0 else { return false }
            let folder = databaseURL.deletingLastPathComponent().path
            let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO)
            guard inotify_add_watch(fd, folder, mask) >= 0 else {
                close(fd)
                return false
            }
            let prefix = databaseURL.lastPathComponent
            let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
            source.setEventHandler { [handler] in
                if Self.drain(fd, prefix: prefix) { handler() }
            }
            source.setCancelHandler { close(fd) }
            source.resume()
            self.source = source
            return true
        #else
            return false
        #endif
    }

    func stop() {
        source?.cancel()
        source = nil
    }

    deinit { source?.cancel() }

    #if canImport(Glibc)
        /// Reads every pending event; true when one concerns the database's files.
        private static func drain(_ fd: Int32, prefix: String) -> Bool {
            var relevant = false
            let capacity = 16 * 1024
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
            defer { buffer.deallocate() }
            while true {
                let count = read(fd, buffer, capacity)
                guard count > 0 else { break }
                var offset = 0
                let header = MemoryLayout<inotify_event>.size
                while offset + header <= count {
                    let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                    let nameLength = Int(event.len)
                    if nameLength > 0, offset + header + nameLength <= count {
                        let namePointer = (buffer + offset + header).assumingMemoryBound(to: CChar.self)
                        let name = String(cString: namePointer)
                        if name.hasPrefix(prefix) { relevant = true }
                    }
                    offset += header + nameLength
                }
            }
            return relevant
        }
    #endif
}
