import CProcessControl
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a HEIF file's structure in a helper process before libheif reads it in this one.
///
/// libheif asserts (and so aborts the process) on some malformed box structures — Debian's 1.19 in `BitstreamRange`,
/// found by mutating iPhone HEICs — and an abort in the process that holds a photo library ends an import with nothing
/// committed and a server with every client. So every HEIC, HEIF and AVIF file is read first by
/// `openphotokit-heif-check`, a small program that parses it the way the media pipeline and libvips' loader do (boxes,
/// every top-level image, colour profiles, metadata, depth and thumbnail items, the thumbnails decoded). A file it
/// cannot read, or on which it crashes or hangs, is reported as damaged (``MediaError/corrupt(path:reason:)``) and never
/// reaches libheif here; the helper is started again for the next file. One helper serves the whole process (files are
/// checked one at a time, a few milliseconds each), and a verdict is kept for the file's identity (device, inode, size,
/// modification and change times), so a file read many times is checked once.
///
/// The helper is found as ``HelperProgram`` finds helpers (`$OPENPHOTOKIT_HEIF_CHECK`, beside the running program, on
/// `PATH`). Without it, HEIF files are refused with a message naming it: the
/// check is never skipped.
package enum HEIFCheck {
    /// The helper's program name.
    package static let helperName = "openphotokit-heif-check"
    /// How long the helper may take for one file before it is killed and the file reported as damaged.
    package static let timeout: Duration = .seconds(30)

    /// Checks `path` (whose sniffed format is `format`); returns at once for formats libheif does not read.
    package static func check(_ path: String, format: MediaFormat) throws(MediaError) {
        guard format == .heic || format == .heif || format == .avif else { return }
        guard let identity = FileIdentity(path: path) else {
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        if let verdict = verdicts.withLock({ $0.verdict(for: identity) }) {
            if let reason = verdict { throw .corrupt(path: path, reason: reason) }
            return
        }
        let checkedAt = Date().timeIntervalSince1970
        let verdict = try helper.withLock { helper throws(MediaError) -> String? in try helper.check(path) }
        // A file changed within the clock tick of the check could change again without its times moving (file times
        // come from a coarse clock): as git does with racily clean entries, such a verdict is not kept.
        if Double(identity.changed) + Double(identity.changedNanoseconds) / 1e9 < checkedAt - 1 {
            verdicts.withLock { $0.remember(verdict, for: identity) }
        }
        if let verdict { throw .corrupt(path: path, reason: verdict) }
    }

    /// Where the helper is, or nil.
    package static let helperPath: String? = HelperProgram.path(named: helperName, environmentVariable: "OPENPHOTOKIT_HEIF_CHECK")

    /// How many times the helper has been started in this process, and how many times one failed (crashed, hung, or
    /// went away while idle): a helper is started only to replace one that failed, never per file (tests compare them).
    package static var helperStarts: Int { helper.withLock { $0.starts } }
    package static var helperFailures: Int { helper.withLock { $0.failures } }

    private static let helper = Mutex(Helper())
    private static let verdicts = Mutex(VerdictCache())

    struct FileIdentity: Hashable {
        var device: UInt64, inode: UInt64, size: Int64
        var modified: Int, modifiedNanoseconds: Int, changed: Int, changedNanoseconds: Int

        init?(path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            modified = info.st_mtim.tv_sec
            modifiedNanoseconds = info.st_mtim.tv_nsec
            changed = info.st_ctim.tv_sec
            changedNanoseconds = info.st_ctim.tv_nsec
        }
    }

    /// Verdicts (nil: sound; a reason: damaged) for the files checked most recently.
    struct VerdictCache {
        private var entries: [FileIdentity: String?] = [:]
        private var order: [FileIdentity] = []
        static let capacity = 4096

        func verdict(for identity: FileIdentity) -> String?? { entries[identity] }

        mutating func remember(_ verdict: String?, for identity: FileIdentity) {
            if entries.updateValue(verdict, forKey: identity) == nil { order.append(identity) }
            if order.count > Self.capacity {
                for old in order.prefix(order.count / 2) { entries[old] = nil }
                order.removeFirst(order.count / 2)
            }
        }
    }

    /// The running helper: its process and one end of a socket pair for its standard input and output.
    struct Helper: ~Copyable {
        var pid: pid_t = 0
        var socket: Int32 = -1
        var starts = 0
        var failures = 0
        var buffer: [UInt8] = []

        /// nil for a sound file, else the reason it is damaged.
        mutating func check(_ path: String) throws(MediaError) -> String? {
            guard !path.utf8.contains(0) else { throw .unreadable(path: path, reason: "a NUL byte in the path") }
            // A helper that went away while idle (killed from outside) is replaced before the file is sent.
            if pid > 0, waitpid(pid, nil, WNOHANG) != 0 { forget() }
            if pid <= 0 { try start(path) }
            var request = Array(path.utf8)
            request.append(0)
            let sent = request.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let n = send(socket, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                    if n < 0, errno == EINTR { continue }
                    if n <= 0 { return false }
                    offset += n
                }
                return true
            }
            guard sent, let line = readLine() else {
                let ending = stop()
                return "the HEIF decoder could not read it (\(ending)); it was read in a separate process, nothing else was affected"
            }
            if line.hasPrefix("ok") { return nil }
            return line.hasPrefix("bad ") ? String(line.dropFirst(4)) : "the HEIF decoder answered \(line.prefix(100))"
        }

        private mutating func start(_ path: String) throws(MediaError) {
            guard let executable = HEIFCheck.helperPath else {
                throw .unreadable(
                    path: path,
                    reason: "HEIF files are read only through \(HEIFCheck.helperName), which is not installed beside this program "
                        + "or on PATH (it is built with the photos program; set OPENPHOTOKIT_HEIF_CHECK to its path)")
            }
            var pair: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
                throw .unreadable(path: path, reason: "cannot start \(HEIFCheck.helperName): \(String(cString: strerror(errno)))")
            }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, pair[1], 0)
            posix_spawn_file_actions_adddup2(&actions, pair[1], 1)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            // Nothing else of this process's (a descriptor left open without O_CLOEXEC by other code, a program being
            // written: a child holding it would make it "Text file busy").
            opk_spawn_close_from(&actions, 3)
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            // Default signal dispositions and an empty mask: the host's blocked signals must not shield the helper.
            var all = sigset_t()
            sigfillset(&all)
            var none = sigset_t()
            sigemptyset(&none)
            posix_spawnattr_setsigdefault(&attributes, &all)
            posix_spawnattr_setsigmask(&attributes, &none)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
            let argv: [UnsafeMutablePointer<CChar>?] = [strdup(executable), nil]
            defer { argv.forEach { free($0) } }
            let environment: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=/usr/bin:/bin"), nil]
            defer { environment.forEach { free($0) } }
            var child: pid_t = 0
            let status = posix_spawn(&child, executable, &actions, &attributes, argv, environment)
            close(pair[1])
            guard status == 0 else {
                close(pair[0])
                throw .unreadable(path: path, reason: "cannot start \(executable): \(String(cString: strerror(status)))")
            }
            pid = child
            socket = pair[0]
            starts += 1
            buffer.removeAll()
        }

        /// One line from the helper within the timeout, or nil (it ended, or took too long).
        private mutating func readLine() -> String? {
            let deadline = ContinuousClock.now + HEIFCheck.timeout
            while true {
                if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffer[..<end], as: UTF8.self)
                    buffer.removeSubrange(...end)
                    return line
                }
                let left = ContinuousClock.now.duration(to: deadline)
                guard left > .zero else { return nil }
                var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                let milliseconds = Int32(min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000, 60_000))
                let ready = poll(&poller, 1, max(1, milliseconds))
                if ready < 0, errno == EINTR { continue }
                if ready <= 0 { continue }
                var chunk = [UInt8](repeating: 0, count: 4096)
                let n = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return nil }
                buffer.append(contentsOf: chunk[..<n])
            }
        }

        /// Ends the helper and says how it ended ("it crashed with signal 6", "it took longer than 30 seconds").
        @discardableResult
        private mutating func stop() -> String {
            guard pid > 0 else { return "it could not be started" }
            var status: Int32 = 0
            var reaped = waitpid(pid, &status, WNOHANG)
            var timedOut = false
            if reaped == 0 {
                // Closing its input ends a helper that is only waiting; give it a moment, then kill it.
                shutdown(socket, Int32(SHUT_RDWR))
                for _ in 0..<50 where reaped == 0 {
                    usleep(2_000)
                    reaped = waitpid(pid, &status, WNOHANG)
                }
                if reaped == 0 {
                    timedOut = true
                    kill(pid, SIGKILL)
                    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                }
            }
            forget()
            if timedOut { return "it took longer than \(HEIFCheck.timeout)" }
            let signal = status & 0x7f
            if signal != 0 { return "the decoder crashed with signal \(signal)" }
            return "the decoder ended with status \((status >> 8) & 0xff)"
        }

        private mutating func forget() {
            // Only a helper that failed is forgotten (stop() after a crash or timeout, or found dead while idle).
            if pid > 0 { failures += 1 }
            if socket >= 0 { close(socket) }
            socket = -1
            pid = 0
            buffer.removeAll()
        }
    }
}
