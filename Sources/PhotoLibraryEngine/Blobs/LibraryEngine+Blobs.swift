import Foundation

extension LibraryEngine {
    /// A local file holding a resource's bytes, for a decoder that reads files or for serving without a copy (see
    /// ``BlobStore/materialize(_:)``): the one way a file of the library leaves the engine.
    package func materialize(_ resource: ResourceRecord) throws(LibraryError) -> URL {
        try blobs.materialize(resource.path)
    }

    /// The size of a resource's stored bytes, from the blob store.
    package func storedSize(of resource: ResourceRecord) throws(LibraryError) -> Int64 {
        try blobs.size(of: resource.path)
    }

    /// Up to `count` bytes of a resource from `offset`.
    package func read(_ resource: ResourceRecord, offset: Int64, count: Int) throws(LibraryError) -> Data {
        try blobs.read(resource.path, offset: offset, count: count)
    }

    /// A resource's bytes opened for reading in pieces.
    package func open(_ resource: ResourceRecord) throws(LibraryError) -> any BlobReader {
        try blobs.open(resource.path)
    }

    /// The adjustment an `.adjustmentData` resource holds (Apple's `Adjustments.plist` keys), read within the size
    /// an adjustment may have; nil when it is missing, too large or not one.
    package func adjustment(in resource: ResourceRecord) -> StoredAdjustment? {
        guard resource.type == .adjustmentData, let data = blobs.readSmall(resource.path, limit: StoredAdjustment.maximumFileSize)
        else { return nil }
        return StoredAdjustment(propertyList: data)
    }

    /// A new area of this process for files received and not yet imported (``BlobStore/makeUploadArea(label:)``).
    package func makeUploadArea(label: String) throws(LibraryError) -> ProcessFolder {
        if isReadOnly { throw .accessRestricted("the library is read-only: it takes no uploads") }
        return try blobs.makeUploadArea(label: label)
    }
}
