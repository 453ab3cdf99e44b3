import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The web gallery: plain ES modules and CSS embedded in the binary (`scripts/embed-web.sh`), served with
/// validators (`no-cache` + ETag: a new binary's files are picked up at once, unchanged ones cost a 304) and a
/// Content-Security-Policy that allows nothing but this origin.
struct GalleryRoutes {
    struct File: Sendable {
        var type: String
        var body: ByteBuffer
        var etag: String
    }

    static let files: [String: File] = EmbeddedFiles.files.filter { $0.key != "openapi.json" }.mapValues { file in
        let digest = SHA256.hash(data: Data(file.text.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
        return File(type: file.type, body: ByteBuffer(string: file.text), etag: "\"\(digest)\"")
    }

    static let securityPolicy =
        "default-src 'self'; img-src 'self' blob: data:; media-src 'self' blob:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

    func register(on router: Router<PhotosRequestContext>) {
        router.get("/") { request, _ in Self.serve("index.html", request) }
        router.get(":file") { request, context in
            let name = try context.parameters.require("file")
            guard Self.files[name] != nil else {
                throw APIError(status: .notFound, domain: APIError.httpDomain, code: 404, message: "no page \(name)")
            }
            return Self.serve(name, request)
        }
    }

    static func serve(_ name: String, _ request: Request) -> Response {
        guard let file = files[name] else { return Response(status: .notFound) }
        var headers: HTTPFields = [
            .contentType: file.type, .eTag: file.etag, .cacheControl: "no-cache", .contentSecurityPolicy: securityPolicy,
            .xContentTypeOptions: "nosniff", .referrerPolicy: "no-referrer",
        ]
        if request.headers[.ifNoneMatch] == file.etag { return Response(status: .notModified, headers: headers) }
        headers[.contentLength] = String(file.body.readableBytes)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: file.body))
    }
}

enum OpenAPIDocument {
    static let json = EmbeddedFiles.files["openapi.json"]?.text ?? "{}"
}

extension HTTPField.Name {
    static let referrerPolicy = Self("Referrer-Policy")!
    static let xContentTypeOptions = Self("X-Content-Type-Options")!
}
