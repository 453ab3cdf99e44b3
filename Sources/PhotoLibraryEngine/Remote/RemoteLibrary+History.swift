import Foundation
import NIOHTTP1

extension RemoteLibrary {
    /// One page of a served library's persistent history after `token` (`GET /v1/changes?since=`, oldest first):
    /// each transaction with the token after it, whether more follow, and the token to ask from next.
    /// - throws: the server's errors as they are: `persistentChangeTokenExpired` for a token older than the history
    ///   kept, `identifierNotFound` for one of another library.
    package func history(after token: String, limit: Int = 500) throws(LibraryError) -> (
        changes: [(token: String, entry: RemoteChangeEvent)], more: Bool, next: String
    ) {
        let answer = try json(
            .GET, "/v1/changes",
            query: [URLQueryItem(name: "since", value: token), URLQueryItem(name: "limit", value: String(max(1, min(limit, 5000))))])
        guard let list = answer["changes"] as? [[String: Any]], let next = answer["token"] as? String else {
            throw .networkError("GET /v1/changes answered no history")
        }
        var changes: [(String, RemoteChangeEvent)] = []
        for item in list {
            guard let token = item["token"] as? String, let data = try? JSONSerialization.data(withJSONObject: item),
                let event = RemoteChangeEvent(json: data, token: token)
            else { throw .networkError("GET /v1/changes answered a change without its token") }
            changes.append((token, event))
        }
        return (changes, answer["more"] as? Bool ?? false, next)
    }
}
