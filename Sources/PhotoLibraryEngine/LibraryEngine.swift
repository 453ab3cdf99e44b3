import Foundation
import ObjectStorage
import PhotoMedia
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Options for opening a library.
package struct LibraryConfiguration: Sendable {
    /// Create the bundle when it does not exist.
    package var createIfMissing = true
    /// Open for reading only, whatever the file permissions say.
    package var readOnly = false
    /// How long deleted assets stay in Recently Deleted before they are purged (nil: the library's setting).
    package var trashRetention: TimeInterval?
    /// The media reader used for new files.
    package var probe = MediaProbe()
    /// Whether observers are woken by the store's signal when another process commits (for SQLite, inotify on the
    /// database files), else they poll.
    package var watchesDatabaseFiles = true
    /// How often observers look for other processes' commits: without file watching, and as the safety net
    /// beside it.
    package var changePollInterval: DispatchTimeInterval = .milliseconds(50)
    package var watchedChangePollInterval: DispatchTimeInterval = .seconds(1)
    /// How many bytes of copies of blobs this node keeps for a library whose files are in object storage (see
    /// ``BlobCache``).
    package var cacheSize: Int64 = 10 << 30

    package init() {}
}

/// The photo library engine: one per open `.photoslibrary` bundle. Thread-safe; writes are serialised by the
/// metadata store, reads run concurrently on consistent states of it.
package final class LibraryEngine: Sendable {
    package let bundle: LibraryBundle
    /// Where the library's bytes are (the bundle's files: ``FolderBlobStore``).
    package let blobs: any BlobStore
    /// Where the library's rows are (the bundle's SQLite database: ``SQLiteMetadataStore``).
    package let metadata: any MetadataStore
    /// Where reads go: the store, or for a pinned engine (see ``pinned(to:)``) a snapshot of one moment.
    package let reader: any MetadataReader
    package let isReadOnly: Bool
    package let configuration: LibraryConfiguration
    package let trashRetention: TimeInterval
    package let stager: FileStager
    /// This engine's writer slot (staged files and intent journals under its lock), made on first write.
    package let slots: WriterSlots
    /// Delivers committed transactions (of this process and others) to observers.
    package let changeCenter: ChangeCenter
    /// This engine's area for editing sessions (see ``editingArea()``), made on first use.
    let editingFolder = Mutex<ProcessFolder?>(nil)

    /// Opens (or creates) the library at `url`: a `.photoslibrary` folder (SQLite and its files), or a library on a
    /// PostgreSQL server, `postgres://user@host:port/database?library=NAME&files=/path` (its files in the folder
    /// every process of the library can reach).
    ///
    /// A library folder's files may be in object storage instead of the folder: `file:///…?files=s3://bucket/prefix`
    /// (recorded in the library: later it opens with its plain path).
    package static func open(at url: URL, configuration: LibraryConfiguration = .init()) throws(LibraryError) -> LibraryEngine {
        if PostgreSQLLocation.handles(url) { return try openPostgreSQL(url, configuration: configuration) }
        var configuration = configuration
        let (url, files, cacheSize) = try folderAndFiles(url)
        if let cacheSize { configuration.cacheSize = try FilesLocation.bytes(cacheSize) }
        let bundle = LibraryBundle(url: url)
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        let exists = fm.fileExists(atPath: bundle.url.path, isDirectory: &isDirectory)
        if exists, !isDirectory.boolValue {
            throw .invalidResource("\(bundle.url.path) is a file, not a photo library folder")
        }
        if !exists {
            guard configuration.createIfMissing, !configuration.readOnly else {
                throw .libraryVolumeOffline("no photo library at \(bundle.url.path)")
            }
            do { try bundle.createLayout() } catch { throw .accessRestricted("cannot create \(bundle.url.path): \(error)") }
        }
        let readOnly = configuration.readOnly || !SQLiteMetadataStore.isWritable(bundle)
        if !readOnly {
            do { try bundle.createLayout() } catch { throw .accessRestricted("cannot write \(bundle.url.path): \(error)") }
        } else if !fm.fileExists(atPath: bundle.databaseURL.path) {
            throw .libraryVolumeOffline("\(bundle.url.path) has no database and is read-only")
        }

        let metadata = try SQLiteMetadataStore.open(
            bundle: bundle, readOnly: readOnly, watchesFiles: configuration.watchesDatabaseFiles)
        return try finishOpening(bundle: bundle, metadata: metadata, readOnly: readOnly, configuration: configuration, files: files)
    }

    /// A library folder's address without its options, where its files are when `files=` says, and the bound of
    /// this host's copies when `cache_size=` says (alone: for the object storage the library recorded).
    private static func folderAndFiles(_ url: URL) throws(LibraryError) -> (URL, FilesLocation?, String?) {
        guard url.isFileURL, let components = URLComponents(url: url, resolvingAgainstBaseURL: false), let items = components.queryItems,
            !items.isEmpty
        else { return (url, nil, nil) }
        let folder = URL(fileURLWithPath: components.path, isDirectory: true)
        let files = items.last(where: { $0.name == "files" })?.value
        let cacheSize = items.last { $0.name == "cache_size" }?.value
        guard items.allSatisfy({ ["files", "cache_size"].contains($0.name) }), files.map({ !$0.isEmpty && S3Location.handles($0) }) ?? true
        else {
            throw .invalidResource(
                "a library folder's address takes files=s3://bucket/prefix and cache_size=, not \(components.query ?? "")")
        }
        guard let files else { return (folder, nil, cacheSize) }
        return (folder, try FilesLocation(files, cache: folder.path, cacheSize: cacheSize, libraryName: folder.lastPathComponent), nil)
    }

    /// A library on a PostgreSQL server, its files in the `files=` folder.
    private static func openPostgreSQL(_ url: URL, configuration: LibraryConfiguration) throws(LibraryError) -> LibraryEngine {
        let location = try PostgreSQLLocation(url: url)
        guard let files = location.files else {
            throw .invalidResource(
                "\(location.description) names no place for the library's files: add &files=/path (a folder every node reaches) or &files=s3://bucket/prefix"
            )
        }
        let bundle = LibraryBundle(url: files.localFolder)
        if case .objectStorage = files, !configuration.readOnly {
            // This node's folder: made here, whatever the library is.
            try? FileManager.default.createDirectory(at: bundle.url, withIntermediateDirectories: true)
        }
        let readOnly = configuration.readOnly || !SQLiteMetadataStore.isWritable(bundle)
        if !readOnly {
            do { try bundle.createLayout() } catch { throw .accessRestricted("cannot write \(bundle.url.path): \(error)") }
        }
        let metadata = try PostgreSQLMetadataStore.open(url: url, creating: configuration.createIfMissing && !configuration.readOnly)
        return try finishOpening(bundle: bundle, metadata: metadata, readOnly: readOnly, configuration: configuration, files: files)
    }

    /// Whether there is a library at `url` (a folder, or a library's schema on its server), for tools that must not
    /// make one where a typo points. An unreachable server throws rather than answering no.
    package static func libraryExists(at url: URL) throws(LibraryError) -> Bool {
        if PostgreSQLLocation.handles(url) { return try PostgreSQLMetadataStore.libraryExists(url: url) }
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: LibraryBundle(url: url).url.path, isDirectory: &isFolder) && isFolder.boolValue
    }

    /// How messages name the library at `url`: its folder's path, or its server address without a password.
    package static func describe(_ url: URL) -> String {
        if PostgreSQLLocation.handles(url), let location = try? PostgreSQLLocation(url: url) { return location.description }
        return url.isFileURL ? url.path : "the library's address"
    }

    /// Removes a library and everything in it: its folder, or its schema and its files folder on a server, and its
    /// objects in object storage (first: a failure leaves the library there to try again).
    package static func removeLibrary(at url: URL) throws(LibraryError) {
        if PostgreSQLLocation.handles(url) {
            let location = try PostgreSQLLocation(url: url)
            try location.files?.removeStoredFiles()
            try PostgreSQLMetadataStore.removeLibrary(url: url)
        } else {
            let (folder, given, _) = try folderAndFiles(url)
            var readOnly = LibraryConfiguration()
            readOnly.readOnly = true
            readOnly.createIfMissing = false
            if let given {
                try given.removeStoredFiles()
            } else if let store = (try? open(at: folder, configuration: readOnly))?.blobs as? S3BlobStore {
                // Files in object storage, as the library records.
                try FilesLocation.objectStorage(store.location, local: folder, cacheSize: nil).removeStoredFiles()
            }
            try? FileManager.default.removeItem(at: folder)
        }
    }

    private static func finishOpening(
        bundle: LibraryBundle, metadata: any MetadataStore, readOnly: Bool, configuration: LibraryConfiguration, files: FilesLocation?
    ) throws(LibraryError) -> LibraryEngine {
        let retentionDays: Double =
            (try? metadata.read { db in
                try String.fetchOne(db, sql: "SELECT value FROM library_info WHERE key = 'trash_retention_days'")
            }).flatMap { $0.flatMap(Double.init) } ?? 30
        let files = try recordedFiles(files, metadata: metadata, bundle: bundle, readOnly: readOnly)
        let engine = LibraryEngine(
            bundle: bundle, metadata: metadata, readOnly: readOnly, configuration: configuration,
            trashRetention: configuration.trashRetention ?? retentionDays * 86_400,
            blobs: files.blobStore(bundle: bundle, locks: metadata.ownerLocks, cacheSize: configuration.cacheSize))
        if !readOnly {
            try engine.recoverInterruptedTransactions()
            try engine.purgeExpiredTrash()
            try engine.compactChangeHistory()
        }
        return engine
    }

    private init(
        bundle: LibraryBundle, metadata: any MetadataStore, reader: (any MetadataReader)? = nil, readOnly: Bool,
        configuration: LibraryConfiguration, trashRetention: TimeInterval, blobs: any BlobStore, changeCenter: ChangeCenter? = nil,
        slots: WriterSlots? = nil
    ) {
        self.bundle = bundle
        self.blobs = blobs
        self.metadata = metadata
        self.reader = reader ?? metadata
        self.isReadOnly = readOnly
        self.configuration = configuration
        self.trashRetention = trashRetention
        let slots = slots ?? WriterSlots(writers: bundle.writersURL, locks: metadata.ownerLocks)
        self.slots = slots
        self.stager = FileStager(bundle: bundle, slots: slots)
        self.changeCenter =
            changeCenter
            ?? ChangeCenter(
                metadata: metadata, pollInterval: configuration.changePollInterval, watchedPollInterval: configuration.watchedChangePollInterval)
    }

    /// A read-only view of this library whose reads all see `state` (a snapshot of one moment in its history):
    /// what change details are computed against.
    package func pinned(to state: any MetadataReader) -> LibraryEngine {
        LibraryEngine(
            bundle: bundle, metadata: metadata, reader: state, readOnly: true, configuration: configuration,
            trashRetention: trashRetention, blobs: blobs, changeCenter: changeCenter, slots: slots)
    }

    /// Where the library's files are: as the address says, checked against what the library records (an object store
    /// is recorded when the library takes its first file there; an address that names other storage is refused —
    /// every file would seem missing), or as recorded when the address does not say (a library folder opened by its
    /// path).
    private static func recordedFiles(
        _ given: FilesLocation?, metadata: any MetadataStore, bundle: LibraryBundle, readOnly: Bool
    ) throws(LibraryError) -> FilesLocation {
        let recorded: String?
        do {
            recorded = try metadata.read { db in try String.fetchOne(db, sql: "SELECT value FROM library_info WHERE key = 'files'") }
        } catch let error as LibraryError { throw error } catch { throw .internalError("cannot read where the files are: \(error)") }
        let given = given ?? .folder(bundle.url)
        guard given.recorded != recorded else { return given }
        if let recorded, given.recorded == nil {
            // A library folder opened by its path: its files are where it says.
            if case .folder(let url) = given, url == bundle.url, S3Location.handles(recorded) {
                return try FilesLocation(recorded, cache: bundle.url.path, libraryName: bundle.url.lastPathComponent)
            }
            throw .invalidResource("this library's files are in \(recorded): its address must say files=\(recorded)")
        }
        if let recorded {
            throw .invalidResource("this library's files are in \(recorded), not \(given.recorded ?? "")")
        }
        // Recorded now, unless the library already has files elsewhere (`photos library copy` moves them).
        guard !readOnly, let wanted = given.recorded else { return given }
        do {
            try metadata.write { db in
                guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM resource)") != true else {
                    throw LibraryError.invalidResource(
                        "this library's files are in its folder, not \(wanted): photos library copy makes a library that keeps them there")
                }
                try db.execute(sql: "INSERT INTO library_info (key, value) VALUES ('files', ?)", arguments: [wanted])
            }
        } catch let error as LibraryError { throw error } catch { throw .internalError("cannot record where the files are: \(error)") }
        return given
    }

    /// Removes what the transactions of writers that died left behind — staged files, and placed files no row
    /// references — touching only slots whose lock nobody holds (see ``WriterSlot``), and the partial uploads of
    /// servers that died (see ``ProcessFolder``). Transactions and uploads of live processes, in this process or any
    /// other, are left alone.
    @discardableResult
    package func recoverInterruptedTransactions() throws(LibraryError) -> [String] {
        let isReferenced = { (path: String) throws -> Bool in try self.isCommitted(path) }
        do {
            // While no writer is in a transaction: a writer whose lock died (its host lost the database for a while)
            // is refused at its next commit (see `OwnerLocks`), and one that committed before is seen here.
            return try metadata.whileNoWriterCommits {
                try bundle.sweepAbandonedSlots(locks: metadata.ownerLocks, isReferenced: isReferenced)
                    + bundle.sweepLegacyStaging(isReferenced: isReferenced)
                    + bundle.sweepAbandonedProcessFolders(in: bundle.uploadsURL, locks: metadata.ownerLocks)
            }
        } catch let error as LibraryError {
            throw error
        } catch {
            throw .internalError("cannot sweep the staging folder: \(error)")
        }
    }

    /// Settles the intent journals of a transaction whose commit has no known outcome: each listed path that no
    /// committed row references is removed, then the journal. A journal that cannot be settled now (the database does
    /// not answer) stays in this engine's slot, for the recovery that follows this process.
    func resolveIntents(_ journals: [URL]) {
        for journal in journals { _ = try? bundle.replayIntent(journal, isReferenced: { try self.isCommitted($0) }) }
    }

    /// Whether a committed row names the stored file `path` (what an intent journal's paths are checked against).
    private func isCommitted(_ path: String) throws -> Bool {
        try metadata.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM resource WHERE path = ?)", arguments: [path]) ?? false
        }
    }

    /// A library-wide setting from `library_info`.
    package func setting(_ key: String) -> String? {
        try? metadata.read { db in try String.fetchOne(db, sql: "SELECT value FROM library_info WHERE key = ?", arguments: [key]) }
    }

    package func setSetting(_ key: String, _ value: String) throws(LibraryError) {
        try write("change settings") { db in
            try db.execute(
                sql: "INSERT INTO library_info (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                arguments: [key, value])
        }
    }

    // MARK: - Metadata access with typed errors

    @discardableResult
    package func read<T>(_ body: (any SQLConnection) throws -> T) throws(LibraryError) -> T {
        do { return try reader.read(body) } catch let error as LibraryError { throw error } catch {
            throw .internalError("database read failed: \(error)")
        }
    }

    @discardableResult
    package func write<T>(_ operation: String, _ body: (any SQLConnection) throws -> T) throws(LibraryError) -> T {
        if isReadOnly { throw .accessRestricted("the library is read-only: \(operation) is not allowed") }
        do { return try metadata.write(body) } catch let error as LibraryError { throw error } catch {
            throw .internalError("\(operation) failed: \(error)")
        }
    }
}
