import Foundation

/// A protocol you implement to be told that the library's persistent change history has grown (iOS 27).
///
/// Register with ``PHPhotoLibrary/register(_:)-(PHPhotoLibraryPersistentChangesObserver)``, then, when told, read
/// what is new with ``PHPhotoLibrary/fetchPersistentChanges(since:)`` from the last token you kept. The library holds
/// observers weakly and calls them on a serial queue of its own after each committed transaction — this process's
/// or any other's — in commit order; a call carries no changes, so an observer that falls behind loses nothing (its
/// next fetch returns everything since its token). Only clients with full read and write access are told.
public protocol PHPhotoLibraryPersistentChangesObserver: NSObjectProtocol {
    /// Tells the observer that the library has persistent changes it has not been told about.
    func photoLibraryPersistentChangesDidUpdate(_ library: PHPhotoLibrary)
}
