import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// The renderings a served library's images come as (`GET /v1/assets/{id}/image`), kept on this machine's disk:
/// PhotoKit's "in the cloud" made literal — what is here answers without the network; the rest downloads when
/// network access is allowed.
///
/// Bounded (``limit`` bytes; the least recently used files go first), one folder per server and client under
/// `$XDG_CACHE_HOME/openphotokit/remote` (else `~/.cache/…`). A rendering's name says the asset, its content version,
/// the size and the mode, so an edit (a new content version) never meets an older version's pixels. Files are
/// written whole to a temporary name and renamed: a reader never sees half of one.
package final class RemoteImageCache: Sendable {
    package let folder: URL
    package let limit: Int64
    private struct State {
        var loaded = false
        var sizes: [String: Int64] = [:]
        var used: [String: UInt64] = [:]
        var total: Int64 = 0
        var clock: UInt64 = 0
    }
    private let state = Mutex(State())

    package init(folder: URL, limit: Int64) {
        self.folder = folder
        self.limit = limit
    }

    /// The folder of a server's renderings for a client (`$PHOTOS_REMOTE_CACHE` overrides the root).
    static func folder(baseURL: String, client: String) -> URL {
        let environment = ProcessInfo.processInfo.environment
        let root: URL
        if let path = environment["PHOTOS_REMOTE_CACHE"], !path.isEmpty {
            root = URL(fileURLWithPath: path)
        } else if let cache = environment["XDG_CACHE_HOME"], !cache.isEmpty {
            root = URL(fileURLWithPath: cache).appendingPathComponent("openphotokit/remote")
        } else {
            root = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/openphotokit/remote")
        }
        let digest = SHA256.hash(data: Data("\(baseURL)\n\(client)".utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
        return root.appendingPathComponent(digest)
    }

    private func loadIfNeeded(_ state: inout State) {
        guard !state.loaded else { return }
        state.loaded = true
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: keys)) ?? []
        for file in files.sorted(by: {
            ((try? $0.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate) ?? .distantPast)
                < ((try? $1.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate) ?? .distantPast)
        }) {
            let name = file.lastPathComponent
            guard name.hasSuffix(".img"), let size = try? file.resourceValues(forKeys: [.fileSizeKey]).fileSize else {
                if name.hasPrefix(".tmp-") { try? FileManager.default.removeItem(at: file) }
                continue
            }
            state.clock += 1
            state.sizes[name] = Int64(size)
            state.used[name] = state.clock
            state.total += Int64(size)
        }
    }

    /// The bytes of a rendering, if they are here.
    package func read(_ name: String) -> Data? {
        guard let url = path(of: name) else { return nil }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            forget(name)
            return nil
        }
        return data
    }

    /// Whether a rendering is here (nothing read).
    package func contains(_ name: String) -> Bool {
        state.withLock { state in
            loadIfNeeded(&state)
            return state.sizes[name] != nil
        }
    }

    /// The renderings here whose names begin with `prefix` (an asset's content version).
    package func names(withPrefix prefix: String) -> [String] {
        state.withLock { state in
            loadIfNeeded(&state)
            return state.sizes.keys.filter { $0.hasPrefix(prefix) }
        }
    }

    /// Keeps a rendering, then removes the least recently used ones past the limit.
    package func store(_ data: Data, as name: String) {
        let temporary = temporaryFile()
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]) else { return }
        _ = keep(temporary, as: name)
    }

    /// The path of a file kept here (marked as just used), if it is here.
    package func path(of name: String) -> URL? {
        let known = state.withLock { state -> Bool in
            loadIfNeeded(&state)
            guard state.sizes[name] != nil else { return false }
            state.clock += 1
            state.used[name] = state.clock
            return true
        }
        guard known else { return nil }
        let url = folder.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            forget(name)
            return nil
        }
        return url
    }

    /// A new file in the cache's folder to download into (``keep(_:as:)`` takes it, or remove it).
    package func temporaryFile() -> URL {
        state.withLock { loadIfNeeded(&$0) }
        return folder.appendingPathComponent(".tmp-\(UUID().uuidString)")
    }

    /// Keeps a file written to ``temporaryFile()`` under `name` (renamed, not copied), then removes the least
    /// recently used files past the limit — never the one just kept, which a reader is about to open.
    package func keep(_ file: URL, as name: String) -> URL? {
        let target = folder.appendingPathComponent(name)
        guard let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value,
            rename(file.path, target.path) == 0
        else {
            try? FileManager.default.removeItem(at: file)
            return nil
        }
        let evicted = state.withLock { state -> [String] in
            state.total += size - (state.sizes[name] ?? 0)
            state.sizes[name] = size
            state.clock += 1
            state.used[name] = state.clock
            var evicted: [String] = []
            guard state.total > limit else { return evicted }
            for (old, _) in state.used.sorted(by: { $0.value < $1.value }) where old != name {
                guard state.total > limit else { break }
                state.total -= state.sizes.removeValue(forKey: old) ?? 0
                state.used[old] = nil
                evicted.append(old)
            }
            return evicted
        }
        for old in evicted { try? FileManager.default.removeItem(at: folder.appendingPathComponent(old)) }
        return target
    }

    private func forget(_ name: String) {
        state.withLock { state in
            state.total -= state.sizes.removeValue(forKey: name) ?? 0
            state.used[name] = nil
        }
    }

    /// Bytes held.
    package var byteCount: Int64 { state.withLock { $0.total } }
}

extension RemoteLibrary {
    /// One image request of a served asset: its rendering's parameters.
    package struct ImageRequest: Sendable, Hashable {
        package var localIdentifier: String
        package var contentVersion: Int
        package var width: Int
        package var height: Int
        /// `fit` or `fill`.
        package var mode: String
        /// `current`, `unadjusted` or `original`.
        package var version: String
        /// Which original of a RAW + JPEG pair the asset shows (`originalResourceChoice`: 0 the JPEG, 1 the RAW).
        package var originalChoice: Int
        /// The part of the image (`normalizedCropRect`: x, y, width, height in unit coordinates), as the `crop`
        /// parameter sends it; nil for all of it.
        package var crop: String?

        package init(
            localIdentifier: String, contentVersion: Int, originalChoice: Int, width: Int, height: Int, mode: String, version: String,
            crop: [Double]? = nil
        ) {
            (self.localIdentifier, self.contentVersion, self.originalChoice, self.width, self.height, self.mode, self.version) = (
                localIdentifier, contentVersion, originalChoice, width, height, mode, version
            )
            self.crop = crop.map { $0.map { String($0) }.joined(separator: ",") }
        }

        /// The prefix of every rendering of this asset's content version (and choice of original, and crop: a
        /// smaller rendering of another part is never a degraded image of this one).
        package var prefix: String {
            let digest = SHA256.hash(data: Data(localIdentifier.utf8)).prefix(10).map { String(format: "%02x", $0) }.joined()
            return "\(digest)-\(contentVersion)-\(originalChoice)-\(version)-" + (crop.map { "c\($0)-" } ?? "")
        }
        /// The rendering's name in the cache.
        package var name: String { "\(prefix)\(width)x\(height)-\(mode).img" }
    }

    /// The on-disk cache of this library's renderings (256 MiB unless `$PHOTOS_REMOTE_CACHE_MB` says otherwise).
    package var imageCache: RemoteImageCache { imageCacheStorage }

    /// The encoded rendering (JPEG) a request asks for: from the cache, else — when `allowNetwork` — downloaded
    /// (`progress` told 0…1 as it comes; returning false stops it) and kept.
    /// - throws: ``LibraryError/networkAccessRequired(_:)`` when it is not here and the network may not be used;
    ///   the server's error, or `networkError`, when the download fails.
    package func image(_ request: ImageRequest, allowNetwork: Bool, progress: (@Sendable (Double) -> Bool)? = nil) throws(LibraryError) -> Data {
        if let data = imageCache.read(request.name) { return data }
        guard allowNetwork else {
            throw .networkAccessRequired("the image of \(request.localIdentifier) is on the server (allow network access to download it)")
        }
        let id = request.localIdentifier.replacingOccurrences(of: "/", with: "_")
        let query =
            [
                URLQueryItem(name: "size", value: "\(request.width)x\(request.height)"), URLQueryItem(name: "mode", value: request.mode),
                URLQueryItem(name: "version", value: request.version), URLQueryItem(name: "v", value: String(request.contentVersion)),
            ] + (request.crop.map { [URLQueryItem(name: "crop", value: $0)] } ?? [])
        var prepared = makeRequest(.GET, "/v1/assets/\(id)/image", query: query)
        prepared.headers.replaceOrAdd(name: "Accept", value: "image/jpeg")
        let http = prepared
        let path = "/v1/assets/\(id)/image"
        let data = try Self.run(description: "GET \(path)") {
            let response = try await Self.http.execute(http, deadline: .now() + Self.requestDeadline)
            guard response.status.code < 400 else {
                let body = try await response.body.collect(upTo: 1 << 20)
                throw Self.error(Answer(status: Int(response.status.code), headers: response.headers, body: Data(body.readableBytesView)), path: path)
            }
            let expected = response.headers.first(name: "Content-Length").flatMap(Int.init)
            var data = Data()
            if let expected, expected <= 256 << 20 { data.reserveCapacity(expected) }
            for try await buffer in response.body {
                data.append(contentsOf: buffer.readableBytesView)
                guard data.count <= 256 << 20 else { throw LibraryError.networkError("\(path) answered more than 256 MiB") }
                if let progress, let expected, expected > 0, !progress(min(1, Double(data.count) / Double(expected))) {
                    throw LibraryError.userCancelled("the download of \(request.localIdentifier)'s image was stopped")
                }
            }
            return data
        }
        imageCache.store(data, as: request.name)
        return data
    }

    /// The largest rendering here of the same asset version smaller than `request` (for a degraded image first).
    package func cachedSmallerImage(than request: ImageRequest) -> Data? {
        let prefix = request.prefix
        let best = imageCache.names(withPrefix: prefix).compactMap { name -> (String, Int)? in
            let size = name.dropFirst(prefix.count).prefix { $0 != "-" }.split(separator: "x").compactMap { Int($0) }
            guard size.count == 2, size[0] * size[1] < request.width * request.height else { return nil }
            return (name, size[0] * size[1])
        }.max { $0.1 < $1.1 }
        return best.flatMap { imageCache.read($0.0) }
    }
}

extension RemoteLibrary {
    /// A stored file of the server (an original, a rendering, a video) on this machine: from the cache when it is
    /// here, else downloaded by ranges into it — only when `allowNetwork` (PhotoKit's `isNetworkAccessAllowed`:
    /// the library is "in the cloud"). Files are named by their SHA-256, so an edit's new file is never an old one.
    /// - throws: `networkAccessRequired` when it is not here and the network is not allowed; `networkError`,
    ///   `userCancelled` (`progress` answered false).
    package func localCopy(of record: ResourceRecord, allowNetwork: Bool, progress: (@Sendable (Double) -> Bool)? = nil) throws(LibraryError) -> URL {
        let name = Self.localCopyName(record)
        if let url = imageCache.path(of: name) { return url }
        guard allowNetwork else {
            throw .networkAccessRequired(
                "\(record.originalFilename) of \(record.assetLocalIdentifier) is on the server: allow network access to download it")
        }
        let temporary = imageCache.temporaryFile()
        do { try download(record, to: temporary, progress: progress) } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        guard let url = imageCache.keep(temporary, as: name) else { throw .internalError("cannot keep the download of \(record.originalFilename)") }
        return url
    }

    /// Whether a stored file of the server is on this machine.
    package func hasLocalCopy(of record: ResourceRecord) -> Bool {
        imageCache.contains(Self.localCopyName(record))
    }

    /// A stored file's name in the cache: its digest and size (the resource's row when the server knows no digest).
    static func localCopyName(_ record: ResourceRecord) -> String {
        let digest = record.sha256.filter(\.isHexDigit).prefix(64)
        return digest.count == 64 ? "\(digest)-\(record.fileSize).file.img" : "resource-\(record.id)-\(record.fileSize).file.img"
    }
}
