import Photos
import Foundation
import PhotosTesting
import Testing

/// Identifiers that ported code keeps or converts: tokens archived with NSKeyedArchiver, AssetsLibrary URLs, cloud
/// identifiers on a library with no cloud.
@Suite("Identifier bridges")
struct IdentifierBridgesTests {
    @Test(arguments: LibraryProviders.all) func changeTokensSurviveKeyedArchiving(_ provider: any LibraryProvider) throws {
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

    @Test(arguments: LibraryProviders.all) func assetsLibraryURLsNameAssetsByTheirUUID(_ provider: any LibraryProvider) throws {
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

    @Test(arguments: LibraryProviders.all) func aLibraryWithoutCloudMapsNoIdentifier(_ provider: any LibraryProvider) throws {
        let library = try TestLibrary(provider: provider)
        defer { library.remove() }
        let ids = try library.addImages(1)
        let cloud = library.library.cloudIdentifierMappings(forLocalIdentifiers: ids + ["nope"])
        #expect(cloud.count == 2)
        for (_, result) in cloud {
            guard case .failure(let error) = result else {
                Issue.record("a cloud identifier on a library without a cloud")
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
