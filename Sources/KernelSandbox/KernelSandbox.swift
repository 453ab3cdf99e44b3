import CProcessControl
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The kernel sandbox OpenPhotoKit runs programs it does not trust in: bubblewrap (`bwrap`, Debian's `bubblewrap`
/// package) — editing extensions (someone else's code) and the movie encoder (libavcodec over someone else's bytes).
///
/// A program is started in new user, mount, PID, network, IPC, UTS and cgroup namespaces, with every capability dropped
/// and `no_new_privs` set, in a session of its own, and killed with everything it started when its host dies. Its file
/// system holds only: the system's programs and libraries read-only (`/usr` and the `/bin`, `/lib` links or folders, the
/// few files of `/etc` that the dynamic linker and the C library read), the folders the caller names read-only, a
/// private `/proc` (its own processes only), a minimal `/dev`, an empty `/tmp`, and the folders the caller names
/// read-write. The library, the host process (its `/proc/<pid>/fd`, `cmdline`, `environ`), the user's home and every
/// other file are not in its world, and it has no network. The host also makes itself undumpable once it starts such a
/// program, so that even outside the namespace a process of the same user cannot open its descriptors.
///
/// The namespaces need a kernel that lets unprivileged users create user namespaces (Linux ≥ 3.8 with
/// `kernel.unprivileged_userns_clone=1`, the default of Debian ≥ 11 and most distributions; Ubuntu ≥ 24.04 allows it for
/// `bwrap` through its AppArmor profile), or a host running as root. Where the sandbox cannot start, nothing runs:
/// ``command(executable:arguments:readOnly:readWrite:workingDirectory:)`` says why.
package enum KernelSandbox {
    /// bubblewrap's path, or nil when it is not installed.
    package static let bubblewrap: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = ["/usr/bin/bwrap", "/bin/bwrap"] + path.split(separator: ":").map { "\($0)/bwrap" }
        return candidates.first { access($0, X_OK) == 0 }
    }()

    /// Why a program cannot be sandboxed here.
    package struct Unavailable: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// The program to start and its arguments, for running `executable` with `arguments` in the sandbox: `readOnly`
    /// folders (besides the system's and the executable's own) visible read-only, `readWrite` folders read-write, in
    /// `workingDirectory`.
    /// - throws: ``Unavailable`` when bubblewrap is not installed or cannot make its namespaces here.
    package static func command(
        executable: URL, arguments: [String], readOnly: [String] = [], readWrite: [String], workingDirectory: String
    ) throws(Unavailable) -> (URL, [String]) {
        guard let bubblewrap else { throw Unavailable(description: "bubblewrap (bwrap) is not installed: apt install bubblewrap") }
        if let problem = availability(bubblewrap) {
            throw Unavailable(
                description: "bubblewrap could not create its namespaces here (\(problem)); "
                    + "the kernel must allow user namespaces (sysctl kernel.unprivileged_userns_clone=1)")
        }
        makeHostUndumpable()
        var sandbox = baseArguments
        var visible = [executable.resolvingSymlinksInPath().deletingLastPathComponent().path] + readOnly
        for folder in ProcessInfo.processInfo.environment["LD_LIBRARY_PATH"]?.split(separator: ":") ?? [] where folder.hasPrefix("/") {
            visible.append(String(folder))
        }
        for folder in Set(visible).sorted() where !folder.hasPrefix("/usr/") {
            sandbox += ["--ro-bind-try", folder, folder]
        }
        for folder in readWrite { sandbox += ["--bind", folder, folder] }
        sandbox += ["--chdir", workingDirectory, "--", executable.path] + arguments
        return (URL(fileURLWithPath: bubblewrap), sandbox)
    }

    /// The namespaces and the system's read-only folders, the same for every program.
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

    /// The folders this process loaded the Swift runtime from (a program built with the same toolchain needs them).
    package static let swiftRuntimeFolders: [String] = {
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

    /// Whether bubblewrap can make its namespaces here: nil, or what it said (checked once per process).
    private static let known = Mutex<String??>(nil)

    private static func availability(_ bubblewrap: String) -> String? {
        if let known = known.withLock({ $0 }) { return known }
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
        known.withLock { $0 = .some(found) }
        return found
    }

    private static let undumpable: Bool = opk_set_undumpable() == 0

    /// From the first sandboxed program on, processes of the same user cannot open this process's descriptors or memory.
    package static func makeHostUndumpable() { _ = undumpable }

    /// Runs `start` (which starts a sandboxed process) on a thread that lives as long as this process:
    /// `--die-with-parent` ties the sandbox to the thread that started it (PR_SET_PDEATHSIG follows the parent
    /// thread), and a pool thread that ends would take the program with it.
    package static func launch(_ start: @escaping () throws -> Void) throws {
        try LauncherThread.shared.perform(start)
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
        thread.name = "OpenPhotoKit.sandbox-launcher"
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
