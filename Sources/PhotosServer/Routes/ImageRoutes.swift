import Foundation
import Crypto
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OpenPhotos

/// The parameters of an image request (`size`, `mode`, `version`, `format`, `crop`; `v` and `o` are the client's
/// cache keys and are ignored), validated, with the key its resolution is cached under.
struct ImageRequest {
    static let parameters: Set<String> = ["size", "mode", "version", "format", "crop", "v", "o"]
    static let versions: [String: PHImageRequestOptionsVersion] = ["current": .current, "unadjusted": .unadjusted, "original": .original]
    static let formats: [String: String] = ["jpeg": "image/jpeg", "webp": "image/webp"]

    var width: Int
    var height: Int
    var mode: String
    var versionName: String
    var version: PHImageRequestOptionsVersion
    var formatName: String
    /// The format's content type.
    var format: String
    /// The part of the image (PhotoKit's `normalizedCropRect`: unit coordinates of the oriented image), `.zero`
    /// for all of it; `cropName` is its text as asked (`x,y,width,height`), empty for all of it.
    var crop: CGRect = .zero
    var cropName = ""

    init(_ parameter: (String) -> String?) throws {
        (width, height) = try Self.size(parameter("size") ?? "256x256")
        mode = parameter("mode") ?? "fit"
        guard mode == "fit" || mode == "fill" else { throw APIError.badRequest("mode is fit or fill") }
        versionName = parameter("version") ?? "current"
        guard let version = Self.versions[versionName] else { throw APIError.badRequest("version is current, unadjusted or original") }
        self.version = version
        formatName = parameter("format") ?? "jpeg"
        guard let format = Self.formats[formatName] else { throw APIError.badRequest("format is jpeg or webp") }
        self.format = format
        if let text = parameter("crop") {
            let values = text.split(separator: ",", omittingEmptySubsequences: false).compactMap { Double($0) }
            guard values.count == 4, values.allSatisfy(\.isFinite), values[2] > 0, values[3] > 0, values[0] >= 0, values[1] >= 0,
                values[0] + values[2] <= 1.000_001, values[1] + values[3] <= 1.000_001
            else { throw APIError.badRequest("crop is x,y,width,height inside the unit square (0,0 the top left corner)") }
            crop = CGRect(x: values[0], y: values[1], width: values[2], height: values[3])
            cropName = values.map { String($0) }.joined(separator: ",")
        }
    }

    /// What a client's request for asset `id` (as the path gave it) resolves under, until the next commit.
    func resolutionKey(client: String, id: String) -> String {
        "\(client)|\(id)|\(versionName)|\(width)x\(height)|\(mode)|\(formatName)|\(cropName)"
    }

    /// `WxH` with each side from 1 to 8192.
    static func size(_ text: String) throws -> (Int, Int) {
        let bytes = text.utf8
        guard let cross = bytes.firstIndex(where: { $0 == UInt8(ascii: "x") || $0 == UInt8(ascii: "X") }),
            let width = Int(text[..<cross]), let height = Int(text[bytes.index(after: cross)...]), (1...8192).contains(width),
            (1...8192).contains(height)
        else { throw APIError.badRequest("size is WxH, each from 1 to 8192 (256x256)") }
        return (width, height)
    }
}

/// `/v1/assets/{id}/image` (PhotoKit's image requests: target size, content mode, version) and the files
/// themselves, `/v1/assets/{id}/resources/{type}`, with byte ranges for video seeking.
///
/// Images have strong ETags made of the version's content hash and the request's parameters, and are
/// `immutable`: an edit changes the version's hash, so a cached image is never stale, and a client revalidating
/// gets 304 without anything being decoded.
struct ImageRoutes {
    let services: ServerServices

    func register(on group: RouterGroup<PhotosRequestContext>) {
        group.get("assets/:id/image") { request, context in try await image(request, context: context) }
        group.get("assets/:id/resources/:type") { request, context in try await resource(request, context: context) }
        group.get("assets/:id/video") { request, context in try await video(request, context: context) }
    }

    func image(_ request: Request, context: PhotosRequestContext) async throws -> Response {
        let session = try context.client()
        let id = try context.parameters.require("id")
        // `v` is the client's cache key for the URL (the gallery sends the adjustment time): an `immutable` image
        // must change URL when the asset is edited; the server ignores it (the ETag is what it checks).
        let query = try Query(request, allowed: ImageRequest.parameters)
        let image = try ImageRequest { query[$0] }
        let (width, height, mode, version, versionName, formatName, format) = (
            image.width, image.height, image.mode, image.version, image.versionName, image.formatName, image.format
        )

        // Fast path: this client made this request since the last commit, and its rendering is cached: the ETag and
        // headers are reused as they were built, and the bytes are looked up by the ETag. (Most such requests are
        // answered before they reach the router, by ``CachedImageHandler``; this one serves the router's tests and
        // requests that came while another was in flight on the same connection.)
        let resolutionKey = image.resolutionKey(client: session.identifier, id: id)
        if let resolved = services.resolved.get(resolutionKey), let response = Self.respond(request.headers, resolved, services.encodedImages) {
            return response
        }

        let asset = try await offload { try session.asset(id, includeTrashed: true) }
        guard asset.mediaType == .image || asset.mediaType == .video else {
            throw APIError(PHPhotosError(.requestNotSupportedForAsset, userInfo: [NSLocalizedDescriptionKey: "the asset has no image"]))
        }
        let resources = PHAssetResource.assetResources(for: asset)
        guard let hash = VersionHash.version(version, of: resources, rawChosen: asset.originalResourceChoice == .raw) else {
            throw APIError(PHPhotosError(.missingResource, userInfo: [NSLocalizedDescriptionKey: "the asset has no file for that version"]))
        }
        let cropTag = image.cropName.isEmpty ? "" : "-c\(image.cropName)"
        let etag = "\"\(hash.prefix(32))-\(width)x\(height)-\(mode)-\(versionName)-\(formatName)\(cropTag)\""
        let resolved = ResolvedImage(
            etag: etag,
            headers: [
                .eTag: etag, .cacheControl: "private, max-age=31536000, immutable", .vary: "Authorization, Cookie", .contentType: format,
            ])
        services.resolved.put(resolutionKey, resolved)
        if let response = Self.respond(request.headers, resolved, services.encodedImages) { return response }
        var headers = resolved.headers
        let manager = services.imageManager
        let crop = image.crop
        let data = try await offload { () throws -> Data in
            let image = try Self.render(asset, width: width, height: height, mode: mode, version: version, crop: crop, manager: manager)
            let encoded = formatName == "webp" ? image.webpData(compressionQuality: 0.8) : image.jpegData(compressionQuality: 0.85)
            guard let encoded else { throw PHPhotosError(.internalError, userInfo: [NSLocalizedDescriptionKey: "the image could not be encoded"]) }
            return encoded
        }
        let buffer = ByteBuffer(bytes: data)
        services.encodedImages.put(etag, buffer, type: format)
        headers[.contentLength] = String(buffer.readableBytes)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: buffer))
    }

    /// The rendering an image request answers with, blocking: what the background worker makes ahead of requests is
    /// made by this same call, so that both find and keep the same derivatives (``RenderingWorker``).
    static func render(
        _ asset: PHAsset, width: Int, height: Int, mode: String, version: PHImageRequestOptionsVersion, crop: CGRect = .zero,
        manager: PHImageManager
    ) throws -> UIImage {
        let options = PHImageRequestOptions()
        options.normalizedCropRect = crop
        options.isSynchronous = true
        options.deliveryMode = .highQualityFormat
        options.resizeMode = .exact
        options.version = version
        // A node fetches an original it has no copy of from the library's object storage.
        options.isNetworkAccessAllowed = true
        var result: (UIImage?, [AnyHashable: Any]?) = (nil, nil)
        manager.requestImage(
            for: asset, targetSize: CGSize(width: width, height: height), contentMode: mode == "fill" ? .aspectFill : .aspectFit,
            options: options
        ) { result = ($0, $1) }
        guard let image = result.0 else {
            throw ImageResultInfo(result.1).error
                ?? PHPhotosError(.invalidResource, userInfo: [NSLocalizedDescriptionKey: "the image could not be made"])
        }
        return image
    }

    /// A resource's bytes, whole or one byte range (`Range: bytes=…`), with its content type.
    func resource(_ request: Request, context: PhotosRequestContext) async throws -> Response {
        let session = try context.client()
        let id = try context.parameters.require("id")
        let typeName = try context.parameters.require("type")
        _ = try Query(request, allowed: [])
        // By name (`photo`), or by PHAssetResourceType raw value (`1`, as the remote PhotoKit client asks).
        guard let type = PHAssetResourceType(apiName: typeName) ?? Int(typeName).flatMap(PHAssetResourceType.init(rawValue:)) else {
            throw APIError.badRequest("unknown resource type \(typeName.debugDescription)")
        }
        let bytes = try await offload { () throws -> ServedBytes in
            let asset = try session.asset(id, includeTrashed: true)
            guard let resource = PHAssetResource.assetResources(for: asset).first(where: { $0.type == type }) else {
                throw APIError.notFound("the asset has no \(typeName) resource")
            }
            return try ServedBytes(resource, cacheControl: "private, max-age=31536000, immutable")
        }
        return try await serve(bytes, request, context: context)
    }

    /// `/v1/assets/{id}/video`: the movie a browser plays for the asset (a video's, a Live Photo's paired video, of
    /// its current version) — its web rendering (H.264 and AAC in MPEG-4) where the movie itself is not one that
    /// browsers play and the background worker has made it, else the movie itself. By ranges, as resources are. The
    /// URL answers the current version, so answers are revalidated (`no-cache`) with their strong ETag.
    func video(_ request: Request, context: PhotosRequestContext) async throws -> Response {
        let session = try context.client()
        let id = try context.parameters.require("id")
        _ = try Query(request, allowed: [])
        let bytes = try await offload { () throws -> ServedBytes in
            let asset = try session.asset(id, includeTrashed: true)
            guard let video = LibraryWebVideo(asset) else {
                throw APIError(PHPhotosError(.requestNotSupportedForAsset, userInfo: [NSLocalizedDescriptionKey: "the asset has no movie"]))
            }
            guard let rendering = video.rendering else { return try ServedBytes(video.source, cacheControl: "private, no-cache") }
            let tag = SHA256.hash(data: Data(rendering.tag.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
            let name = (video.source.originalFilename as NSString).deletingPathExtension
            return ServedBytes(
                size: rendering.size, path: rendering.fileURL?.path, read: { try video.readRendering(at: $0, count: $1) },
                headers: [
                    .eTag: "\"\(video.source.sha256.prefix(32))-web-\(tag)\"", .cacheControl: "private, no-cache", .contentType: "video/mp4",
                    .contentDisposition: Self.contentDisposition((name.isEmpty ? "video" : name) + ".mp4"),
                ])
        }
        return try await serve(bytes, request, context: context)
    }

    /// Bytes a route answers with: a local file (served without a copy) or a reader of a store (by ranges).
    struct ServedBytes: Sendable {
        var size: Int
        /// The local file, nil when the bytes are read from object storage.
        var path: String?
        /// Up to `count` bytes from an offset.
        var read: @Sendable (Int, Int) throws -> Data
        /// The validator, type, name and caching.
        var headers: HTTPFields

        init(size: Int, path: String?, read: @escaping @Sendable (Int, Int) throws -> Data, headers: HTTPFields) {
            self.size = size
            self.path = path
            self.read = read
            self.headers = headers
        }

        /// A resource's stored bytes, blocking (it may ask the store for their size).
        init(_ resource: PHAssetResource, cacheControl: String) throws {
            let typeName = resource.type.apiName
            guard let size = resource.storedSize.flatMap({ Int(exactly: $0) }) else {
                throw PHPhotosError(.missingResource, userInfo: [NSLocalizedDescriptionKey: "the \(typeName) file is missing from the library"])
            }
            // Local bytes are served from their file without a copy; bytes in object storage that this node has no
            // copy of are streamed from the store by ranges (a range of a video costs that range, not the video).
            var path: String?
            if resource.isStoredLocally {
                guard let url = resource.fileURL else {
                    throw PHPhotosError(.missingResource, userInfo: [NSLocalizedDescriptionKey: "the \(typeName) file is missing from the library"])
                }
                path = url.path
            }
            self.init(
                size: size, path: path, read: { try resource.readStored(at: Int64($0), count: $1) },
                headers: [
                    .eTag: "\"\(resource.sha256.prefix(32))\"", .cacheControl: cacheControl,
                    .contentType: resource.contentType.preferredMIMEType ?? "application/octet-stream",
                    .contentDisposition: ImageRoutes.contentDisposition(resource.originalFilename),
                ])
        }
    }

    /// Answers with `bytes`, whole or one byte range (`Range: bytes=…`, honoured when `If-Range` matches), or 304.
    func serve(_ bytes: ServedBytes, _ request: Request, context: PhotosRequestContext) async throws -> Response {
        var headers = bytes.headers
        headers[.acceptRanges] = "bytes"
        let size = bytes.size
        if let match = request.headers[.ifNoneMatch], Self.matches(match, headers[.eTag] ?? "") {
            return Response(status: .notModified, headers: headers)
        }
        let fileIO = FileIO()
        // A range in a unit other than bytes is ignored (RFC 9110 §14.2): the whole file is answered.
        if let rangeHeader = request.headers[.range], rangeHeader.lowercased().hasPrefix("bytes="),
            request.headers[.ifRange].map({ $0 == headers[.eTag] }) ?? true
        {
            guard let range = Self.byteRange(rangeHeader, size: size) else {
                headers[.contentRange] = "bytes */\(size)"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
            headers[.contentLength] = String(range.count)
            if request.method == .head { return Response(status: .partialContent, headers: headers) }
            guard let path = bytes.path else { return Response(status: .partialContent, headers: headers, body: Self.streamed(bytes.read, range)) }
            let body = try await fileIO.loadFile(path: path, range: range, context: context)
            return Response(status: .partialContent, headers: headers, body: body)
        }
        headers[.contentLength] = String(size)
        if request.method == .head { return Response(status: .ok, headers: headers) }
        guard let path = bytes.path else {
            return Response(status: .ok, headers: headers, body: size == 0 ? ResponseBody() : Self.streamed(bytes.read, 0...(size - 1)))
        }
        return Response(status: .ok, headers: headers, body: try await fileIO.loadFile(path: path, context: context))
    }

    /// A range of bytes that are not on this node, read from their store a piece at a time as the client takes it.
    static func streamed(_ read: @escaping @Sendable (Int, Int) throws -> Data, _ range: ClosedRange<Int>) -> ResponseBody {
        ResponseBody(contentLength: range.count) { writer in
            var offset = range.lowerBound
            while offset <= range.upperBound {
                let count = min(4 << 20, range.upperBound - offset + 1)
                let start = offset
                let piece = try await offload { try read(start, count) }
                guard !piece.isEmpty else { break }
                try await writer.write(ByteBuffer(bytes: piece))
                offset += piece.count
            }
            try await writer.finish(nil)
        }
    }

    /// The answer from what is known without rendering: 304 when the client has the ETag, the cached bytes when
    /// they are in memory, nil when the image must be made.
    static func respond(_ headers: HTTPFields, _ resolved: ResolvedImage, _ cache: EncodedImageCache) -> Response? {
        guard let (fields, body) = answer(headers, resolved, cache) else { return nil }
        guard let body else { return Response(status: .notModified, headers: fields) }
        return Response(status: .ok, headers: fields, body: .init(byteBuffer: body))
    }

    /// ``respond(_:_:_:)``'s headers and body (nil body: 304).
    static func answer(_ headers: HTTPFields, _ resolved: ResolvedImage, _ cache: EncodedImageCache) -> (HTTPFields, ByteBuffer?)? {
        var fields = resolved.headers
        if let match = headers[.ifNoneMatch], matches(match, resolved.etag) {
            fields[.contentType] = nil
            return (fields, nil)
        }
        guard let cached = cache.get(resolved.etag) else { return nil }
        fields[.contentLength] = String(cached.bytes.readableBytes)
        return (fields, cached.bytes)
    }

    /// `inline` with the file's name: an ASCII `filename` (other characters as `_`, quotes and backslashes dropped) and,
    /// when the name is not plain ASCII, the exact name as RFC 6266's `filename*=UTF-8''…` (percent-encoded).
    static func contentDisposition(_ name: String) -> String {
        let plain = String(
            name.unicodeScalars.compactMap { scalar -> Character? in
                if scalar == "\"" || scalar == "\\" || scalar.value < 0x20 || scalar.value == 0x7F { return nil }
                return scalar.isASCII ? Character(scalar) : "_"
            })
        guard name.unicodeScalars.contains(where: { !$0.isASCII || $0.value < 0x20 }) else { return "inline; filename=\"\(plain)\"" }
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(0x80)))
        allowed.insert(charactersIn: "!#$&+-.^_`|~")
        let encoded = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? plain
        return "inline; filename=\"\(plain)\"; filename*=UTF-8''\(encoded)"
    }

    static func matches(_ ifNoneMatch: String, _ etag: String) -> Bool {
        ifNoneMatch.trimmingOptionalWhitespace() == "*"
            || ifNoneMatch.split(separator: ",").contains { $0.trimmingOptionalWhitespace() == etag }
    }

    /// One range of `bytes=a-b`, `bytes=a-` or `bytes=-n` clamped to the file; nil when unsatisfiable. Several
    /// ranges are answered with the first (RFC 9110 lets a server ignore the others).
    static func byteRange(_ header: String, size: Int) -> ClosedRange<Int>? {
        guard header.lowercased().hasPrefix("bytes="), size > 0 else { return nil }
        let first = header.dropFirst(6).split(separator: ",").first?.trimmingOptionalWhitespace() ?? ""
        let bounds = first.split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2 else { return nil }
        if bounds[0].isEmpty {
            guard let suffix = Int(bounds[1]), suffix > 0 else { return nil }
            return max(0, size - suffix)...(size - 1)
        }
        guard let start = Int(bounds[0]), start < size else { return nil }
        if bounds[1].isEmpty { return start...(size - 1) }
        guard let end = Int(bounds[1]), end >= start else { return nil }
        return start...min(end, size - 1)
    }
}
