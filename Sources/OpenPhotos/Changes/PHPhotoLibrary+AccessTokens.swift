import Foundation
import PhotoLibraryEngine

/// OpenPhotoKit: a bearer token with which a remote client of `photos serve` acts as a client of the library.
///
/// A token is bound to a client identifier; what it may do is that client's access level at the time of each
/// request (``PHPhotoLibrary/setAuthorization(_:for:accessLevel:selection:)``, `photos grant`), so a change of
/// grant applies at once and revoking the token cuts the client off. The library keeps only the token's SHA-256.
public struct LibraryAccessToken: Sendable, Equatable, Identifiable {
    /// The token's public id (the part after `opk_`), which names it in lists and revocations.
    public let id: String
    /// The client the token acts for.
    public let clientIdentifier: String
    /// When the token was issued.
    public let creationDate: Date
}

extension PHPhotoLibrary {
    /// OpenPhotoKit: issues a token for `client` (the owner's handle only). Returns the token's record and its
    /// secret text (`opk_…`), which is shown once: the library cannot give it again.
    public func createAccessToken(for client: String) throws -> (token: LibraryAccessToken, secret: String) {
        try requireOwner("issuing a token for '\(client)'")
        do {
            let (record, secret) = try engine().createAccessToken(for: client)
            return (LibraryAccessToken(record), secret)
        } catch { throw PHPhotosError(error) }
    }

    /// OpenPhotoKit: the tokens issued, oldest first (the owner's handle only).
    public func accessTokens() throws -> [LibraryAccessToken] {
        try requireOwner("listing tokens")
        do { return try engine().accessTokens().map(LibraryAccessToken.init) } catch { throw PHPhotosError(error) }
    }

    /// OpenPhotoKit: revokes the token with this id (or this secret), or every token of the client of that name.
    /// Returns the tokens revoked (empty when nothing matched).
    @discardableResult
    public func revokeAccessTokens(matching idOrClient: String) throws -> [LibraryAccessToken] {
        try requireOwner("revoking tokens")
        do { return try engine().revokeAccessTokens(matching: idOrClient).map(LibraryAccessToken.init) } catch { throw PHPhotosError(error) }
    }

    /// OpenPhotoKit: the client a token's secret acts for, or nil when the token is unknown or revoked.
    public func clientIdentifier(forAccessToken secret: String) -> String? {
        engineIfAvailable?.accessTokenClient(secret)
    }

    /// The client a token acts for, nil for an unknown token; throws ``PHPhotosError`` when the library cannot say
    /// (its database does not answer). Package API: the server's, which answers that as unavailable.
    package func checkedClientIdentifier(forAccessToken secret: String) throws -> String? {
        do { return try engine().checkedAccessTokenClient(secret) } catch { throw PHPhotosError(error) }
    }
}

extension LibraryAccessToken {
    init(_ record: AccessTokenRecord) {
        self.init(id: record.id, clientIdentifier: record.clientID, creationDate: record.createdDate)
    }
}
