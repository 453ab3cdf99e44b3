import Foundation
import PhotoLibraryEngine

extension PHPhotoLibrary {
    /// OpenPhotoKit: this handle's authorization at an access level.
    public func authorizationStatus(for accessLevel: PHAccessLevel) -> PHAuthorizationStatus {
        let access = self.access
        guard engineIfAvailable != nil else { return .restricted }
        switch access.grant {
        case .none: return .notDetermined
        case .restricted: return .restricted
        case .denied: return .denied
        case .readWrite: return .authorized
        case .limited: return accessLevel == .addOnly ? .authorized : .limited
        case .addOnly: return accessLevel == .addOnly ? .authorized : .denied
        }
    }

    /// OpenPhotoKit: asks the library's policy for authorization. With no decision yet for this client, the
    /// library's default for new clients applies (`photos grant --default`; `denied` unless the owner set one).
    public func requestAuthorization(for accessLevel: PHAccessLevel) -> PHAuthorizationStatus {
        if access.grant == nil, let engine = engineIfAvailable, let client = clientIdentifier {
            let fallback = engine.setting("default_client_grant").flatMap(ClientGrant.init(name:)) ?? .denied
            try? engine.setGrant(fallback, for: client)
        }
        return authorizationStatus(for: accessLevel)
    }

    /// OpenPhotoKit: the owner's decision for a client (what a system prompt decides on Apple platforms). Only the
    /// owner's handle (no client identifier) may make it; a client's handle gets ``PHPhotosError/Code/accessUserDenied``.
    /// - parameters:
    ///   - status: `.authorized` (read-write), `.limited` (with `selection`), `.denied`, `.restricted`,
    ///     or `.notDetermined` to forget the client.
    ///   - accessLevel: `.addOnly` grants add-only access when `status` is `.authorized`.
    public func setAuthorization(
        _ status: PHAuthorizationStatus, for client: String, accessLevel: PHAccessLevel = .readWrite, selection: [String] = []
    ) throws {
        try requireOwner("granting access to '\(client)'")
        let grant: ClientGrant?
        switch status {
        case .notDetermined: grant = nil
        case .restricted: grant = .restricted
        case .denied: grant = .denied
        case .authorized: grant = accessLevel == .addOnly ? .addOnly : .readWrite
        case .limited: grant = .limited
        }
        do { try engine().setGrant(grant, for: client, selection: selection) } catch { throw PHPhotosError(error) }
    }
}
