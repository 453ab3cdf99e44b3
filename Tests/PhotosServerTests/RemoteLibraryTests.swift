import Foundation
import NIOCore
import HTTPTypes
import OpenPhotos
import PhotosServer
import PhotosTestHarness
import PhotosTesting
import Synchronization
import Testing

/// Runs blocking PhotoKit calls (a served library waits for its server) off Swift's cooperative pool, on a thread of
/// their own: not on Dispatch's global queue, whose threads the rest of a full run may all hold.
func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}

/// What a test compares of an asset: every property `PHAsset` has, as values.
struct AssetFacts: Equatable, CustomStringConvertible {
    var values: [String]
    init(_ asset: PHAsset, extended: Bool = false) {
        values = [
            asset.localIdentifier, "\(asset.mediaType.rawValue)", "\(asset.mediaSubtypes.rawValue)", "\(asset.pixelWidth)x\(asset.pixelHeight)",
            "\(asset.creationDate?.timeIntervalSince1970 ?? -1)", "\(asset.modificationDate?.timeIntervalSince1970 ?? -1)",
            "\(asset.location?.coordinate.latitude ?? 999),\(asset.location?.coordinate.longitude ?? 999)", "\(asset.duration)",
            "\(asset.isFavorite)", "\(asset.isHidden)", "\(asset.rating.rawValue)", "\(asset.sourceType.rawValue)",
            "\(asset.playbackStyle.rawValue)", "\(asset.burstIdentifier ?? "-")", "\(asset.representsBurst)", "\(asset.hasAdjustments)",
            "\(asset.creationTimeZone?.secondsFromGMT() ?? -99999)",
        ]
        if extended { values += [asset.extendedMetadata.caption ?? "-", asset.extendedMetadata.keywords.joined(separator: "|")] }
    }
    var description: String { values.joined(separator: " ") }
}

/// A library served by `photos serve`, opened with `PHPhotoLibrary(url: http://…)`: fetches answer what the same
/// fetch answers on the server's own library, object for object.
@Suite("Remote library")
struct RemoteLibraryTests {
    /// Seven photos: #1 and #4 favorites, #2 hidden, #3 rated 4 with a caption and keywords, #5 at a place.
    func makeFixture() throws -> (ServerFixture, [String]) {
        let fixture = try ServerFixture(name: "Remote")
        let ids = try fixture.library.addImages(7) { i, request in
            request.isFavorite = i == 1 || i == 4
            request.isHidden = i == 2
            if i == 5 { request.location = CLLocation(latitude: 48.8584, longitude: 2.2945) }
        }
        let asset = PHAsset.fetchAssets(withLocalIdentifiers: [ids[3]], options: fixture.library.options()).firstObject!
        try fixture.library.library.performChangesAndWait {
            let request = PHAssetChangeRequest(for: asset)
            request.rating = PHAsset.Rating(rawValue: 4)!
            request.caption = "Quai \"Branly\" \\ at dusk"
            request.addKeyword("paris")
            request.addKeyword("tower")
        }
        return (fixture, ids)
    }

    @Test func fetchesAnswerWhatTheServersLibraryAnswers() async throws {
        let (fixture, ids) = try makeFixture()
        defer { fixture.library.remove() }
        let token = try fixture.token("app", .authorized)
        try await fixture.test { client in
            let port = try #require(client.port)
            try await blocking {
                let remote = try PHPhotoLibrary(url: URL(string: "http://127.0.0.1:\(port)")!, accessToken: token)
                #expect(remote.unavailabilityReason == nil)
                #expect(remote.clientIdentifier == "app")
                let local = fixture.library.library
                let configurations: [(String, (PHFetchOptions) -> Void)] = [
                    ("default", { _ in }),
                    ("hidden included", { $0.includeHiddenAssets = true }),
                    (
                        "favorites, newest first",
                        {
                            $0.predicate = NSPredicate(format: "favorite == YES")
                            $0.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: false)]
                        }
                    ),
                    (
                        "a date argument and a limit",
                        {
                            $0.predicate = NSPredicate(format: "creationDate > %@", Date(timeIntervalSince1970: 1_700_000_000 + 90) as NSDate)
                            $0.fetchLimit = 3
                        }
                    ),
                    ("a string with quotes", { $0.predicate = NSPredicate(format: "localIdentifier IN %@", [ids[0], ids[6], "x\"y"]) }),
                    (
                        "compound and NOT",
                        {
                            $0.predicate = NSPredicate(format: "NOT (favorite == YES) AND (mediaSubtypes & %d) == 0", 8)
                            $0.sortDescriptors = [NSSortDescriptor(key: "modificationDate", ascending: true)]
                        }
                    ),
                    ("search", { $0.searchText = "dusk" }),
                ]
                for (name, configure) in configurations {
                    let remoteOptions = PHFetchOptions()
                    remoteOptions.photoLibrary = remote
                    remoteOptions.prefetchAssetExtendedMetadata = true
                    configure(remoteOptions)
                    let localOptions = fixture.library.options { $0.prefetchAssetExtendedMetadata = true }
                    configure(localOptions)
                    let served = PHAsset.fetchAssets(with: remoteOptions)
                    let own = PHAsset.fetchAssets(with: localOptions)
                    #expect(served.fetchError == nil, "\(name)")
                    #expect(own.count > 0, "\(name): the fixture must match something")
                    #expect(served.count == own.count, "\(name)")
                    #expect(served.map { AssetFacts($0, extended: true) } == own.map { AssetFacts($0, extended: true) }, "\(name)")
                }
                // By media type, and the extended metadata loaded lazily (not prefetched).
                let remoteOptions = PHFetchOptions()
                remoteOptions.photoLibrary = remote
                #expect(
                    PHAsset.fetchAssets(with: .image, options: remoteOptions).map(\.localIdentifier) == [
                        ids[0], ids[1], ids[3], ids[4], ids[5], ids[6],
                    ])
                #expect(PHAsset.fetchAssets(with: .video, options: remoteOptions).count == 0)
                #expect(local.unavailabilityReason == nil)
            }
        }
    }

    /// A change block becomes one request that the server applies all or nothing: properties, keywords, deletion,
    /// an album created with assets (its placeholder names it on the server too); a block with a change the client's
    /// access does not allow changes nothing and fails with PhotoKit's error.
    @Test func changeBlocksApplyOnTheServerAllOrNothing() async throws {
        let (fixture, ids) = try makeFixture()
        defer { fixture.library.remove() }
        let token = try fixture.token("app", .authorized)
        let limitedToken = try fixture.token("picker", .limited, selection: [ids[0], ids[6]])
        try await fixture.test { client in
            let port = try #require(client.port)
            try await blocking {
                let url = URL(string: "http://127.0.0.1:\(port)")!
                let remote = try PHPhotoLibrary(url: url, accessToken: token)
                let options = PHFetchOptions()
                options.photoLibrary = remote
                let assets = PHAsset.fetchAssets(with: options)
                let first = assets.object(at: 0)
                let third = assets.object(at: 2)
                #expect(third.localIdentifier == ids[3])
                var albumIdentifier = ""
                try remote.performChangesAndWait {
                    let request = PHAssetChangeRequest(for: first)
                    request.isFavorite = true
                    request.rating = PHAsset.Rating(rawValue: 2)!
                    request.caption = "first"
                    request.addKeyword("north")
                    request.creationDate = Date(timeIntervalSince1970: 1_650_000_000.25)
                    let other = PHAssetChangeRequest(for: third)
                    other.removeKeyword("paris")
                    other.caption = nil
                    other.location = CLLocation(latitude: -33.8568, longitude: 151.2153)
                    PHAssetChangeRequest.deleteAssets([assets.object(at: 1)] as NSArray)
                    let album = PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Remote trip")
                    album.addAssets([first, third] as NSArray)
                    albumIdentifier = album.placeholderForCreatedAssetCollection.localIdentifier
                }
                let local = fixture.library.options { $0.prefetchAssetExtendedMetadata = true }
                let now = PHAsset.fetchAssets(withLocalIdentifiers: [ids[0], ids[1], ids[3]], options: local)
                let byID = Dictionary(uniqueKeysWithValues: now.map { ($0.localIdentifier, $0) })
                let changed = try #require(byID[ids[0]])
                #expect(changed.isFavorite && changed.rating.rawValue == 2)
                #expect(changed.extendedMetadata.caption == "first" && changed.extendedMetadata.keywords == ["north"])
                #expect(changed.creationDate == Date(timeIntervalSince1970: 1_650_000_000.25))
                let other = try #require(byID[ids[3]])
                #expect(other.extendedMetadata.caption == nil && other.extendedMetadata.keywords == ["tower"])
                #expect(other.location?.coordinate.latitude == -33.8568 && other.location?.coordinate.longitude == 151.2153)
                #expect(byID[ids[1]] == nil, "in Recently Deleted")
                #expect(PHAsset.fetchAssets(with: fixture.library.options()).map(\.localIdentifier) == [ids[0], ids[3], ids[4], ids[5], ids[6]])
                let album = try #require(
                    PHAssetCollection.fetchAssetCollections(withLocalIdentifiers: [albumIdentifier], options: fixture.library.options()).firstObject)
                #expect(album.localizedTitle == "Remote trip")
                #expect(PHAsset.fetchAssets(in: album, options: fixture.library.options()).map(\.localIdentifier) == [ids[0], ids[3]])
                // The remote side sees its own change in a new fetch.
                let again = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [ids[0], ids[2]], options: options).firstObject)
                #expect(again.isFavorite && again.rating.rawValue == 2)
                // By identifier, hidden ones included, in date order (the first one is now the oldest).
                #expect(PHAsset.fetchAssets(withLocalIdentifiers: [ids[2], ids[0]], options: options).map(\.localIdentifier) == [ids[0], ids[2]])
                #expect(PHAsset.fetchAssets(with: options).map(\.localIdentifier) == [ids[0], ids[3], ids[4], ids[5], ids[6]])

                // A limited client may change its selection's properties but not make albums: the whole block fails.
                let limited = try PHPhotoLibrary(url: url, accessToken: limitedToken)
                let limitedOptions = PHFetchOptions()
                limitedOptions.photoLibrary = limited
                let mine = PHAsset.fetchAssets(with: limitedOptions).object(at: 0)
                #expect(mine.localIdentifier == ids[0])
                do {
                    try limited.performChangesAndWait {
                        PHAssetChangeRequest(for: mine).isHidden = true
                        _ = PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Not allowed")
                    }
                    Issue.record("a limited client made an album")
                } catch let error as PHPhotosError {
                    #expect(error.code == .accessRestricted || error.code == .accessUserDenied)
                }
                #expect(PHAsset.fetchAssets(withLocalIdentifiers: [ids[0]], options: fixture.library.options()).firstObject?.isHidden == false)
                try limited.performChangesAndWait { PHAssetChangeRequest(for: mine).isHidden = true }
                #expect(PHAsset.fetchAssets(withLocalIdentifiers: [ids[0]], options: fixture.library.options()).firstObject?.isHidden == true)
            }
        }
    }

    /// Albums, folders and smart albums fetch as they do on the server, with their assets, and change through the
    /// remote library.
    @Test func collectionsAnswerWhatTheServersLibraryAnswers() async throws {
        let (fixture, ids) = try makeFixture()
        defer { fixture.library.remove() }
        let token = try fixture.token("app", .authorized)
        let local = fixture.library.library
        try local.performChangesAndWait {
            let folder = PHCollectionListChangeRequest.creationRequestForCollectionList(withTitle: "Travel")
            let album = PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Paris")
            folder.addChildCollections([album.placeholderForCreatedAssetCollection] as NSArray)
            let assets = PHAsset.fetchAssets(withLocalIdentifiers: [ids[5], ids[3], ids[0]], options: fixture.library.options())
            album.addAssets([assets[2], assets[1], assets[0]] as NSArray)
            _ = PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Empty")
        }
        try await fixture.test { client in
            let port = try #require(client.port)
            try await blocking {
                let remote = try PHPhotoLibrary(url: URL(string: "http://127.0.0.1:\(port)")!, accessToken: token)
                func options(_ library: PHPhotoLibrary) -> PHFetchOptions {
                    let options = PHFetchOptions()
                    options.photoLibrary = library
                    return options
                }
                func describe(_ collection: PHCollection) -> String {
                    "\(collection.localIdentifier) \(collection.localizedTitle ?? "-") \(collection.canContainAssets) \(collection.canContainCollections)"
                }
                let albums = { (library: PHPhotoLibrary) in
                    PHAssetCollection.fetchAssetCollections(with: .album, subtype: .any, options: options(library)).map(describe)
                }
                #expect(albums(remote) == albums(local))
                #expect(albums(remote).count == 2)
                let top = { (library: PHPhotoLibrary) in PHCollection.fetchTopLevelUserCollections(with: options(library)).map(describe) }
                #expect(top(remote) == top(local))
                let smart = { (library: PHPhotoLibrary) in
                    PHAssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .any, options: options(library)).map(describe)
                }
                #expect(smart(remote) == smart(local))
                // A folder's children, an album's assets in album order, a smart album's assets, key assets.
                let folder = try #require(
                    PHCollectionList.fetchTopLevelUserCollections(with: options(remote)).compactMap { $0 as? PHCollectionList }.first)
                let children = PHCollection.fetchCollections(in: folder, options: options(remote))
                #expect(children.map { $0.localizedTitle ?? "" } == ["Paris"])
                let paris = try #require(children.firstObject as? PHAssetCollection)
                // The album's own order: the assets were added newest first.
                #expect(PHAsset.fetchAssets(in: paris, options: options(remote)).map(\.localIdentifier) == [ids[5], ids[3], ids[0]])
                #expect(PHAsset.fetchKeyAssets(in: paris, options: options(remote))?.map(\.localIdentifier) == [ids[5]])
                let favorites = try #require(
                    PHAssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumFavorites, options: options(remote)).firstObject)
                #expect(PHAsset.fetchAssets(in: favorites, options: options(remote)).map(\.localIdentifier) == [ids[1], ids[4]])
                let first = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [ids[0]], options: options(remote)).firstObject)
                #expect(
                    PHAssetCollection.fetchAssetCollectionsContaining(first, with: .album, options: options(remote)).map(\.localizedTitle) == [
                        "Paris"
                    ])

                // Renaming, reordering and deleting through the remote library.
                let empty = try #require(
                    PHAssetCollection.fetchAssetCollections(with: .album, subtype: .any, options: options(remote)).first {
                        $0.localizedTitle == "Empty"
                    })
                try remote.performChangesAndWait {
                    let request = PHAssetCollectionChangeRequest(for: paris)
                    request?.title = "Paris, 2023"
                    request?.moveAssets(at: IndexSet(integer: 2), to: 0)
                    PHAssetCollectionChangeRequest.deleteAssetCollections([empty] as NSArray)
                }
                #expect(albums(local).count == 1)
                let renamed = try #require(PHAssetCollection.fetchAssetCollections(with: .album, subtype: .any, options: options(local)).firstObject)
                #expect(renamed.localizedTitle == "Paris, 2023")
                #expect(PHAsset.fetchAssets(in: renamed, options: options(local)).map(\.localIdentifier) == [ids[0], ids[5], ids[3]])
            }
        }
    }

    /// Assets created through the remote library: the resources are uploaded, the creation is one change block with
    /// its placeholder's identifier, and the server keeps the bytes as sent.
    @Test func assetsCreatedRemotelyKeepTheirBytesAndIdentifiers() async throws {
        let fixture = try ServerFixture(name: "RemoteCreate")
        defer { fixture.library.remove() }
        let token = try fixture.token("app", .authorized)
        let photo = fixture.library.scratch.appendingPathComponent("IMG_0001.JPG")
        try TestMedia.writeSolidJPEG(to: photo, width: 40, height: 30, red: 200, green: 10, blue: 10)
        let moved = fixture.library.scratch.appendingPathComponent("IMG_0002.JPG")
        try TestMedia.writeSolidJPEG(to: moved, width: 30, height: 40, red: 10, green: 200, blue: 10)
        let bytes = try Data(contentsOf: photo)
        try await fixture.test { client in
            let port = try #require(client.port)
            try await blocking {
                let remote = try PHPhotoLibrary(url: URL(string: "http://127.0.0.1:\(port)")!, accessToken: token)
                var identifiers: [String] = []
                try remote.performChangesAndWait {
                    let first = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: photo)
                    first?.isFavorite = true
                    first?.creationDate = Date(timeIntervalSince1970: 1_600_000_000)
                    identifiers.append(first?.placeholderForCreatedAsset?.localIdentifier ?? "")
                    let second = PHAssetCreationRequest.forAsset()
                    let options = PHAssetResourceCreationOptions()
                    options.shouldMoveFile = true
                    options.originalFilename = "Moved.JPG"
                    second.addResource(with: .photo, fileURL: moved, options: options)
                    identifiers.append(second.placeholderForCreatedAsset?.localIdentifier ?? "")
                    let album = PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "New")
                    album.addAssets([first!.placeholderForCreatedAsset!, second.placeholderForCreatedAsset!] as NSArray)
                }
                #expect(FileManager.default.fileExists(atPath: photo.path), "copied: the caller's file stays")
                #expect(!FileManager.default.fileExists(atPath: moved.path), "moved: the library has it now")
                let local = PHAsset.fetchAssets(withLocalIdentifiers: identifiers, options: fixture.library.options())
                #expect(Set(local.map(\.localIdentifier)) == Set(identifiers))
                let first = try #require(local.first { $0.localIdentifier == identifiers[0] })
                #expect(first.isFavorite && first.creationDate == Date(timeIntervalSince1970: 1_600_000_000))
                let resource = try #require(PHAssetResource.assetResources(for: first).first)
                #expect(resource.originalFilename == "IMG_0001.JPG")
                #expect(resource.sha256 == BackupDestinationTests.sha256(bytes))
                let second = try #require(local.first { $0.localIdentifier == identifiers[1] })
                #expect(PHAssetResource.assetResources(for: second).first?.originalFilename == "Moved.JPG")
                // The remote side finds them in the album it made.
                let album = try #require(PHAssetCollection.fetchAssetCollections(with: .album, subtype: .any, options: .remote(remote)).firstObject)
                #expect(PHAsset.fetchAssets(in: album, options: .remote(remote)).map(\.localIdentifier) == identifiers)
            }
        }
    }

    /// An asset's resources are the server's, read by ranges when network access is allowed ("in the cloud").
    @Test func resourcesReadFromTheServer() async throws {
        let fixture = try ServerFixture(name: "RemoteResources")
        defer { fixture.library.remove() }
        let ids = try fixture.library.addImages(1)
        let token = try fixture.token("app", .authorized)
        try await fixture.test { client in
            let port = try #require(client.port)
            try await blocking {
                let remote = try PHPhotoLibrary(url: URL(string: "http://127.0.0.1:\(port)")!, accessToken: token)
                let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: ids, options: .remote(remote)).firstObject)
                let own = try #require(PHAsset.fetchAssets(withLocalIdentifiers: ids, options: fixture.library.options()).firstObject)
                func describe(_ resources: [PHAssetResource]) -> [String] {
                    resources.map { "\($0.type.rawValue) \($0.originalFilename) \($0.uniformTypeIdentifier) \($0.sha256) \($0.fileSize)" }
                }
                let resources = PHAssetResource.assetResources(for: asset)
                #expect(!resources.isEmpty)
                #expect(describe(resources) == describe(PHAssetResource.assetResources(for: own)))
                let resource = try #require(resources.first)
                func read(network: Bool) -> (Data, (any Error)?, [Double]) {
                    let done = DispatchSemaphore(value: 0)
                    let box = Mutex<(Data, (any Error)?, [Double])>((Data(), nil, []))
                    let options = PHAssetResourceRequestOptions()
                    options.isNetworkAccessAllowed = network
                    options.progressHandler = { fraction in box.withLock { $0.2.append(fraction) } }
                    PHAssetResourceManager.default().requestData(for: resource, options: options) { data in
                        box.withLock { $0.0.append(data) }
                    } completionHandler: { error in
                        box.withLock { $0.1 = error }
                        done.signal()
                    }
                    done.wait()
                    return box.withLock { $0 }
                }
                let offline = read(network: false)
                #expect((offline.1 as? PHPhotosError)?.code == .networkAccessRequired)
                let online = read(network: true)
                #expect(online.1 == nil)
                let stored = try #require(PHAssetResource.assetResources(for: own).first?.fileURL)
                #expect(online.0 == (try Data(contentsOf: stored)))
                #expect(online.2.last == 1)
            }
        }
    }

    /// A fetch result's membership is the server's state when it ran: assets added later are not in it, and its
    /// objects still load.
    @Test func membershipIsFrozenAtFetchTime() async throws {
        let (fixture, ids) = try makeFixture()
        defer { fixture.library.remove() }
        let token = try fixture.token("app", .authorized)
        try await fixture.test { client in
            let port = try #require(client.port)
            try await blocking {
                let remote = try PHPhotoLibrary(url: URL(string: "http://127.0.0.1:\(port)")!, accessToken: token)
                let options = PHFetchOptions()
                options.photoLibrary = remote
                let before = PHAsset.fetchAssets(with: options)
                #expect(before.count == 6)
                let added = try fixture.library.addImages(2, startingAt: Date(timeIntervalSince1970: 1_600_000_000))
                #expect(before.count == 6)
                #expect(before.map(\.localIdentifier) == [ids[0], ids[1], ids[3], ids[4], ids[5], ids[6]])
                let after = PHAsset.fetchAssets(with: options)
                #expect(after.map(\.localIdentifier) == added + [ids[0], ids[1], ids[3], ids[4], ids[5], ids[6]])
            }
        }
    }

    /// A limited client's server answers only its selection, also for handles it was never given.
    @Test func aLimitedClientSeesItsSelectionOnly() async throws {
        let (fixture, ids) = try makeFixture()
        defer { fixture.library.remove() }
        let token = try fixture.token("picker", .limited, selection: [ids[4], ids[0]])
        let everything = try fixture.token("app", .authorized)
        try await fixture.test { client in
            let port = try #require(client.port)
            try await blocking {
                let url = URL(string: "http://127.0.0.1:\(port)")!
                let limited = try PHPhotoLibrary(url: url, accessToken: token)
                let options = PHFetchOptions()
                options.photoLibrary = limited
                #expect(PHAsset.fetchAssets(with: options).map(\.localIdentifier) == [ids[0], ids[4]])
                // The handles of every asset, from a client that may see them all, asked for by the limited one.
                let full = PHFetchOptions()
                full.photoLibrary = try PHPhotoLibrary(url: url, accessToken: everything)
                full.includeHiddenAssets = true
                #expect(PHAsset.fetchAssets(with: full).count == 7)
            }
            let all = try await client.call("/v1/assets/ids?includeHidden=true", token: everything)
            #expect(all.status == .ok)
            #expect(all.bytes.count == 7 * 8)
            let handles = stride(from: 0, to: all.bytes.count, by: 8).map { offset in
                all.bytes[offset..<offset + 8].reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }
            }
            let answer = try await client.call("/v1/assets/records", .post, token: token, json: ["ids": handles])
            #expect(answer.status == .ok)
            let columns = answer.json["columns"] as? [String: Any] ?? [:]
            #expect(Set(columns["localIdentifier"] as? [String] ?? []) == [ids[0], ids[4]])
            #expect((columns["id"] as? [Any])?.count == 2)
            // Counted (countOfAssets) among what each client may see, and a body that is not handles refused.
            for (who, type, expected) in [(token, 1, 2), (everything, 1, 7), (everything, 2, 0)] {
                let counted = try await client.execute(
                    uri: "/v1/assets/count?mediaType=\(type)", method: .post,
                    headers: [.authorization: "Bearer \(who)", .contentType: "application/octet-stream"], body: ByteBuffer(bytes: all.bytes))
                #expect(counted.status == .ok && counted.json["count"] as? Int == expected, "\(type): \(counted.json)")
            }
            let odd = try await client.execute(
                uri: "/v1/assets/count", method: .post, headers: [.authorization: "Bearer \(token)"], body: ByteBuffer(bytes: [1, 2, 3]))
            #expect(odd.status == .badRequest)
        }
    }

    /// Failures are typed errors in bounded time: a token the server refuses, a token file others may read, a
    /// server that is not there, and what a served library does not offer yet.
    @Test func failuresAreTypedErrors() async throws {
        let (fixture, _) = try makeFixture()
        defer { fixture.library.remove() }
        let token = try fixture.token("app", .authorized)
        try await fixture.test { client in
            let port = try #require(client.port)
            try await blocking {
                let url = URL(string: "http://127.0.0.1:\(port)")!
                #expect(throws: PHPhotosError.self) { try PHPhotoLibrary(url: url, accessToken: "not-a-token") }
                do {
                    _ = try PHPhotoLibrary(url: url, accessToken: "not-a-token")
                } catch let error as PHPhotosError {
                    #expect(error.code == .accessUserDenied)
                }
                let readable = fixture.library.scratch.appendingPathComponent("token")
                try Data(token.utf8).write(to: readable)
                try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: readable.path)
                #expect(throws: PHPhotosError.self) { try PHPhotoLibrary.readAccessToken(fromFile: readable.path) }
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: readable.path)
                #expect(try PHPhotoLibrary.readAccessToken(fromFile: readable.path) == token)

                let remote = try PHPhotoLibrary(url: url, accessToken: token)
                let text = fixture.library.scratch.appendingPathComponent("notes.jpg")
                try Data("not a photo".utf8).write(to: text)
                let before = PHAsset.fetchAssets(with: fixture.library.options { $0.includeHiddenAssets = true }).count
                do {
                    try remote.performChangesAndWait {
                        PHAssetChangeRequest(for: PHAsset.fetchAssets(with: PHFetchOptions.remote(remote)).object(at: 0)).isFavorite = false
                        _ = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: text)
                    }
                    Issue.record("a file that is not a photo became an asset")
                } catch let error as PHPhotosError {
                    #expect(error.code == .invalidResource)
                }
                #expect(PHAsset.fetchAssets(with: fixture.library.options { $0.includeHiddenAssets = true }).count == before)
                #expect(FileManager.default.fileExists(atPath: text.path), "the caller's file stays when nothing was created")
            }
        }
        // Nothing listens on the port any more.
        let closed = try await blocking { () -> (PHPhotosError.Code?, TimeInterval) in
            let start = Date()
            do {
                _ = try PHPhotoLibrary(url: URL(string: "http://127.0.0.1:9")!, accessToken: token)
                return (nil, 0)
            } catch let error as PHPhotosError {
                return (error.code, Date().timeIntervalSince(start))
            }
        }
        #expect(closed.0 == .networkError)
        #expect(closed.1 < 10)
    }
}

/// Images of a served library: rendered by the server, kept on this machine, "in the cloud" until then.
@Suite("Remote library images")
struct RemoteLibraryImageTests {
    final class Box: @unchecked Sendable {
        var results: [(size: CGSize?, degraded: Bool, inCloud: Bool, error: PHPhotosError.Code?)] = []
        var progress: [Double] = []
        let done = DispatchSemaphore(value: 0)
    }

    @Test func imagesDownloadOnceAndAnswerFromTheCacheAfterwards() async throws {
        let fixture = try ServerFixture(name: "RemoteImages")
        defer { fixture.library.remove() }
        let ids = try fixture.library.addImages(2)
        let token = try fixture.token("app", .authorized)
        let cache = fixture.library.scratch.appendingPathComponent("image-cache")
        try await fixture.test { client in
            let port = try #require(client.port)
            try await blocking {
                let url = URL(string: "http://127.0.0.1:\(port)")!
                let remote = try PHPhotoLibrary(url: url, accessToken: token, cacheDirectory: cache)
                let options = PHFetchOptions()
                options.photoLibrary = remote
                let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [ids[0]], options: options).firstObject)
                let own = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [ids[0]], options: fixture.library.options()).firstObject)
                let manager = PHImageManager()
                func request(
                    _ manager: PHImageManager, _ asset: PHAsset, _ size: CGSize, _ mode: PHImageContentMode, network: Bool,
                    mode delivery: PHImageRequestOptionsDeliveryMode = .highQualityFormat, synchronous: Bool = true
                ) -> Box {
                    let box = Box()
                    let options = PHImageRequestOptions()
                    options.isSynchronous = synchronous
                    options.isNetworkAccessAllowed = network
                    options.deliveryMode = delivery
                    options.progressHandler = { fraction, _, _, _ in box.progress.append(fraction) }
                    manager.requestImage(for: asset, targetSize: size, contentMode: mode, options: options) { image, info in
                        let result = ImageResultInfo(info)
                        box.results.append((image?.size, result.isDegraded, result.isInCloud, result.error?.code))
                        if !result.isDegraded { box.done.signal() }
                    }
                    box.done.wait()
                    return box
                }
                // Not here and no network: in the cloud.
                let offline = request(manager, asset, CGSize(width: 120, height: 120), .aspectFit, network: false)
                #expect(offline.results.count == 1)
                #expect(offline.results.first?.size == nil && offline.results.first?.inCloud == true)
                #expect(offline.results.first?.error == .networkAccessRequired)
                // Downloaded: the size the library's own manager renders, progress told to the end.
                for (size, mode) in [
                    (CGSize(width: 120, height: 120), PHImageContentMode.aspectFit), (CGSize(width: 50, height: 30), .aspectFill),
                    (CGSize(width: 33, height: 33), .aspectFit), (CGSize(width: 10, height: 40), .aspectFill),
                ] {
                    let online = request(manager, asset, size, mode, network: true)
                    let local = request(PHImageManager(), own, size, mode, network: false)
                    #expect(online.results.count == 1)
                    #expect(
                        online.results.first?.size != nil && online.results.first?.size == local.results.first?.size,
                        "\(size) \(mode): \(String(describing: online.results.first?.size)) vs \(String(describing: local.results.first?.size)) of \(own.pixelWidth)x\(own.pixelHeight)"
                    )
                    #expect(online.results.first?.inCloud == false)
                    #expect(online.progress.last == 1)
                }
                // Another handle on the same cache: what was downloaded is here without the network.
                let again = try PHPhotoLibrary(url: url, accessToken: token, cacheDirectory: cache)
                let options2 = PHFetchOptions()
                options2.photoLibrary = again
                let same = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [ids[0]], options: options2).firstObject)
                let cached = request(PHImageManager(), same, CGSize(width: 33, height: 33), .aspectFit, network: false)
                #expect(cached.results.first?.size != nil && cached.results.first?.inCloud == false)
                // Opportunistic, a larger size not here: the cached smaller one first (degraded), then the download.
                let larger = request(
                    PHImageManager(), same, CGSize(width: 60, height: 60), .aspectFit, network: true, mode: .opportunistic, synchronous: false)
                #expect(larger.results.map(\.degraded) == [true, false])
                // The largest of the smaller renderings here (53 × 40, of the 10 × 40 fill), then the 60 × 45 one.
                #expect(larger.results.first?.size == CGSize(width: 53, height: 40))
                #expect(larger.results.last?.size == CGSize(width: 60, height: 45))
                // A caching manager downloads ahead of the requests (with network access), which then need no network.
                let caching = PHCachingImageManager()
                let ahead = PHImageRequestOptions()
                ahead.isNetworkAccessAllowed = true
                caching.startCachingImages(for: [same], targetSize: CGSize(width: 20, height: 20), contentMode: .aspectFit, options: ahead)
                caching.waitForCaching()
                let prepared = request(caching, same, CGSize(width: 20, height: 20), .aspectFit, network: false)
                #expect(prepared.results.first?.size == CGSize(width: 20, height: 15))
                // Without the network, the degraded one comes, then nil in the cloud.
                let other = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [ids[1]], options: options2).firstObject)
                let none = request(
                    PHImageManager(), other, CGSize(width: 400, height: 400), .aspectFit, network: false, mode: .opportunistic, synchronous: false)
                #expect(none.results.count == 1 && none.results.first?.inCloud == true)
            }
        }
    }
}

extension RemoteLibraryImageTests {
    /// A photo's bytes are "in the cloud": without network access nil and `PHImageResultIsInCloudKey`; with it
    /// downloaded, then here for requests without it. (Videos take the same path: the
    /// conformance suite reads one with network access.)
    @Test func imageDataDownloadsOnlyWithNetworkAccess() async throws {
        let fixture = try ServerFixture(name: "RemoteData")
        defer { fixture.library.remove() }
        let photo = try fixture.library.makeImage("IMG_0001.JPG", width: 40, height: 30)
        let id = try #require(try fixture.library.library.importItems(at: [photo]).importedLocalIdentifiers.first)
        let token = try fixture.token("app", .authorized)
        try await fixture.test { client in
            let port = try #require(client.port)
            try await blocking {
                let remote = try PHPhotoLibrary(
                    url: URL(string: "http://127.0.0.1:\(port)")!, accessToken: token,
                    cacheDirectory: fixture.library.scratch.appendingPathComponent("cache"))
                let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [id], options: .remote(remote)).firstObject)
                func data(network: Bool) -> (Data?, [AnyHashable: Any]?) {
                    let options = PHImageRequestOptions()
                    options.isSynchronous = true
                    options.isNetworkAccessAllowed = network
                    nonisolated(unsafe) var answer: (Data?, [AnyHashable: Any]?)
                    PHImageManager.default().requestImageDataAndOrientation(for: asset, options: options) { data, _, _, info in
                        answer = (data, info)
                    }
                    return answer
                }
                let offline = data(network: false)
                #expect(offline.0 == nil)
                #expect(offline.1?[PHImageResultIsInCloudKey] as? Bool == true)
                #expect((offline.1?[PHImageErrorKey] as? PHPhotosError)?.code == .networkAccessRequired)
                let online = data(network: true)
                #expect(online.0 == (try Data(contentsOf: photo)))
                let cached = data(network: false)
                #expect(cached.0 == (try Data(contentsOf: photo)))
            }
        }
    }
}

/// Observers of a served library hear of changes made by any client, through the server's change feed.
@Suite("Remote library observation")
struct RemoteLibraryObservationTests {
    /// A served library on `port` and a recorder of all its `assets` (watching the one at `index`), registered
    /// as its change observer.
    static func observe(port: Int, token: String, assets: Int, watching index: Int) throws -> (PHPhotoLibrary, Recorder) {
        let remote = try PHPhotoLibrary(url: URL(string: "http://127.0.0.1:\(port)")!, accessToken: token)
        let options = PHFetchOptions()
        options.photoLibrary = remote
        let all = PHAsset.fetchAssets(with: options)
        try #require(all.count == assets, "the served library answered \(all.count) assets")
        let recorder = Recorder(result: all, watched: all.object(at: index))
        remote.register(recorder as any PHPhotoLibraryChangeObserver)
        return (remote, recorder)
    }

    final class Recorder: NSObject, PHPhotoLibraryChangeObserver, PHPhotoLibraryAvailabilityObserver, @unchecked Sendable {
        let condition = NSCondition()
        var result: PHFetchResult<PHAsset>
        var steps: [(removed: [Int], inserted: [Int], changed: [Int])] = []
        var favoriteAfter: [Bool] = []
        var watched: PHAsset
        var unavailable: PHPhotosError?

        init(result: PHFetchResult<PHAsset>, watched: PHAsset) {
            self.result = result
            self.watched = watched
        }

        func photoLibraryDidChange(_ changeInstance: PHChange) {
            condition.lock()
            defer {
                condition.broadcast()
                condition.unlock()
            }
            if let details = changeInstance.changeDetails(for: result) {
                steps.append(
                    (Array(details.removedIndexes ?? []), Array(details.insertedIndexes ?? []), Array(details.changedIndexes ?? [])))
                result = details.fetchResultAfterChanges
            }
            if let object = changeInstance.changeDetails(for: watched), let after = object.objectAfterChanges {
                favoriteAfter.append(after.isFavorite)
                watched = after
            }
        }

        func photoLibraryDidBecomeUnavailable(_ photoLibrary: PHPhotoLibrary) {
            condition.lock()
            unavailable = photoLibrary.unavailabilityReason as? PHPhotosError
            condition.broadcast()
            condition.unlock()
        }

        /// Waits (at most a minute: a bound, not a timing assertion) until `done` holds.
        func wait(_ what: String, until done: () -> Bool) {
            condition.lock()
            defer { condition.unlock() }
            let deadline = Date().addingTimeInterval(60)
            while !done() {
                if !condition.wait(until: deadline) {
                    Issue.record("gave up waiting for \(what)")
                    return
                }
            }
        }
    }

    /// An observer registered while the server is down hears of changes once it is back (the feed keeps asking).
    @Test func anObserverRegisteredWhileTheServerIsDownHearsOnceItIsBack() async throws {
        // A port of our own: the server comes back on it.
        let port = try { try RemoteLibraryCommandLineTests.FakeServer(reply: nil).port }()
        let fixture = try ServerFixture(name: "RemoteRestart", configuration: .init(port: port))
        defer { fixture.library.remove() }
        let ids = try fixture.library.addImages(1)
        let token = try fixture.token("app", .authorized)
        let remote = Mutex<PHPhotoLibrary?>(nil)
        try await fixture.test { _ in
            let opened = try await blocking { try PHPhotoLibrary(url: URL(string: "http://127.0.0.1:\(port)")!, accessToken: token) }
            remote.withLock { $0 = opened }
        }
        let library = try #require(remote.withLock { $0 })
        let options = PHFetchOptions()
        options.photoLibrary = library
        let recorder = Recorder(
            result: PHFetchResult(), watched: PHAsset.fetchAssets(withLocalIdentifiers: ids, options: fixture.library.options()).object(at: 0))
        library.register(recorder as any PHPhotoLibraryChangeObserver)
        defer { library.unregisterChangeObserver(recorder) }
        try await fixture.test { _ in
            try await blocking {
                let owner = fixture.library.library
                let asset = PHAsset.fetchAssets(withLocalIdentifiers: ids, options: fixture.library.options()).object(at: 0)
                // Changes until one is heard (the feed starts from the server's newest transaction once it answers).
                var favorite = true
                for _ in 0..<120 {
                    try owner.performChangesAndWait { PHAssetChangeRequest(for: asset).isFavorite = favorite }
                    favorite.toggle()
                    recorder.condition.lock()
                    let heard =
                        !recorder.favoriteAfter.isEmpty
                        || recorder.condition.wait(until: Date().addingTimeInterval(0.5)) && !recorder.favoriteAfter.isEmpty
                    recorder.condition.unlock()
                    if heard { break }
                }
                recorder.condition.lock()
                #expect(!recorder.favoriteAfter.isEmpty, "no change reached the observer")
                recorder.condition.unlock()
            }
        }
    }

    /// The feed resumes after the server was gone: what changed meanwhile reaches the observer once the server is
    /// back (the feed asks for what follows the last event it had, `Last-Event-ID`), nothing lost and nothing told
    /// twice.
    @Test func theFeedResumesAfterTheServerWasGoneWithNothingLostOrDoubled() async throws {
        let port = try { try RemoteLibraryCommandLineTests.FakeServer(reply: nil).port }()
        let fixture = try ServerFixture(name: "RemoteResume", configuration: .init(port: port))
        defer { fixture.library.remove() }
        _ = try fixture.library.addImages(1)
        let token = try fixture.token("app", .authorized)
        let opened = Mutex<(PHPhotoLibrary, Recorder)?>(nil)
        try await fixture.test { _ in
            try await blocking {
                let (remote, recorder) = try Self.observe(port: port, token: token, assets: 1, watching: 0)
                // A change made before the feed is connected is not told (it starts from the server's newest
                // transaction): add until one is heard.
                for added in 1...120 {
                    _ = try fixture.library.addImages(1)
                    let heard = recorder.condition.withLock {
                        recorder.result.count == 1 + added || recorder.condition.wait(until: Date().addingTimeInterval(0.5))
                    }
                    if heard { break }
                }
                // Every change since the feed connected is told (one heard, the ones after it follow).
                let total = PHAsset.fetchAssets(with: fixture.library.options()).count
                recorder.wait("the changes while the server runs") { recorder.result.count == total }
                opened.withLock { $0 = (remote, recorder) }
            }
        }
        // The server is gone; the library changes without it.
        _ = try fixture.library.addImages(2)
        let (remote, recorder) = try #require(opened.withLock { $0 })
        defer { remote.unregisterChangeObserver(recorder) }
        let before = recorder.condition.withLock { recorder.result.count }
        try await fixture.test { _ in
            try await blocking {
                recorder.wait("the changes made while the server was gone") { recorder.result.count == before + 2 }
                // Anything told twice would come before this change, as a step of its own.
                _ = try fixture.library.addImages(1)
                recorder.wait("a change after the resumption") { recorder.result.count == before + 3 }
            }
        }
        let steps = recorder.condition.withLock { recorder.steps }
        #expect(steps.flatMap(\.inserted).count == before + 2, "\(steps)")  // from 1 asset to before + 3
        #expect(steps.allSatisfy { !$0.inserted.isEmpty && $0.removed.isEmpty }, "every step a change: \(steps)")
    }

    @Test func changesByAnotherClientReachTheObserverWithDetails() async throws {
        let fixture = try ServerFixture(name: "RemoteObservation")
        defer { fixture.library.remove() }
        let ids = try fixture.library.addImages(3)
        let token = try fixture.token("app", .authorized)
        try await fixture.test { client in
            let port = try #require(client.port)
            try await blocking {
                let (remote, recorder) = try Self.observe(port: port, token: token, assets: 3, watching: 1)
                remote.register(recorder as any PHPhotoLibraryAvailabilityObserver)
                defer { remote.unregisterChangeObserver(recorder) }
                let owner = fixture.library.library
                let local = PHAsset.fetchAssets(with: fixture.library.options())
                // Another client favorites the second photo: one change, the second slot reloaded.
                try owner.performChangesAndWait { PHAssetChangeRequest(for: local.object(at: 1)).isFavorite = true }
                recorder.wait("the favorite") { recorder.steps.count == 1 }
                #expect(recorder.steps.last?.changed == [1] && recorder.steps.last?.inserted == [] && recorder.steps.last?.removed == [])
                #expect(recorder.favoriteAfter == [true])
                // A newer photo: inserted at the end. Then the first one deleted: removed from the front.
                let added = try fixture.library.addImages(1, startingAt: Date(timeIntervalSince1970: 1_800_000_000))
                recorder.wait("the insertion") { recorder.steps.count == 2 }
                #expect(recorder.steps.last?.inserted == [3])
                try owner.performChangesAndWait { PHAssetChangeRequest.deleteAssets([local.object(at: 0)] as NSArray) }
                recorder.wait("the deletion") { recorder.steps.count == 3 }
                #expect(recorder.steps.last?.removed == [0])
                #expect(recorder.result.map(\.localIdentifier) == [ids[1], ids[2], added[0]])
                #expect(recorder.result.object(at: 0).isFavorite)

                // The owner revokes the token: observation ends with an authorization error (the stream ends at the
                // next event; the client's reconnection is refused).
                _ = try owner.revokeAccessTokens(matching: "app")
                try owner.performChangesAndWait { PHAssetChangeRequest(for: local.object(at: 2)).isHidden = true }
                recorder.wait("the revoked token") { recorder.unavailable != nil }
                #expect(recorder.unavailable?.code == .accessUserDenied)
                #expect((remote.unavailabilityReason as? PHPhotosError)?.code == .accessUserDenied)
            }
        }
    }
}

extension PHFetchOptions {
    /// Options that fetch from `library`.
    static func remote(_ library: PHPhotoLibrary) -> PHFetchOptions {
        let options = PHFetchOptions()
        options.photoLibrary = library
        return options
    }
}

/// The persistent history of a served library, read through the remote library.
@Suite("Remote library history")
struct RemoteLibraryHistoryTests {
    final class Updates: NSObject, PHPhotoLibraryPersistentChangesObserver, @unchecked Sendable {
        let count = Mutex(0)
        let arrived = DispatchSemaphore(value: 0)
        func photoLibraryPersistentChangesDidUpdate(_ photoLibrary: PHPhotoLibrary) {
            count.withLock { $0 += 1 }
            arrived.signal()
        }
    }

    @Test func historyAnswersWhatTheServersLibraryAnswers() async throws {
        let fixture = try ServerFixture(name: "RemoteHistory")
        defer { fixture.library.remove() }
        let owner = fixture.library.library
        let start = owner.currentChangeToken
        let ids = try fixture.library.addImages(2)
        let assets = PHAsset.fetchAssets(withLocalIdentifiers: ids, options: fixture.library.options())
        try owner.performChangesAndWait {
            PHAssetChangeRequest(for: assets.object(at: 0)).isFavorite = true
            let album = PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "History")
            album.addAssets([assets.object(at: 1)] as NSArray)
            _ = PHCollectionListChangeRequest.creationRequestForCollectionList(withTitle: "Folder")
        }
        try owner.performChangesAndWait { PHAssetChangeRequest.deleteAssets([assets.object(at: 1)] as NSArray) }
        let token = try fixture.token("app", .authorized)
        try await fixture.test { client in
            let port = try #require(client.port)
            try await blocking {
                let remote = try PHPhotoLibrary(url: URL(string: "http://127.0.0.1:\(port)")!, accessToken: token)
                #expect(remote.currentChangeToken == owner.currentChangeToken)
                func describe(_ result: PHPersistentChangeFetchResult) throws -> [String] {
                    try result.map { change in
                        var line = "\(change.changeToken.wireForm) \(change.clientIdentifier ?? "-")"
                        for type in [PHObjectType.asset, .assetCollection, .collectionList] {
                            let details = try change.changeDetails(for: type)
                            line +=
                                " \(type.rawValue):+\(details.insertedLocalIdentifiers.sorted())~\(details.updatedLocalIdentifiers.sorted())-\(details.deletedLocalIdentifiers.sorted())"
                        }
                        return line
                    }
                }
                let served = try describe(remote.fetchPersistentChanges(since: start))
                #expect(served.count >= 3)
                #expect(served == (try describe(owner.fetchPersistentChanges(since: start))))
                // A token of another library.
                let other = try TestLibrary(name: "Other")
                defer { other.remove() }
                do {
                    _ = try remote.fetchPersistentChanges(since: other.library.currentChangeToken)
                    Issue.record("another library's token was taken")
                } catch let error as PHPhotosError {
                    #expect(error.code == .identifierNotFound)
                }
                // The iOS 27 observer: told after a change made elsewhere.
                let updates = Updates()
                remote.register(updates)
                defer { remote.unregisterPersistentChangesObserver(updates) }
                let before = remote.currentChangeToken
                try owner.performChangesAndWait { PHAssetChangeRequest(for: assets.object(at: 0)).isFavorite = false }
                #expect(updates.arrived.wait(timeout: .now() + 60) == .success)
                let latest = try describe(remote.fetchPersistentChanges(since: before))
                #expect(latest.count == 1)
            }
        }
    }
}

/// The command line against a served library, and servers that fail: typed errors in bounded time.
@Suite("Remote library from the command line")
struct RemoteLibraryCommandLineTests {
    /// A loopback listener that never accepts (connections complete in its backlog, requests are never answered), or
    /// that answers every request with `reply`, or each as `respond` says.
    final class FakeServer: @unchecked Sendable {
        let fd: Int32
        let port: Int
        /// Connections a responder chose to hold open, answered in part.
        final class Held: Sendable { let clients = Mutex<[Int32]>([]) }
        private let held = Held()

        convenience init(reply: String?) throws {
            if let reply {
                try self.init(respond: { @Sendable _ in (reply: reply, stall: false) })
            } else {
                try self.init(respond: nil)
            }
        }

        /// Answers each request with what `respond` gives for its first line; `stall` keeps the connection open after
        /// the reply (a server that stopped in the middle of a body).
        init(respond: (@Sendable (String) -> (reply: String, stall: Bool))?) throws {
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            fd = listener
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
            guard bound == 0, listen(listener, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
            port = Int(UInt16(bigEndian: address.sin_port))
            guard let respond else { return }
            let held = self.held
            Thread.detachNewThread {
                while true {
                    let client = accept(listener, nil, nil)
                    guard client >= 0 else { return }
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    let count = read(client, &buffer, buffer.count)
                    let head = String(decoding: buffer.prefix(max(0, count)), as: UTF8.self).split(separator: "\r\n").first.map(String.init) ?? ""
                    let (reply, stall) = respond(head)
                    _ = reply.utf8CString.withUnsafeBufferPointer { write(client, $0.baseAddress, $0.count - 1) }
                    if stall { held.clients.withLock { $0.append(client) } } else { close(client) }
                }
            }
        }

        deinit {
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
            for client in held.clients.withLock({ $0 }) { close(client) }
        }
    }

    @Test func photosListsAServedLibrary() async throws {
        let fixture = try ServerFixture(name: "RemoteCLI")
        defer { fixture.library.remove() }
        let ids = try fixture.library.addImages(3)
        let token = try fixture.token("cli", .authorized)
        try await fixture.test { client in
            let port = try #require(client.port)
            let run = try await blocking {
                try PhotosCommandLine.run(["ls", "--json", "--library", "http://127.0.0.1:\(port)"], environment: ["PHOTOS_TOKEN": token])
            }
            #expect(run.status == 0, "\(run.stderr)")
            let listed = (try run.json() as? [[String: Any]])?.compactMap { $0["localIdentifier"] as? String }
            #expect(listed == ids)
            let refused = try await blocking {
                try PhotosCommandLine.run(["ls", "--library", "http://127.0.0.1:\(port)"], environment: ["PHOTOS_TOKEN": "not-a-token"])
            }
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("3311"), "\(refused.stderr)")
        }
    }

    /// A server whose library counts the fetch says so before the handles (`Photos-Count`): the fetch result's
    /// `count` is known while they are still on their way — here, never sent. A server whose count is not the
    /// number of handles it sends makes the result keep the count it was told, the missing objects unreadable and
    /// its `fetchError` a network error.
    /// A loop over a served result asking each asset's resources (its batch's asked for together) answers what the
    /// library has, the second time round too, and after another client edited one of them.
    @Test func resourcesInALoopAreTheLibrarys() async throws {
        let fixture = try ServerFixture(name: "RemoteResources")
        defer { fixture.library.remove() }
        _ = try fixture.library.addImages(4)
        let token = try fixture.token("app", .authorized)
        @Sendable func described(_ result: PHFetchResult<PHAsset>) -> [[String]] {
            (0..<result.count).map { index in
                PHAssetResource.assetResources(for: result.object(at: index)).map { "\($0.type.rawValue) \($0.sha256)" }
            }
        }
        let local = { @Sendable in PHAsset.fetchAssets(with: fixture.library.options()) }
        let expected = described(local())
        #expect(expected.count == 4 && expected.allSatisfy { $0.count == 1 })
        try await fixture.test { client in
            let port = try #require(client.port)
            let remote = try await blocking { try PHPhotoLibrary(url: URL(string: "http://127.0.0.1:\(port)")!, accessToken: token) }
            try await blocking {
                let served = PHAsset.fetchAssets(with: .remote(remote))
                #expect(described(served) == expected)
                #expect(described(served) == expected)
            }
            // Another client edits the third photo: a new fetch's loop sees its rendering.
            let third = local().object(at: 2)
            let input = try await third.requestContentEditingInput(with: PHContentEditingInputRequestOptions())
            let output = PHContentEditingOutput(contentEditingInput: input)
            output.adjustmentData = PHAdjustmentData(formatIdentifier: "com.example.flip", formatVersion: "1", data: Data("1".utf8))
            try FileManager.default.copyItem(at: try fixture.library.makeImage("flip.jpg", width: 30, height: 20), to: output.renderedContentURL)
            try fixture.library.library.performChangesAndWait { PHAssetChangeRequest(for: third).contentEditingOutput = output }
            let edited = described(local())
            #expect(edited[2].count > 1 && edited != expected)
            try await blocking { #expect(described(PHAsset.fetchAssets(with: .remote(remote))) == edited) }
        }
    }

    /// A loop that commits a change block between its questions (an upload extension making jobs a page at a
    /// time) still asks for the files of a batch of records together: the block forgets the files kept, not the
    /// batch, so the next question asks again for the assets not asked about yet. And records loaded before the
    /// loop (the extension reads a page of identifiers first) keep their batches: one request per batch.
    @Test func aChangeBlockInALoopKeepsItsBatchTogether() async throws {
        let fixture = try ServerFixture(name: "RemoteResourcesBlocks")
        defer { fixture.library.remove() }
        _ = try fixture.library.addImages(205)
        let token = try fixture.token("app", .authorized)
        let local = PHAsset.fetchAssets(with: fixture.library.options())
        let expected = (0..<local.count).map { PHAssetResource.assetResources(for: local.object(at: $0)).map(\.sha256) }
        #expect(expected.count == 205 && expected.allSatisfy { $0.count == 1 })
        try await fixture.test { client in
            let port = try #require(client.port)
            let remote = try await blocking { try PHPhotoLibrary(url: URL(string: "http://127.0.0.1:\(port)")!, accessToken: token) }
            try await blocking {
                let served = PHAsset.fetchAssets(with: .remote(remote))
                // Every record first (three batches: 100, 100 and 5).
                #expect(served.objects(at: IndexSet(integersIn: 0..<served.count)).count == 205)
                var answers: [[String]] = []
                var asked: [Int: Int] = [:]
                for index in 0..<served.count {
                    let asset = served.object(at: index)
                    answers.append(PHAssetResource.assetResources(for: asset).map(\.sha256))
                    asked[index] = remote.servedResourceRequests
                    if index == 49 || index == 149 {
                        try remote.performChangesAndWait { PHAssetChangeRequest(for: asset).isFavorite = true }
                    }
                }
                #expect(answers == expected)
                // The first batch at the first question; its 50 not asked about yet after the first block; the
                // second batch; its rest after the second block; the third batch.
                #expect([0, 49, 50, 99, 100, 149, 150, 199, 200, 204].map { asked[$0] } == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5])
            }
        }
    }

    @Test func aServedFetchKnowsItsCountBeforeItsHandles() async throws {
        func server(count: Int, sending handles: Int, stall: Bool) throws -> FakeServer {
            try FakeServer { head in
                if head.hasPrefix("GET /v1/session") {
                    let body = #"{"client":"app","status":"authorized","canRead":true,"canAdd":true,"canManageCollections":true}"#
                    return (
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)",
                        false
                    )
                }
                if head.hasPrefix("POST /v1/assets/ids") {
                    let part = String(repeating: "\u{1}\0\0\0\0\0\0\0", count: handles)
                    return (
                        "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nPhotos-Change-Token: 1\r\nPhotos-Count: \(count)\r\n"
                            + "Content-Length: \(stall ? count * 8 : handles * 8)\r\nConnection: close\r\n\r\n\(part)",
                        stall
                    )
                }
                let body = "{}"  // no records: none of these handles is an asset
                return (
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)",
                    false
                )
            }
        }
        let stalled = try server(count: 1_000, sending: 150, stall: true)
        let lying = try server(count: 160, sending: 150, stall: false)
        try await blocking {
            let remote = try PHPhotoLibrary(url: URL(string: "http://127.0.0.1:\(stalled.port)")!, accessToken: "t")
            let options = PHFetchOptions()
            options.photoLibrary = remote
            let result = PHAsset.fetchAssets(with: options)
            // Without the header this would wait for the rest of the handles (until the request's deadline).
            #expect(result.count == 1_000 && result.fetchError == nil)

            let liar = try PHPhotoLibrary(url: URL(string: "http://127.0.0.1:\(lying.port)")!, accessToken: "t")
            options.photoLibrary = liar
            let told = PHAsset.fetchAssets(with: options)
            #expect(told.count == 160)
            // Objects that cannot be read (this server has no records): placeholders, and no trap past the 150th.
            #expect(told.object(at: 159).localIdentifier == "" && told.object(at: 149).localIdentifier == "")
            let error = try #require(told.fetchError)
            #expect(error.code == .networkError && "\(error)".contains("said 160 assets match and sent 150"), "\(error)")
        }
    }

    @Test func aServerThatIsSilentOrSpeaksSomethingElseIsANetworkErrorInBoundedTime() async throws {
        let silent = try FakeServer(reply: nil)
        let garbage = try FakeServer(
            reply: "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 13\r\nConnection: close\r\n\r\n<html></html>")
        // Servers that open the library, then stop in the middle of a fetch's membership: before its first page
        // (the fetch fails), and after it (the result says so once the rest does not come: the command fails, and
        // prints no list as if it were all).
        func stalling(after handles: Int) throws -> FakeServer {
            try FakeServer { head in
                if head.hasPrefix("GET /v1/session") {
                    let body = #"{"client":"cli","status":"authorized","canRead":true,"canAdd":true,"canManageCollections":true}"#
                    return (
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)",
                        false
                    )
                }
                let part = String(repeating: "\u{1}\0\0\0\0\0\0\0", count: handles)
                return (
                    "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nPhotos-Change-Token: 1\r\nContent-Length: 8000\r\n\r\n\(part)",
                    true
                )
            }
        }
        let early = try stalling(after: 2)
        let late = try stalling(after: 150)
        for (server, what) in [(silent, "silent"), (garbage, "garbage"), (early, "stalling mid-body"), (late, "stalling after a page")] {
            // Timed from the moment the command starts (not while this waits for a thread to run it on).
            let (run, seconds) = try await blocking {
                let start = Date()
                let run = try PhotosCommandLine.run(
                    ["ls", "--json", "--library", "http://127.0.0.1:\(server.port)"],
                    environment: ["PHOTOS_TOKEN": "t", "PHOTOS_REMOTE_TIMEOUT": "2"])
                return (run, Date().timeIntervalSince(start))
            }
            #expect(run.status == 1, "\(what): \(run.stdout) \(run.stderr)")
            #expect(run.stdout.isEmpty, "\(what)")
            #expect(run.stderr.contains("3169"), "\(what): \(run.stderr)")
            // Two seconds of timeout, and the process's own start (a bound, not a timing assertion).
            #expect(seconds < 60, "\(what)")
        }
    }
}
