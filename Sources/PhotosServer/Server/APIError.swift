import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OpenPhotos

/// An error answered as JSON: `{"error": {"domain": …, "code": …, "message": …}}` with the HTTP status that
/// fits. Library failures keep PhotoKit's domain and code (`PHPhotosErrorDomain`, 3311 …); a malformed request has
/// the domain `OpenPhotoKit.HTTP` and its status as code.
struct APIError: Error, HTTPResponseError, Sendable {
    var status: HTTPResponse.Status
    var domain: String
    var code: Int
    var message: String
    var headers: HTTPFields = [:]

    static let httpDomain = "OpenPhotoKit.HTTP"

    static func badRequest(_ message: String) -> APIError { .init(status: .badRequest, domain: httpDomain, code: 400, message: message) }
    static func notFound(_ message: String) -> APIError {
        .init(status: .notFound, domain: PHPhotosErrorDomain, code: PHPhotosError.Code.identifierNotFound.rawValue, message: message)
    }
    static func unauthorized(_ message: String) -> APIError {
        .init(
            status: .unauthorized, domain: httpDomain, code: 401, message: message,
            headers: [.wwwAuthenticate: "Bearer realm=\"photos\""])
    }
    static func tooLarge(_ message: String) -> APIError { .init(status: .contentTooLarge, domain: httpDomain, code: 413, message: message) }

    /// The 403 for a client whose access level does not allow `operation`.
    static func denied(_ status: PHAuthorizationStatus, _ operation: String) -> APIError {
        let code: PHPhotosError.Code = status == .restricted ? .accessRestricted : .accessUserDenied
        let level =
            switch status {
            case .notDetermined: "no access yet (the owner has not run photos grant for it)"
            case .restricted: "restricted access"
            case .denied: "denied access"
            case .limited: "limited access"
            case .authorized: "add-only access"
            }
        // Said as a server's client meets it: what its token may do and who changes that (the owner, with photos
        // grant), not PhotoKit's advice to call requestAuthorization, which an HTTP client cannot.
        let remedy =
            status == .restricted ? "" : "; the library's owner can change it with photos grant CLIENT readWrite|limited|addOnly"
        return .init(
            status: .forbidden, domain: PHPhotosErrorDomain, code: code.rawValue,
            message: "\(operation) is not allowed: this client's token has \(level)\(remedy)")
    }

    /// A library error, with the status its code means over HTTP.
    init(_ error: PHPhotosError) {
        let status: HTTPResponse.Status =
            switch error.code {
            case .accessUserDenied, .accessRestricted: .forbidden
            case .identifierNotFound: .notFound
            case .persistentChangeTokenExpired: .gone
            case .invalidResource, .changeNotSupported, .requestNotSupportedForAsset, .missingResource: .unprocessableContent
            case .limitExceeded: .contentTooLarge
            case .notEnoughSpace: .init(code: 507, reasonPhrase: "Insufficient Storage")
            case .libraryVolumeOffline, .operationInterrupted, .networkError: .serviceUnavailable
            case .userCancelled: .init(code: 499, reasonPhrase: "Client Closed Request")
            default: .internalServerError
            }
        // The database or the object store out of reach: a client may try again soon (nothing was half done).
        let headers: HTTPFields = status == .serviceUnavailable ? [.retryAfter: "5"] : [:]
        self.init(status: status, domain: PHPhotosErrorDomain, code: error.code.rawValue, message: error.localizedDescription, headers: headers)
    }

    init(status: HTTPResponse.Status, domain: String, code: Int, message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.domain = domain
        self.code = code
        self.message = message
        self.headers = headers
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let body: [String: Any] = ["error": ["domain": domain, "code": code, "message": message]]
        let data = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// Turns every error a route throws into an ``APIError`` response: library errors keep PhotoKit's code, anything
/// unexpected is a logged 500 whose message names the request id, never a stack of internals.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = PhotosRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return try error.response(from: request, context: context)
        } catch let error as PHPhotosError {
            let api = APIError(error)
            if api.status == .internalServerError {
                context.logger.error("library error: \(error)", metadata: ["client": "\(context.session?.identifier ?? "-")"])
            }
            return try api.response(from: request, context: context)
        } catch let error as FetchOptionsError {
            return try APIError.badRequest(error.message).response(from: request, context: context)
        } catch let error as HTTPError {
            return try APIError(
                status: error.status, domain: APIError.httpDomain, code: Int(error.status.code), message: error.body ?? error.status.reasonPhrase
            )
            .response(from: request, context: context)
        } catch let error as any HTTPResponseError {
            return try error.response(from: request, context: context)
        } catch {
            context.logger.error("unexpected error: \(error)", metadata: ["client": "\(context.session?.identifier ?? "-")"])
            return try APIError(
                status: .internalServerError, domain: PHPhotosErrorDomain, code: PHPhotosError.Code.internalError.rawValue,
                message: "internal error (request \(context.id))"
            ).response(from: request, context: context)
        }
    }
}
