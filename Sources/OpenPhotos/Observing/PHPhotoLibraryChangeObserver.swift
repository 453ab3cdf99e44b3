import Foundation

/// A protocol you implement to be told about changes to the photo library.
///
/// Register with ``PHPhotoLibrary/register(_:)-(PHPhotoLibraryChangeObserver)``. The library holds observers
/// weakly and calls them once per committed transaction (this process's or any other's), in commit order, on a
/// serial queue of its own: never the committing caller's queue and never the main thread. Redispatch to the
/// main queue to update a user interface.
public protocol PHPhotoLibraryChangeObserver: NSObjectProtocol {
    /// Tells the observer that a set of changes has occurred in the library.
    func photoLibraryDidChange(_ changeInstance: PHChange)
}
