import Foundation
import ObjectStorage

/// Where a library's files are, as its address says (`files=`): a folder every process of the library reaches, or
/// S3-compatible object storage (`s3://bucket/prefix`, endpoint and credentials as the AWS SDKs find them: see
/// `S3Location`). For object storage, each node keeps its own files — copies of blobs it used, derivatives, uploads
/// in progress — in a local folder: `cache=/path`, else `$XDG_CACHE_HOME/openphotokit/…` (`~/.cache/…`); its copies
/// of blobs are bounded by `cache_size=` (`20G`, `512M`; else the configuration's).
package enum FilesLocation: Sendable {
    case folder(URL)
    case objectStorage(S3Location, local: URL, cacheSize: Int64?)

    /// The location `files` names; `cache`, `cacheSize` and `libraryName` decide the local folder of object storage.
    package init(_ files: String, cache: String?, cacheSize: String? = nil, libraryName: String) throws(LibraryError) {
        guard S3Location.handles(files) else {
            self = .folder(URL(fileURLWithPath: files, isDirectory: true))
            return
        }
        let location: S3Location
        do { location = try S3Location(files) } catch { throw .invalidResource(error.description) }
        let local: URL
        if let cache, !cache.isEmpty {
            local = URL(fileURLWithPath: cache, isDirectory: true)
        } else {
            let environment = ProcessInfo.processInfo.environment
            let base =
                environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
                ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
            let safe = String(libraryName.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" })
            local = base.appendingPathComponent("openphotokit/\(safe)", isDirectory: true)
        }
        self = .objectStorage(location, local: local, cacheSize: try cacheSize.map(Self.bytes))
    }

    /// A size in bytes: a number with an optional binary unit (`K`, `M`, `G`, `T`; `KB`, `KiB` … alike).
    package static func bytes(_ text: String) throws(LibraryError) -> Int64 {
        let trimmed = text.trimmingCharacters(in: .whitespaces).uppercased()
        let digits = trimmed.prefix { $0.isNumber || $0 == "." }
        let unit = trimmed.dropFirst(digits.count).replacingOccurrences(of: "IB", with: "").replacingOccurrences(of: "B", with: "")
        let shifts: [String: Int64] = ["": 0, "K": 10, "M": 20, "G": 30, "T": 40]
        guard let value = Double(digits), value >= 0, let shift = shifts[unit], value * Double(Int64(1) << shift) < 9e18 else {
            throw .invalidResource("cache_size \(text.debugDescription) is a size such as 512M or 20G")
        }
        return Int64(value * Double(Int64(1) << shift))
    }

    /// The folder whose layout the library's local files follow (``LibraryBundle``): the files folder itself, or
    /// this node's folder of an object store.
    package var localFolder: URL {
        switch self {
        case .folder(let url): return url
        case .objectStorage(_, let local, _): return local
        }
    }

    /// What the library records of it (`library_info.files`), to refuse an address that names other storage: an
    /// object store's bucket and prefix. A folder is recorded as nothing (each node may mount it elsewhere).
    package var recorded: String? {
        switch self {
        case .folder: return nil
        case .objectStorage(let location, _, _): return "s3://\(location.bucket)/\(location.prefix)"
        }
    }

    /// Removes every file of the library here: the folder, or this node's folder and every object under the
    /// prefix's `sha256/` (the library's blobs; nothing else under the prefix).
    package func removeStoredFiles() throws(LibraryError) {
        switch self {
        case .folder(let url):
            try? FileManager.default.removeItem(at: url)
        case .objectStorage(let location, let local, _):
            let client = location.client(http: S3EventLoops.http)
            let prefix = location.key("sha256/")
            do {
                try S3EventLoops.run {
                    for object in try await client.list(prefix: prefix) { try await client.delete(key: object.key) }
                }
            } catch {
                throw .networkError("cannot remove the library's files from \(location.description): \(error)")
            }
            try? FileManager.default.removeItem(at: local)
        }
    }

    /// The blob store of these files.
    func blobStore(bundle: LibraryBundle, locks: any OwnerLocks, cacheSize: Int64) -> any BlobStore {
        let folder = FolderBlobStore(bundle: bundle, locks: locks)
        switch self {
        case .folder: return folder
        case .objectStorage(let location, _, let size): return S3BlobStore(location: location, local: folder, cacheSize: size ?? cacheSize)
        }
    }
}
