import Foundation

/// The identifiers of the objects of one type that a persistent change inserted, updated or deleted.
public final class PHPersistentObjectChangeDetails: NSObject, @unchecked Sendable {
    /// The type of object the details describe.
    public let objectType: PHObjectType
    /// Objects the change created (for assets: also recovered from Recently Deleted).
    public let insertedLocalIdentifiers: Set<String>
    /// Objects whose properties (or, for albums and folders, membership) changed.
    public let updatedLocalIdentifiers: Set<String>
    /// Objects the change deleted (for assets: also moved to Recently Deleted).
    public let deletedLocalIdentifiers: Set<String>

    init(objectType: PHObjectType, inserted: Set<String>, updated: Set<String>, deleted: Set<String>) {
        self.objectType = objectType
        self.insertedLocalIdentifiers = inserted
        self.updatedLocalIdentifiers = updated
        self.deletedLocalIdentifiers = deleted
    }
}
