import Crypto
import Foundation

/// A bearer token of `photos serve`, as stored: never the secret, only its SHA-256.
package struct AccessTokenRecord: Sendable, Equatable {
    /// The public part of the token (`opk_<id>_<secret>`), which names it in lists and revocations.
    package var id: String
    package var clientID: String
    package var createdDate: Date
}

extension LibraryEngine {
    /// The prefix of every token, so that a leaked one is recognisable (secret scanners, logs).
    package static let accessTokenPrefix = "opk_"

    /// Issues a token acting for `clientID`. Returns the record and the token itself, which is shown once and
    /// cannot be read back (only its hash is kept).
    package func createAccessToken(for clientID: String) throws(LibraryError) -> (record: AccessTokenRecord, token: String) {
        guard !clientID.isEmpty else { throw .changeNotSupported("a token needs a client identifier") }
        var idBytes = SystemRandomNumberGenerator()
        let id = (0..<8).map { _ in String(UInt8.random(in: 0...255, using: &idBytes), radix: 16).leftPadded(2) }.joined()
        var secret = [UInt8](repeating: 0, count: 32)
        for index in secret.indices { secret[index] = UInt8.random(in: 0...255, using: &idBytes) }
        let token = "\(Self.accessTokenPrefix)\(id)_\(Data(secret).base64URLEncoded)"
        let record = AccessTokenRecord(id: id, clientID: clientID, createdDate: Date())
        try write("create an access token") { db in
            try db.execute(
                sql: "INSERT INTO access_token (id, client_id, secret_sha256, created_date) VALUES (?, ?, ?, ?)",
                arguments: [id, clientID, Self.tokenHash(token), record.createdDate.timeIntervalSinceReferenceDate])
        }
        return (record, token)
    }

    /// The client a token acts for, or nil for an unknown or revoked token.
    package func accessTokenClient(_ token: String) -> String? {
        try? checkedAccessTokenClient(token)
    }

    /// The client a token acts for, nil for a token the library does not know; throws when the library cannot say
    /// (its database does not answer) — which a server answers as unavailable, not as a wrong token.
    package func checkedAccessTokenClient(_ token: String) throws(LibraryError) -> String? {
        guard token.hasPrefix(Self.accessTokenPrefix), token.utf8.count < 200 else { return nil }
        return try read { db in
            try String.fetchOne(
                db, sql: "SELECT client_id FROM access_token WHERE secret_sha256 = ?", arguments: [Self.tokenHash(token)], cached: true)
        }
    }

    /// Every token, oldest first.
    package func accessTokens() throws(LibraryError) -> [AccessTokenRecord] {
        try read { db in
            try SQLRecord.fetchAll(db, sql: "SELECT id, client_id, created_date FROM access_token ORDER BY created_date, id").map {
                AccessTokenRecord(id: $0[0], clientID: $0[1], createdDate: Date(timeIntervalSinceReferenceDate: $0[2]))
            }
        }
    }

    /// Removes the token with this id (or whole token), or every token of the client of that name; returns the
    /// tokens removed.
    package func revokeAccessTokens(matching idOrClient: String) throws(LibraryError) -> [AccessTokenRecord] {
        let id = idOrClient.hasPrefix(Self.accessTokenPrefix) ? String(idOrClient.dropFirst(4).prefix { $0 != "_" }) : idOrClient
        return try write("revoke access tokens") { db in
            let matching = try SQLRecord.fetchAll(
                db, sql: "SELECT id, client_id, created_date FROM access_token WHERE id = ? OR client_id = ? ORDER BY created_date, id",
                arguments: [id, idOrClient]
            ).map { AccessTokenRecord(id: $0[0], clientID: $0[1], createdDate: Date(timeIntervalSinceReferenceDate: $0[2])) }
            try db.execute(sql: "DELETE FROM access_token WHERE id = ? OR client_id = ?", arguments: [id, idOrClient])
            return matching
        }
    }

    private static func tokenHash(_ token: String) -> Data { Data(SHA256.hash(data: Data(token.utf8))) }
}

extension Data {
    /// Base64 with the URL alphabet and no padding (RFC 4648 §5).
    package var base64URLEncoded: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64url without padding; nil for anything else.
    package init?(base64URLEncoded text: String) {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        self.init(base64Encoded: base64)
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String { String(repeating: "0", count: Swift.max(0, width - count)) + self }
}
