import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where OpenPhotoKit's helper programs are (`openphotokit-heif-check`, `openphotokit-transcode`): the path an
/// environment variable names (an explicit choice wins), beside the running program (where `swift build` puts them,
/// and where a package installs `photos`), on `PATH`, then in `/usr/libexec/openphotokit` and
/// `/usr/local/libexec/openphotokit`. Nil when none is executable.
enum HelperProgram {
    static func path(named name: String, environmentVariable: String) -> String? {
        let environment = ProcessInfo.processInfo.environment
        var candidates: [String] = []
        if let explicit = environment[environmentVariable], !explicit.isEmpty { candidates.append(explicit) }
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append((executable as NSString).deletingLastPathComponent + "/" + name)
        }
        for folder in (environment["PATH"] ?? "").split(separator: ":") { candidates.append("\(folder)/\(name)") }
        candidates += ["/usr/libexec/openphotokit/\(name)", "/usr/local/libexec/openphotokit/\(name)"]
        return candidates.first { access($0, X_OK) == 0 }
    }
}
