import Foundation
import GRDB

extension LibraryEngine {
    /// The assets (not deleted for good) that already hold an original with each of these SHA-256 digests.
    package func assetIdentifiers(withSHA256 digests: [String]) throws(LibraryError) -> [String: String] {
        guard !digests.isEmpty else { return [:] }
        return try read { db in
            var found: [String: String] = [:]
            let json = String(decoding: try JSONEncoder().encode(Array(Set(digests))), as: UTF8.self)
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT r.sha256, a.local_id FROM resource r JOIN asset a ON a.id = r.asset_id
                    WHERE r.sha256 IN (SELECT value FROM json_each(?)) ORDER BY a.id
                    """,
                arguments: [json])
            for row in rows where found[row[0]] == nil { found[row[0]] = row[1] }
            return found
        }
    }
}
