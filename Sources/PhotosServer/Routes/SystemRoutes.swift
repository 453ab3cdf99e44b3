import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import OpenPhotos

/// `/healthz`, `/openapi.json` and the gallery's sign-in (`/v1/session`).
struct SystemRoutes {
    let services: ServerServices

    func register(on router: Router<PhotosRequestContext>) {
        router.get("healthz") { _, _ in
            // Healthy when the library is available: opened, and its folder still there.
            let readable = services.owner.unavailabilityReason == nil
            return try ChangeRoutes.json(["status": readable ? "ok" : "unavailable"], status: readable ? .ok : .serviceUnavailable)
        }
        router.get("openapi.json") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-cache"],
                body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.json)))
        }
        // The gallery signs in with a token once. The cookie it gets is a session of its own — a new token of the same
        // client, never the token it signed in with — so that signing out revokes the session alone, and the page
        // keeps no token (the cookie is HttpOnly). Secure when the request came over TLS through a trusted proxy.
        router.post("v1/session") { request, context in
            let session = try context.client()
            guard request.headers[.authorization] != nil else { throw APIError.unauthorized("sign in with the Authorization header") }
            let secret: String
            do { secret = try services.owner.createAccessToken(for: session.identifier).secret } catch {
                throw APIError(error as? PHPhotosError ?? PHPhotosError(.internalError))
            }
            let secure =
                services.configuration.trustedProxies.contains(context.peerAddress ?? "")
                && request.headers[.xForwardedProto]?.lowercased() == "https"
            let cookie = Cookie(
                name: AuthenticationMiddleware.cookieName, value: secret, maxAge: 30 * 24 * 3600, path: "/", secure: secure, httpOnly: true,
                sameSite: .strict)
            var response = try ChangeRoutes.json(
                ["client": session.identifier, "status": Self.statusName(session.library.authorizationStatus(for: .readWrite))], status: .ok)
            response.setCookie(cookie)
            return response
        }
        // Signing out revokes the session's token (not the one it signed in with) and clears the cookie.
        router.delete("v1/session") { request, context in
            _ = try context.client()
            if let secret = AuthenticationMiddleware.cookie(request.headers) {
                _ = try? services.owner.revokeAccessTokens(matching: secret)
            }
            var response = Response(status: .noContent)
            response.setCookie(Cookie(name: AuthenticationMiddleware.cookieName, value: "", maxAge: 0, path: "/", httpOnly: true, sameSite: .strict))
            return response
        }
        router.get("v1/session") { _, context in
            let session = try context.client()
            let status = session.library.authorizationStatus(for: .readWrite)
            let addOnly = session.library.authorizationStatus(for: .addOnly)
            return try ChangeRoutes.json(
                [
                    "client": session.identifier, "status": Self.statusName(status),
                    "canRead": status == .authorized || status == .limited, "canAdd": addOnly == .authorized,
                    "canManageCollections": status == .authorized,
                ], status: .ok)
        }
    }

    static func statusName(_ status: PHAuthorizationStatus) -> String {
        switch status {
        case .notDetermined: "notDetermined"
        case .restricted: "restricted"
        case .denied: "denied"
        case .authorized: "authorized"
        case .limited: "limited"
        }
    }
}
