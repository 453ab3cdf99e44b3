import Foundation

/// What a client of the library has been granted. Stored per client in `client_grant`.
package enum ClientGrant: Int, Sendable, CaseIterable {
    case restricted = 1
    case denied = 2
    case readWrite = 3
    case limited = 4
    case addOnly = 5

    package var name: String {
        switch self {
        case .restricted: "restricted"
        case .denied: "denied"
        case .readWrite: "readWrite"
        case .limited: "limited"
        case .addOnly: "addOnly"
        }
    }

    package init?(name: String) {
        guard let grant = Self.allCases.first(where: { $0.name.lowercased() == name.lowercased() }) else { return nil }
        self = grant
    }
}

/// The access a library handle has: who the client is, what it was granted, and whether the files allow writes.
///
/// On Linux there is no system prompt: the library's own policy decides. The library owner (no client
/// identifier) has read-write access; other clients get what the owner granted them (`photos grant`), and a
/// library whose files are read-only accepts no writes from anyone.
package struct AccessContext: Sendable, Equatable {
    /// nil: the library's owner.
    package var clientID: String?
    /// nil: nothing decided yet for this client.
    package var grant: ClientGrant?
    package var libraryIsReadOnly: Bool

    package init(clientID: String?, grant: ClientGrant?, libraryIsReadOnly: Bool) {
        self.clientID = clientID
        self.grant = clientID == nil ? .readWrite : grant
        self.libraryIsReadOnly = libraryIsReadOnly
    }

    /// Reads are allowed (all of the library, or the limited selection).
    package var canRead: Bool { grant == .readWrite || grant == .limited }
    /// Reads see only the client's selection and what it added.
    package var isLimited: Bool { grant == .limited }
    package var canAddAssets: Bool { grant == .readWrite || grant == .limited || grant == .addOnly }
    package var canModify: Bool { grant == .readWrite || grant == .limited }
    package var canManageCollections: Bool { grant == .readWrite }

    /// The error for an operation the grant does not allow.
    package func denial(_ operation: String) -> LibraryError {
        if libraryIsReadOnly { return .accessRestricted("the library is read-only: \(operation) is not allowed") }
        switch grant {
        case .restricted: return .accessRestricted("access to the library is restricted: \(operation) is not allowed")
        case .none: return .accessUserDenied("\(operation) needs authorization; call requestAuthorization(for:) first")
        default:
            return .accessUserDenied("\(operation) is not allowed with \(grant?.name ?? "no") access")
        }
    }

    /// Checks a write: the library must be writable and the grant must allow it.
    package func checkWrite(_ allowed: Bool, _ operation: String) throws(LibraryError) {
        if libraryIsReadOnly || !allowed { throw denial(operation) }
    }
}
