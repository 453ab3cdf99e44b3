import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The blob store of a library folder: each blob a file under the bundle (`originals/`, `resources/`), resolved by
/// ``LibraryBundle`` so that a key from a damaged or crafted database row never leads outside it.
package struct FolderBlobStore: BlobStore {
    package let bundle: LibraryBundle
    /// Who owns the upload and editing areas (the metadata store's ``OwnerLocks``).
    package let locks: any OwnerLocks

    package init(bundle: LibraryBundle, locks: any OwnerLocks = FileOwnerLocks()) {
        self.bundle = bundle
        self.locks = locks
    }

    /// Each blob is the file at its path: two resources of the same bytes are two files.
    package var sharesContent: Bool { false }

    package func storedName(of key: BlobKey) -> String { key.path }

    package func size(of key: BlobKey) throws(LibraryError) -> Int64 {
        let file = try bundle.resolveExisting(key.path)
        var info = stat()
        guard stat(file.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw .missingResource("the stored file \(key) is missing")
        }
        return Int64(info.st_size)
    }

    package func open(_ key: BlobKey) throws(LibraryError) -> any BlobReader {
        try FileBlobReader(file: try bundle.resolveExisting(key.path), key: key.path)
    }

    package func readSmall(_ key: BlobKey, limit: Int) -> Data? {
        bundle.readSmallFile(key.path, limit: limit)
    }

    package func materialize(_ key: BlobKey) throws(LibraryError) -> URL {
        let file = try bundle.resolveExisting(key.path)
        var info = stat()
        guard stat(file.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw .missingResource("the stored file \(key.path) is missing")
        }
        return file
    }

    package func derivative(assetUUID: String, name: String) -> Data? {
        guard let folder = bundle.derivativesURL(assetUUID: assetUUID), Self.isPlainName(name) else { return nil }
        return try? Data(contentsOf: folder.appendingPathComponent(name), options: .mappedIfSafe)
    }

    package func storeDerivative(_ data: Data, assetUUID: String, name: String) {
        guard let folder = bundle.derivativesURL(assetUUID: assetUUID), Self.isPlainName(name) else { return }
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let temporary = folder.appendingPathComponent(".\(UUID().uuidString).partial")
        // rename(2) replaces the target atomically: a reader sees the old derivative or the new one, never none.
        do {
            try data.write(to: temporary)
            if rename(temporary.path, folder.appendingPathComponent(name).path) != 0 { unlink(temporary.path) }
        } catch {
            unlink(temporary.path)
        }
    }

    package func derivativeFile(assetUUID: String, name: String) -> StoredDerivative? {
        guard let folder = bundle.derivativesURL(assetUUID: assetUUID), Self.isPlainName(name) else { return nil }
        let file = folder.appendingPathComponent(name)
        var info = stat()
        guard stat(file.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return StoredDerivative(size: Int64(info.st_size), tag: "\(info.st_ino)-\(info.st_mtim.tv_sec)", file: file)
    }

    package func readDerivative(assetUUID: String, name: String, offset: Int64, count: Int) throws(LibraryError) -> Data {
        guard let stored = derivativeFile(assetUUID: assetUUID, name: name), let file = stored.file else {
            throw .missingResource("the rendering \(name) is gone")
        }
        return try FileBlobReader(file: file, key: name).read(at: offset, count: count)
    }

    package func storeDerivativeFile(_ file: URL, assetUUID: String, name: String) throws(LibraryError) {
        defer { unlink(file.path) }
        guard let folder = bundle.derivativesURL(assetUUID: assetUUID), Self.isPlainName(name) else {
            throw .internalError("\(name) is not a rendering's name")
        }
        guard derivativeFile(assetUUID: assetUUID, name: name) == nil else { return }
        do { try POSIXFiles.createDirectory(folder) } catch { throw .internalError("cannot create the folder of \(name): \(error)") }
        // Linked into its place: link(2) refuses a name that is taken, so a rendering stored meanwhile by another
        // worker stays, and a reader never sees part of one. From another file system, copied beside it first.
        // Durable before it has its name: a rendering cut short by a crash must not be served as whole.
        let descriptor = Glibc.open(file.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0, fsync(descriptor) == 0 else {
            if descriptor >= 0 { close(descriptor) }
            throw .internalError("cannot keep the rendering \(name): \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        let destination = folder.appendingPathComponent(name).path
        if link(file.path, destination) == 0 || errno == EEXIST { return }
        guard errno == EXDEV else { throw .internalError("cannot keep the rendering \(name): \(String(cString: strerror(errno)))") }
        let temporary = folder.appendingPathComponent(".\(UUID().uuidString).partial")
        defer { unlink(temporary.path) }
        do { try FileManager.default.copyItem(at: file, to: temporary) } catch { throw .internalError("cannot keep the rendering \(name): \(error)") }
        if link(temporary.path, destination) != 0, errno != EEXIST {
            throw .internalError("cannot keep the rendering \(name): \(String(cString: strerror(errno)))")
        }
    }

    package func put(_ blobs: [(source: BlobSource, key: BlobKey)], placed: inout [BlobKey]) throws(LibraryError) {
        var folders = Set<URL>()
        for (source, key) in blobs {
            let destination = try bundle.resolve(key.path)
            let folder = destination.deletingLastPathComponent()
            do { try POSIXFiles.createDirectory(folder) } catch { throw .internalError("cannot create the folder of \(key): \(error)") }
            switch source {
            case .staged(let file):
                // rename(2) replaces an orphan left at the key by a writer that died.
                guard rename(file.path, destination.path) == 0 else { throw POSIXFiles.posixError("rename to \(key)") }
            case .stored(let existing):
                let from = try bundle.resolveExisting(existing.path)
                unlink(destination.path)  // an orphan of a writer that died (never a referenced file: versions only grow)
                guard link(from.path, destination.path) == 0 else { throw POSIXFiles.posixError("link \(existing) to \(key)") }
            }
            placed.append(key)
            folders.insert(folder)
        }
        // The new names reach the disk before the rows that name them: one fsync per folder.
        for folder in folders { POSIXFiles.syncDirectory(folder) }
    }

    package func digest(of key: BlobKey) throws(LibraryError) -> (size: Int64, sha256: String) {
        let file = try bundle.resolveExisting(key.path)
        guard FileManager.default.fileExists(atPath: file.path) else { throw .missingResource("the stored file \(key) is missing") }
        let (size, sha256) = try FileStager.hashFile(file)
        return (size, sha256)
    }

    package func storedBlobs() throws(LibraryError) -> [StoredBlob] {
        let originals = bundle.originalsURL.standardizedFileURL.path
        let keys: [URLResourceKey] = [.isRegularFileKey, .contentModificationDateKey]
        guard let enumerator = FileManager.default.enumerator(at: bundle.originalsURL, includingPropertiesForKeys: keys) else { return [] }
        var blobs: [StoredBlob] = []
        for case let url as URL in enumerator {
            guard let values = try? url.resourceValues(forKeys: Set(keys)), values.isRegularFile == true else { continue }
            let name = "originals/" + url.standardizedFileURL.path.dropFirst(originals.count + 1)
            blobs.append(StoredBlob(name: name, key: BlobKey(path: name, sha256: ""), modified: values.contentModificationDate))
        }
        return blobs
    }

    package func abandonedUploadAreas() -> [String] {
        bundle.abandonedProcessFolders(in: bundle.uploadsURL, locks: locks).map { String($0.path.dropFirst(bundle.url.path.count + 1)) }
    }

    package func remove(_ key: BlobKey) {
        if let file = try? bundle.resolveExisting(key.path) { try? FileManager.default.removeItem(at: file) }
    }

    package func removeDerivatives(assetUUID: String, prefix: String?) {
        guard let folder = bundle.derivativesURL(assetUUID: assetUUID) else { return }
        guard let prefix else {
            try? FileManager.default.removeItem(at: folder)
            return
        }
        guard !prefix.isEmpty, let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(prefix) { try? FileManager.default.removeItem(at: folder.appendingPathComponent(name)) }
    }

    package func makeUploadArea(label: String) throws(LibraryError) -> ProcessFolder {
        try ProcessFolder(in: bundle.uploadsURL, label: label, locks: locks)
    }

    /// A derivative's name is one path component of safe characters.
    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix(".") && !name.contains("/") && name.utf8.count < 200
    }
}

/// A stored file held open for reading (`pread`, so readers on several threads never share a position).
final class FileBlobReader: BlobReader {
    let size: Int64
    private let fd: Int32
    private let key: String

    init(file: URL, key: String) throws(LibraryError) {
        fd = Foundation.open(file.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw .missingResource("the stored file \(key) cannot be opened: \(String(cString: strerror(errno)))") }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw .missingResource("the stored file \(key) is not a plain file")
        }
        size = Int64(info.st_size)
        self.key = key
    }

    deinit { close(fd) }

    func read(at offset: Int64, count: Int) throws(LibraryError) -> Data {
        guard count > 0, offset >= 0 else { return Data() }
        var data = Data(count: count)
        var done = 0
        var failure: Int32 = 0
        data.withUnsafeMutableBytes { buffer in
            while done < count {
                let n = pread(fd, buffer.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                if n < 0, errno == EINTR { continue }
                if n < 0 { failure = errno }
                if n <= 0 { break }
                done += n
            }
        }
        if failure != 0 {
            errno = failure
            throw POSIXFiles.posixError("read \(key)")
        }
        data.count = done
        return data
    }
}
