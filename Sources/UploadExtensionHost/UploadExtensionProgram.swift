import Foundation

/// OpenPhotoKit: an upload extension program and what of the host's files it may use — the way
/// `UploadExtensionHost` runs an app's upload extension: as a process of its own, in a kernel sandbox, with the
/// library served to it (see ``BackgroundUploads/UploadJobHost/sandboxed(library:program:performer:)``).
///
/// The program is built with `PhotoUploadExtension`'s ``PhotoUploadExtension/UploadExtensionMain`` (the
/// `backup-extension` example is one). In its sandbox it sees the system's libraries, its own folder and the paths
/// named here; the library's folder, its database, the host's process and the network are not in its world.
public struct UploadExtensionProgram: Sendable {
    /// The program.
    public var executableURL: URL
    /// Its arguments.
    public var arguments: [String]
    /// Variables of its environment besides those the host sets (`PHOTOS_LIBRARY`, `PHOTOS_TOKEN`, `HOME`, `TMPDIR`).
    public var environment: [String: String]
    /// Files and folders it may read (its settings, a token it puts in the jobs' requests).
    public var readOnlyPaths: [String]
    /// Folders it may write (what it keeps between runs).
    public var readWritePaths: [String]
    /// How long one call (`processJobs()`, `willTerminate()`) may take before the program is stopped and the call
    /// counts as a failure.
    public var timeout: Double

    /// A program at `executableURL` with the given arguments, environment and paths.
    public init(
        executableURL: URL, arguments: [String] = [], environment: [String: String] = [:], readOnlyPaths: [String] = [],
        readWritePaths: [String] = [], timeout: Double = 600
    ) {
        self.executableURL = executableURL
        self.arguments = arguments
        self.environment = environment
        self.readOnlyPaths = readOnlyPaths
        self.readWritePaths = readWritePaths
        self.timeout = timeout
    }
}

/// Why an upload extension program could not be hosted.
public struct UploadExtensionHostError: Error, Sendable, CustomStringConvertible {
    public var description: String

    init(_ description: String) { self.description = description }
}
