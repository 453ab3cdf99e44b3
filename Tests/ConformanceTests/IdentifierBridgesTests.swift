import Photos
import Foundation
import PhotosTesting
import Testing

/// Identifiers that ported code keeps or converts: tokens archived with NSKeyedArchiver, AssetsLibrary URLs, cloud
/// identifiers.
@Suite("Identifier bridges")
struct IdentifierBridgesTests {
    @Test(arguments: LibraryProviders.conformance) func changeTokensSurviveKeyedArchiving(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(provider: provider)
        defer { library.remove() }
        _ = try library.addImages(1)
        let token = library.library.currentChangeToken
        let archive = try NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: true)
        let restored = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: PHPersistentChangeToken.self, from: archive))
        #expect(restored == token)
        _ = try library.addImages(1)
        let changes = try library.library.fetchPersistentChanges(since: restored)
        #expect(Array(changes).count == 1)
        // Something else is not a token.
        let other = try NSKeyedArchiver.archivedData(withRootObject: "not a token" as NSString, requiringSecureCoding: true)
        #expect((try? NSKeyedUnarchiver.unarchivedObject(ofClass: PHPersistentChangeToken.self, from: other)) == nil)
    }

    @Test(arguments: LibraryProviders.conformance) func assetsLibraryURLsNameAssetsByTheirUUID(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(provider: provider)
        defer { library.remove() }
        let ids = try library.addImages(2)
        let uuid = String(ids[1].prefix(36))
        let urls = [
            try #require(URL(string: "assets-library://asset/asset.JPG?id=\(uuid.lowercased())&ext=JPG")),
            try #require(URL(string: "assets-library://asset/asset.JPG?id=not-a-uuid&ext=JPG")),
            URL(fileURLWithPath: "/tmp/\(uuid).jpg"),
        ]
        let assets = PHAsset.fetchAssets(withALAssetURLs: urls, options: library.options())
        #expect(assets.count == 1)
        #expect(assets.firstObject?.localIdentifier == ids[1])
    }

    @Test(arguments: LibraryProviders.conformance) func cloudIdentifiersMapBothWaysAndOnlyAssets(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(provider: provider)
        defer { library.remove() }
        let ids = try library.addImages(2)
        var album = ""
        try library.library.performChangesAndWait {
            album =
                PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Trip").placeholderForCreatedAssetCollection
                .localIdentifier
        }
        let cloud = library.library.cloudIdentifierMappings(forLocalIdentifiers: ids + ["nope", album])
        #expect(cloud.count == 4)
        // An asset made in this library has a cloud identifier of its own, which maps back to it.
        let first = try #require(try cloud[ids[0]]?.get())
        let second = try #require(try cloud[ids[1]]?.get())
        #expect(first != second)
        let back = library.library.localIdentifierMappings(for: [first, second])
        #expect(try back[first]?.get() == ids[0] && back[second]?.get() == ids[1])
        for missing in ["nope", album] {
            guard case .failure(let error)? = cloud[missing] else {
                Issue.record("a cloud identifier for \(missing)")
                continue
            }
            #expect((error as? PHPhotosError)?.code == .identifierNotFound)
        }
        let someone = PHCloudIdentifier(stringValue: "ABC:001:xyz")
        let local = library.library.localIdentifierMappings(for: [someone])
        guard case .failure(let error)? = local[someone] else {
            Issue.record("a local identifier for a foreign cloud identifier")
            return
        }
        #expect((error as? PHPhotosError)?.code == .identifierNotFound)
        // Cloud identifiers archive and compare by value.
        let archive = try NSKeyedArchiver.archivedData(withRootObject: someone, requiringSecureCoding: true)
        #expect(try NSKeyedUnarchiver.unarchivedObject(ofClass: PHCloudIdentifier.self, from: archive) == someone)
        #expect(PHCloudIdentifier(archivalStringValue: "") == nil)
        #expect(PHCloudIdentifier(archivalStringValue: "ABC:001:xyz") == someone)
    }
}
