import BlockingThreads
import Foundation
import PhotoLibraryEngine
import PhotoMedia

/// A shared object that manages access and changes to the user's photo library.
///
/// On Linux the library is a `.photoslibrary` folder: ``shared()`` opens the one named by `$PHOTOS_LIBRARY`,
/// else `~/Pictures/Photos Library.photoslibrary` (created when missing). ``init(url:clientIdentifier:readOnly:)``
/// opens any other — also a library on a database server (`postgres://…`) or one served by `photos serve`
/// (`https://…`, see <doc:RemoteLibraries>).
///
/// ```swift
/// let library = try PHPhotoLibrary(url: URL(fileURLWithPath: "Trip.photoslibrary"))
/// try library.performChangesAndWait {
///     PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: photoURL)
/// }
/// ```
open class PHPhotoLibrary: NSObject, @unchecked Sendable {
    let state: Result<LibraryEngine, LibraryError>
    /// A library served by `photos serve` (an `http(s)://` URL): the server answers; `state` then says what is not
    /// available over the API yet.
    let remote: RemoteLibrary?
    /// OpenPhotoKit: the library folder.
    public let libraryURL: URL
    /// OpenPhotoKit: who this handle acts for; nil is the library's owner. Defaults to `$PHOTOS_CLIENT_ID`.
    public let clientIdentifier: String?
    /// Change blocks and their completion handlers run here (a serial queue, never the caller's).
    let changeQueue: DispatchQueue
    /// Backed-up assets committed together (``receiveBackupResource(_:file:size:sha256:)``).
    let backupCommitter = BackupCommitter()
    /// Change observers and change streams of this handle.
    let observerRegistry = ObserverRegistry()
    let availabilityMonitor = AvailabilityMonitor()

    private static let sharedLibrary = PHPhotoLibrary(openingAt: defaultLibraryURL, clientIdentifier: defaultClientIdentifier)

    /// The shared photo library object.
    open class func shared() -> PHPhotoLibrary { hosted ?? sharedLibrary }

    /// The library a host gives the extension it runs (`BackgroundUploads`' upload job host): what ``shared()``
    /// answers in the extension's calls, as an app extension's shared library is its app's.
    @TaskLocal package static var hosted: PHPhotoLibrary?

    /// OpenPhotoKit: where ``shared()`` finds its library: `$PHOTOS_LIBRARY` (a folder path, or a server library's
    /// `postgres://…` address), else `~/Pictures/Photos Library.photoslibrary`.
    public static var defaultLibraryURL: URL {
        if let location = ProcessInfo.processInfo.environment["PHOTOS_LIBRARY"], !location.isEmpty {
            return libraryURL(location)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent("Pictures/Photos Library.photoslibrary")
    }

    /// OpenPhotoKit: the library a location names: a server library's address (`postgres://user@host/db?library=…`)
    /// or a folder's URL with options (`file:///srv/a.photoslibrary?files=s3://bucket/prefix`) as it is, anything else
    /// as a folder path.
    public static func libraryURL(_ location: String) -> URL {
        if location.hasPrefix("postgres://") || location.hasPrefix("postgresql://") || location.hasPrefix("file://")
            || location.hasPrefix("http://") || location.hasPrefix("https://") || location.hasPrefix("http+unix://"),
            let url = URL(string: location)
        {
            return url
        }
        return URL(fileURLWithPath: location)
    }

    /// OpenPhotoKit: the client identifier handles act for by default: `$PHOTOS_CLIENT_ID`, else nil (the owner).
    public static var defaultClientIdentifier: String? {
        ProcessInfo.processInfo.environment["PHOTOS_CLIENT_ID"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// OpenPhotoKit: opens (or creates) the library at `url`.
    /// - parameter clientIdentifier: the client this handle acts for (nil: the owner), see ``authorizationStatus(for:)``.
    /// - throws: ``PHPhotosError`` when the library cannot be opened (for example written by a newer version).
    ///
    /// An `http://` or `https://` URL opens the library a `photos serve` serves there with the token in
    /// `$PHOTOS_TOKEN`, else in the file `$PHOTOS_TOKEN_FILE` names (readable by its owner only); the token decides
    /// the client, so `clientIdentifier` is not used. ``init(url:accessToken:)`` takes the token itself.
    public init(url: URL, clientIdentifier: String? = PHPhotoLibrary.defaultClientIdentifier, readOnly: Bool = false) throws {
        if RemoteLibrary.isServed(url) {
            do {
                let remote = try RemoteLibrary.open(url, token: try RemoteLibrary.environmentToken())
                (self.remote, self.state, self.clientIdentifier) = (remote, .failure(Self.servedLibraryLimit), remote.clientIdentifier)
            } catch {
                throw PHPhotosError(error)
            }
        } else {
            var configuration = LibraryConfiguration()
            configuration.readOnly = readOnly
            do {
                let engine = try LibraryEngine.open(at: url, configuration: configuration)
                (self.remote, self.state, self.clientIdentifier) = (nil, .success(engine), clientIdentifier)
            } catch {
                throw PHPhotosError(error)
            }
        }
        self.libraryURL = url
        self.changeQueue = DispatchQueue(label: "OpenPhotoKit.PHPhotoLibrary.changes")
    }

    /// OpenPhotoKit: opens the library a `photos serve` serves at `url` (`https://photos.example.com`), acting as
    /// the client `accessToken` was issued for (`photos token create`). Apple's API has no such initializer: a
    /// device's library needs no token.
    /// - parameter cacheDirectory: where this machine keeps the images it downloads from the server (bounded:
    ///   `$PHOTOS_REMOTE_CACHE_MB`, 256 MiB by default); nil: a folder of this server and client under
    ///   `$XDG_CACHE_HOME/openphotokit/remote` (else `~/.cache/…`).
    /// - throws: ``PHPhotosError``: `accessUserDenied` for a token the server refuses, `networkError` for a server
    ///   that cannot be reached or does not answer as `photos serve` does (in bounded time).
    public init(url: URL, accessToken: String, cacheDirectory: URL? = nil) throws {
        do {
            let remote = try RemoteLibrary.open(url, token: accessToken, cacheFolder: cacheDirectory)
            (self.remote, self.state, self.clientIdentifier) = (remote, .failure(Self.servedLibraryLimit), remote.clientIdentifier)
        } catch {
            throw PHPhotosError(error)
        }
        self.libraryURL = url
        self.changeQueue = DispatchQueue(label: "OpenPhotoKit.PHPhotoLibrary.changes")
    }

    /// OpenPhotoKit: the access token in the file at `path` (what `PHOTOS_TOKEN_FILE` names), refused when anyone but
    /// its owner may read the file (mode 0600 or stricter), as ssh refuses such keys.
    /// - throws: ``PHPhotosError`` `accessUserDenied`, saying why.
    public static func readAccessToken(fromFile path: String) throws -> String {
        do { return try RemoteLibrary.tokenFile(path) } catch { throw PHPhotosError(error) }
    }

    init(openingAt url: URL, clientIdentifier: String?) {
        var remote: RemoteLibrary?
        var client = clientIdentifier
        do {
            if RemoteLibrary.isServed(url) {
                remote = try RemoteLibrary.open(url, token: try RemoteLibrary.environmentToken())
                client = remote?.clientIdentifier
                self.state = .failure(Self.servedLibraryLimit)
            } else {
                self.state = .success(try LibraryEngine.open(at: url))
            }
        } catch {
            self.state = .failure(error)
        }
        self.remote = remote
        self.libraryURL = url
        self.clientIdentifier = client
        self.changeQueue = DispatchQueue(label: "OpenPhotoKit.PHPhotoLibrary.changes")
    }

    /// What an operation a served library does not offer yet answers (issue 27 brings them one by one).
    static let servedLibraryLimit = LibraryError.changeNotSupported(
        "this operation is not available yet for a library served by photos serve (the article Remote libraries lists what is)")

    /// Why the library is unavailable — it could not be opened, or its folder went away while it was observed
    /// (see the availability observers) — or nil.
    open var unavailabilityReason: (any Error)? {
        if remote == nil, case .failure(let error) = state { return PHPhotosError(error) }
        return availabilityMonitor.reason
    }

    package func engine() throws(LibraryError) -> LibraryEngine {
        try state.get()
    }

    var engineIfAvailable: LibraryEngine? {
        if let pinned = PinnedEngine.current, pinned.library === self { return pinned.engine }
        return try? state.get()
    }

    /// The access this handle has now (grants can change while it is open).
    package var access: AccessContext {
        if let remote { return remote.accessContext }
        return engineIfAvailable?.accessContext(clientID: clientIdentifier)
            ?? AccessContext(clientID: clientIdentifier, grant: .restricted, libraryIsReadOnly: true)
    }

    // MARK: - Authorization (class methods live in the class body so subclasses can override them)

    /// The app's authorization to access the shared library at an access level.
    ///
    /// On Linux the library's own policy decides: the owner (no `$PHOTOS_CLIENT_ID`) is authorized; other clients
    /// have what the owner granted them with `photos grant` (`.notDetermined` until then).
    open class func authorizationStatus(for accessLevel: PHAccessLevel) -> PHAuthorizationStatus {
        shared().authorizationStatus(for: accessLevel)
    }

    /// Requests authorization; the handler runs on an arbitrary queue with the resulting status.
    open class func requestAuthorization(
        for accessLevel: PHAccessLevel, handler: @escaping @Sendable (PHAuthorizationStatus) -> Void
    ) {
        let library = shared()
        BlockingThreads.run { handler(library.requestAuthorization(for: accessLevel)) }
    }

    /// Requests authorization and returns the resulting status.
    open class func requestAuthorization(for accessLevel: PHAccessLevel) async -> PHAuthorizationStatus {
        shared().requestAuthorization(for: accessLevel)
    }

    /// The app's authorization (deprecated: reports `.authorized` for limited access).
    @available(*, deprecated, message: "Use authorizationStatus(for:)")
    open class func authorizationStatus() -> PHAuthorizationStatus {
        let status = authorizationStatus(for: .readWrite)
        return status == .limited ? .authorized : status
    }

    /// Requests authorization (deprecated: reports `.authorized` for limited access).
    @available(*, deprecated, message: "Use requestAuthorization(for:handler:)")
    open class func requestAuthorization(_ handler: @escaping @Sendable (PHAuthorizationStatus) -> Void) {
        requestAuthorization(for: .readWrite) { status in handler(status == .limited ? .authorized : status) }
    }

    // MARK: - Applying changes

    /// Asynchronously runs a block that requests changes, applying them atomically.
    ///
    /// The block and the completion handler run on a serial queue of the library, never on the caller's.
    /// All change requests made in the block are applied together, or none is.
    open func performChanges(
        _ changeBlock: @escaping @Sendable () -> Void, completionHandler: (@Sendable (Bool, (any Error)?) -> Void)? = nil
    ) {
        if ChangeBlockContext.current != nil {
            photoKitMisuse("performChanges cannot be called from inside a change block (change blocks cannot be nested)")
        }
        changeQueue.async {
            let result = Result { try self.runChangeBlock(changeBlock) }
            switch result {
            case .success: completionHandler?(true, nil)
            case .failure(let error): completionHandler?(false, error)
            }
        }
    }

    /// Runs a block that requests changes and waits for them to be applied.
    /// - throws: ``PHPhotosError`` when the changes cannot be applied (nothing of the block is applied then).
    open func performChanges(_ changeBlock: @escaping @Sendable () -> Void) async throws {
        if ChangeBlockContext.current != nil {
            photoKitMisuse("performChanges cannot be called from inside a change block (change blocks cannot be nested)")
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            changeQueue.async {
                continuation.resume(with: Result { try self.runChangeBlock(changeBlock) })
            }
        }
    }

    /// Synchronously runs a block that requests changes, applying them atomically.
    /// - throws: ``PHPhotosError`` when the changes cannot be applied (nothing of the block is applied then).
    open func performChangesAndWait(_ changeBlock: () -> Void) throws {
        if ChangeBlockContext.current != nil {
            photoKitMisuse("performChangesAndWait cannot be called from inside a change block (change blocks cannot be nested)")
        }
        try runChangeBlock(changeBlock)
    }

    private func runChangeBlock(_ changeBlock: () -> Void) throws {
        let context = ChangeBlockContext(library: self)
        // Each request holds its context and the context its requests: the cycle is broken when the block is done
        // (it kept every request of every block alive — and with them each edit's output and its input's copies).
        defer { context.requests.removeAll() }
        ChangeBlockContext.$current.withValue(context) { changeBlock() }
        let intents = context.requests.flatMap { $0.intents() }
        if intents.isEmpty { return }
        do {
            if let remote {
                try remote.apply(intents)
                return
            }
            let engine = try engine()
            try engine.apply(intents, access: access)
        } catch {
            throw PHPhotosError(error)
        }
    }
}

/// The change block running now, and the requests it made.
///
/// A task-local value (as ``PinnedEngine``): set for the block's duration with `withValue`, which also works on a
/// thread with no task (the block runs synchronously on the library's queue or the caller's thread). The requests
/// are only touched by that block's own code, hence `@unchecked Sendable`.
final class ChangeBlockContext: @unchecked Sendable {
    let library: PHPhotoLibrary
    var requests: [PHChangeRequest] = []

    init(library: PHPhotoLibrary) {
        self.library = library
    }

    @TaskLocal static var current: ChangeBlockContext?

    /// The current context; traps with Apple's message outside a change block.
    static func require() -> ChangeBlockContext {
        guard let context = current else {
            photoKitMisuse(
                "This method can only be called from inside of -[PHPhotoLibrary performChanges:completionHandler:] or -[PHPhotoLibrary performChangesAndWait:error:]"
            )
        }
        return context
    }
}
