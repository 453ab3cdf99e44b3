import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// `405 Method Not Allowed` with `Allow` (RFC 9110 §15.5.6) for a path the API has with another method — `DELETE
/// /v1/changes` used to be a 404, as if the path did not exist. The table is filled once the routes are registered.
struct MethodNotAllowedMiddleware: RouterMiddleware {
    typealias Context = PhotosRequestContext

    /// The routes: path components (`{name}` or `:name` matches any one component) and the methods each answers.
    final class Table: Sendable {
        private let routes = Mutex<[(components: [Substring], methods: Set<String>)]>([])

        func fill(_ described: [(path: String, method: String)]) {
            var byPath: [String: Set<String>] = [:]
            for (path, method) in described { byPath[path, default: []].insert(method) }
            // HEAD is answered wherever GET is (generated endpoints).
            for (path, methods) in byPath where methods.contains("GET") { byPath[path]?.insert("HEAD") }
            routes.withLock { table in
                table = byPath.map { (components: $0.key.split(separator: "/"), methods: $0.value) }
            }
        }

        /// The methods the API answers at `path`, or nil when no route has that path.
        func methods(for path: String) -> Set<String>? {
            let components = path.split(separator: "/")
            var found: Set<String>?
            routes.withLock { table in
                for route in table where route.components.count == components.count {
                    let matches = zip(route.components, components).allSatisfy { pattern, component in
                        pattern.hasPrefix(":") || pattern.hasPrefix("{") || pattern == "*" || pattern == component
                    }
                    if matches { found = (found ?? []).union(route.methods) }
                }
            }
            return found
        }
    }

    let table: Table

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let methods = table.methods(for: request.uri.path), !methods.contains(request.method.rawValue) else {
            return try await next(request, context)
        }
        let allowed = methods.sorted().joined(separator: ", ")
        var error = APIError(
            status: .methodNotAllowed, domain: APIError.httpDomain, code: 405,
            message: "\(request.method.rawValue) is not a method of \(request.uri.path); it answers \(allowed)")
        error.headers[.allow] = allowed
        throw error
    }
}
