import Foundation
import OpenPhotos
import PhotoLibraryEngine
import PhotosTesting
import Testing

/// Rows a newer version wrote — a resource type or a media type this version does not know — are kept and never
/// crash a reader: the resource is not listed (PhotoKit's enum cannot name it), and the rest of the asset is.
@Suite("Unknown raw values")
struct UnknownRawValueTests {
    @Test(arguments: LibraryProviders.all.filter { !$0.description.contains("S3") })
    func aResourceOfAnUnknownTypeIsKeptAndNotListed(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(name: "UnknownTypes", provider: provider)
        defer { library.remove() }
        let ids = try library.addImages(2)
        let engine = try LibraryEngine.open(at: library.url)
        try engine.metadata.write { db in
            try db.execute(
                sql: """
                    INSERT INTO resource (asset_id, type, path, original_filename, uniform_type_identifier, file_size, sha256)
                    SELECT id, 99, 'originals/x/future.bin', 'future.bin', 'public.data', 0, 'none' FROM asset WHERE local_id = ?
                    """, arguments: [ids[0]])
            try db.execute(sql: "UPDATE asset SET media_type = 9 WHERE local_id = ?", arguments: [ids[1]])
        }
        let reopened = try PHPhotoLibrary(url: library.url, clientIdentifier: nil)
        let options = PHFetchOptions()
        options.photoLibrary = reopened
        let assets = PHAsset.fetchAssets(withLocalIdentifiers: ids, options: options)
        #expect(assets.count == 2)
        let first = try #require(assets.first { $0.localIdentifier == ids[0] })
        #expect(PHAssetResource.assetResources(for: first).map(\.type) == [.photo])
        let record = try #require(try engine.asset(localIdentifier: first.localIdentifier))
        #expect(try engine.resources(assetID: record.id).map(\.typeRawValue).sorted() == [1, 99])
        #expect(assets.first { $0.localIdentifier == ids[1] }?.mediaType == .unknown)
    }
}
