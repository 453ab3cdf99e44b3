import CProcessControl
import Foundation
import OpenPhotos
import PhotoEditingProtocol
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The kernel sandbox every editing extension program runs in: bubblewrap (`bwrap`, Debian's `bubblewrap` package).
///
/// An extension is a program of someone else's that edits one photo. It is started in new user, mount, PID, network,
/// IPC, UTS and cgroup namespaces, with every capability dropped and `no_new_privs` set, in a session of its own, and
/// killed with everything it started when its session ends or its host dies. Its file system holds only:
/// the system's programs and libraries read-only (`/usr` and the `/bin`, `/lib` links or folders, the few files of `/etc`
/// that the dynamic linker and the C library read), the Swift runtime's folder and the extension's own folder read-only,
/// a private `/proc` (its own processes only), a minimal `/dev`, an empty `/tmp`, and its session folder — the copies of
/// its input and its output folder — read-write. The library, the host process (its `/proc/<pid>/fd`, `cmdline`,
/// `environ`), the user's home and every other file are not in its world, and it has no network. The host also makes
/// itself undumpable once it hosts extensions, so that even outside the namespace a process of the same user cannot
/// open its descriptors.
///
/// The namespaces need a kernel that lets unprivileged users create user namespaces (Linux ≥ 3.8 with
/// `kernel.unprivileged_userns_clone=1`, the default of Debian ≥ 11 and most distributions; Ubuntu ≥ 24.04 allows it for
/// `bwrap` through its AppArmor profile), or a host running as root. Where the sandbox cannot start, extensions are not
/// run at all: ``EditingExtensionError/launchFailed(extension:reason:)`` says why.
enum ExtensionSandbox {
    /// bubblewrap's path, or nil when it is not installed.
    static let bubblewrap: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = ["/usr/bin/bwrap", "/bin/bwrap"] + path.split(separator: ":").map { "\($0)/bwrap" }
        return candidates.first { access($0, X_OK) == 0 }
    }()

    /// The program to start and its arguments, for running `executable` with `arguments` in the sandbox whose
    /// read-write folder is `workspace` (also its working directory).
    static func command(executable: URL, arguments: [String], workspace: URL) throws(EditingExtensionError) -> (URL, [String]) {
        guard let bubblewrap else {
            throw .launchFailed(
                extension: executable.lastPathComponent,
                reason: "extensions run only in a sandbox, and bubblewrap (bwrap) is not installed: apt install bubblewrap")
        }
        try checkAvailable(bubblewrap, name: executable.lastPathComponent)
        makeHostUndumpable()
        var sandbox = baseArguments
        var readOnly = [executable.resolvingSymlinksInPath().deletingLastPathComponent().path]
        readOnly += swiftRuntimeFolders
        for folder in ProcessInfo.processInfo.environment["LD_LIBRARY_PATH"]?.split(separator: ":") ?? [] where folder.hasPrefix("/") {
            readOnly.append(String(folder))
        }
        for folder in Set(readOnly).sorted() where !folder.hasPrefix("/usr/") {
            sandbox += ["--ro-bind-try", folder, folder]
        }
        sandbox += ["--bind", workspace.path, workspace.path, "--chdir", workspace.path, "--", executable.path] + arguments
        return (URL(fileURLWithPath: bubblewrap), sandbox)
    }

    /// The namespaces and the system's read-only folders, the same for every extension.
    private static let baseArguments: [String] = {
        var arguments = [
            "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--ro-bind", "/usr", "/usr",
        ]
        let fileManager = FileManager.default
        for top in ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"] {
            if let target = try? fileManager.destinationOfSymbolicLink(atPath: top) {
                arguments += ["--symlink", target, top]
            } else if fileManager.fileExists(atPath: top) {
                arguments += ["--ro-bind", top, top]
            }
        }
        // What the dynamic linker, the C library and libvips read — not the rest of /etc (no passwords, no keys).
        for file in [
            "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf",
            "/etc/alternatives", "/etc/fonts",
        ] {
            arguments += ["--ro-bind-try", file, file]
        }
        arguments += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
        return arguments
    }()

    /// The folders this process loaded the Swift runtime from (an extension built with the same toolchain needs them).
    private static let swiftRuntimeFolders: [String] = {
        // /proc files report no size: read to the end rather than by size.
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/maps") else { return [] }
        defer { try? handle.close() }
        let maps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        var folders = Set<String>()
        for line in maps.split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/") else { continue }
            let path = String(line[slash...])
            if path.contains("/libswiftCore.so") || path.contains("/libFoundation.so") || path.contains("/libdispatch.so") {
                folders.insert((path as NSString).deletingLastPathComponent)
            }
        }
        return folders.sorted()
    }()

    /// Whether bubblewrap can make its namespaces here (checked once per process, with the extension's own options).
    private static let availability = Mutex<String??>(nil)

    private static func checkAvailable(_ bubblewrap: String, name: String) throws(EditingExtensionError) {
        let known = availability.withLock { $0 }
        let problem: String?
        if let known {
            problem = known
        } else {
            let probe = Process()
            probe.executableURL = URL(fileURLWithPath: bubblewrap)
            probe.arguments = baseArguments + ["--", "/usr/bin/true"]
            let errors = Pipe()
            probe.standardError = errors
            probe.standardOutput = FileHandle.nullDevice
            probe.standardInput = FileHandle.nullDevice
            var found: String?
            do {
                try probe.run()
                let message = errors.fileHandleForReading.readDataToEndOfFile()
                probe.waitUntilExit()
                if probe.terminationStatus != 0 {
                    found = String(decoding: message.prefix(500), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                }
            } catch {
                found = "\(error)"
            }
            availability.withLock { $0 = .some(found) }
            problem = found
        }
        if let problem {
            throw .launchFailed(
                extension: name,
                reason: "extensions run only in a sandbox, which bubblewrap could not create here (\(problem)); "
                    + "the kernel must allow user namespaces (sysctl kernel.unprivileged_userns_clone=1)")
        }
    }

    private static let undumpable: Bool = opk_set_undumpable() == 0

    /// From the first extension on, processes of the same user cannot open this process's descriptors or memory.
    static func makeHostUndumpable() { _ = undumpable }

    /// Starts `process` on a thread that lives as long as this process: `--die-with-parent` ties the sandbox to the
    /// thread that started it (PR_SET_PDEATHSIG follows the parent thread), and a pool thread that ends would take the
    /// extension with it.
    static func run(_ process: Process) throws {
        try LauncherThread.shared.perform { try process.runRetryingBusyExecutable() }
    }
}

/// One long-lived thread that starts the sandboxed processes.
private final class LauncherThread: @unchecked Sendable {
    static let shared = LauncherThread()
    private let condition = NSCondition()
    private var queue: [() -> Void] = []

    private init() {
        let thread = Thread { [self] in
            while true {
                condition.lock()
                while queue.isEmpty { condition.wait() }
                let next = queue.removeFirst()
                condition.unlock()
                next()
            }
        }
        thread.name = "OpenPhotoKit.extension-launcher"
        thread.start()
    }

    func perform(_ body: @escaping () throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = Mutex<(any Error)?>(nil)
        condition.lock()
        queue.append {
            do { try body() } catch { failure.withLock { $0 = error } }
            done.signal()
        }
        condition.signal()
        condition.unlock()
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }
}

extension ExtensionSandbox {
    /// The most of an extension's own output (its standard error) kept in its session's log; the rest is read and
    /// dropped, so a chatty extension neither blocks on a full pipe nor fills the disk.
    static let logLimit = 1 << 20

    /// Copies what `pipe` delivers into `log`, up to ``logLimit`` bytes, on a thread of its own until the pipe closes.
    static func capture(_ pipe: Pipe, into log: URL) {
        let source = pipe.fileHandleForReading.fileDescriptor
        let target = open(log.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        Thread.detachNewThread {
            var kept = 0
            var dropped = 0
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
                if n < 0, errno == EINTR { continue }
                if n <= 0 { break }
                let keep = max(0, min(n, logLimit - kept))
                if keep > 0, target >= 0 { _ = buffer.withUnsafeBytes { write(target, $0.baseAddress, keep) } }
                kept += keep
                dropped += n - keep
            }
            if dropped > 0, target >= 0 {
                let note = Array("\n[OpenPhotoKit: \(dropped) more bytes of output were not kept]\n".utf8)
                _ = note.withUnsafeBytes { write(target, $0.baseAddress, $0.count) }
            }
            if target >= 0 { close(target) }
            try? pipe.fileHandleForReading.close()
        }
    }

    /// Copies an extension program into its bundle with a descriptor no child process can inherit: a copy whose
    /// descriptor a concurrently started child keeps open cannot be executed ("Text file busy") while that child lives.
    static func copyProgram(_ source: URL, to target: URL) throws {
        let input = open(source.path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw CocoaError(.fileReadNoPermission, userInfo: [NSFilePathErrorKey: source.path]) }
        defer { close(input) }
        let output = open(target.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        guard output >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: target.path]) }
        var failed = false
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n < 0 { failed = true }
            if n <= 0 { break }
            var offset = 0
            while offset < n {
                let written = buffer.withUnsafeBytes { write(output, $0.baseAddress! + offset, n - offset) }
                if written < 0, errno == EINTR { continue }
                if written <= 0 { failed = true; break }
                offset += written
            }
            if failed { break }
        }
        if fsync(output) != 0 { failed = true }
        close(output)
        if failed {
            unlink(target.path)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target.path])
        }
    }
}
