import Crypto
import Foundation
import Synchronization
import ObjectStorage
import OpenPhotos
import PhotoLibraryEngine
import PhotosTesting
import Testing

/// A library folder whose files are in object storage (`file:///…?files=s3://bucket/prefix`), against the test
/// command's SeaweedFS: blobs filed by content, stored once, removed only when no asset has their bytes, verified,
/// collected, and the location recorded in the library.
@Suite("Library files in object storage", .enabled(if: ObjectStorageUnderTest.bucket != nil))
struct ObjectStorageLibraryTests {
    static var bucket: String? { ObjectStorageUnderTest.bucket }

    /// A new library folder with its files under a prefix of its own; the folder's plain URL, the URL with the
    /// location, the location.
    struct Fixture {
        let scratch: URL
        let folder: URL
        let url: URL
        let location: S3Location
        var client: S3Client { location.client() }

        init() throws {
            scratch = try TestMedia.temporaryDirectory("s3-library")
            folder = scratch.appendingPathComponent("Library.photoslibrary")
            let prefix = "lib-\(UUID().uuidString.prefix(8).lowercased())"
            let bucket = try #require(ObjectStorageLibraryTests.bucket)
            let files = "s3://\(bucket)/\(prefix)"
            url = try #require(URL(string: "file://\(folder.path)?files=\(files)"))
            location = try S3Location(files)
        }

        func remove() {
            try? LibraryStorage.removeLibrary(at: url)
            try? FileManager.default.removeItem(at: scratch)
        }

        /// The objects under the library's prefix.
        func objects() async throws -> [String] {
            try await client.list(prefix: location.prefix).map(\.key)
        }

        func image(_ name: String, width: Int, height: Int) throws -> URL {
            let file = scratch.appendingPathComponent(name)
            try TestMedia.writeImage(to: file, width: width, height: height)
            return file
        }

        /// Adds photos from `files`, in one change block; their identifiers.
        func add(_ library: PHPhotoLibrary, _ files: [URL]) throws -> [String] {
            var ids: [String] = []
            try library.performChangesAndWait {
                for file in files {
                    ids.append(PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)!.placeholderForCreatedAsset!.localIdentifier)
                }
            }
            return ids
        }
    }

    static func sha256(_ file: URL) throws -> String {
        SHA256.hash(data: try Data(contentsOf: file)).map { String(format: "%02x", $0) }.joined()
    }

    @Test func blobsAreFiledByContentAndStoredOnce() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let library = try PHPhotoLibrary(url: fixture.url)
        let a = try fixture.image("a.jpg", width: 40, height: 30)
        let b = try fixture.image("b.jpg", width: 30, height: 40)
        let copyOfA = fixture.scratch.appendingPathComponent("a-again.jpg")
        try FileManager.default.copyItem(at: a, to: copyOfA)
        let ids = try fixture.add(library, [a, b, copyOfA])
        #expect(ids.count == 3)

        let (digestA, digestB) = (try Self.sha256(a), try Self.sha256(b))
        let expected = [digestA, digestB].map { "\(fixture.location.prefix)sha256/\($0.prefix(2))/\($0)" }.sorted()
        #expect(try await fixture.objects() == expected, "three assets, two different files: two objects named by their SHA-256")
        let originals = (try? FileManager.default.contentsOfDirectory(atPath: fixture.folder.appendingPathComponent("originals").path)) ?? []
        #expect(originals.isEmpty, "no original is kept in the folder")

        // The bytes come back as they went in, from a library opened by its plain path (the location is recorded).
        let options = PHFetchOptions()
        options.photoLibrary = try PHPhotoLibrary(url: fixture.folder)
        let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [ids[1]], options: options).firstObject)
        let resource = try #require(PHAssetResource.assetResources(for: asset).first)
        let fileURL = try #require(resource.fileURL)
        #expect(try Data(contentsOf: fileURL) == Data(contentsOf: b))
    }

    @Test func bytesAnotherAssetHasStayUntilNoAssetHasThem() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let library = try PHPhotoLibrary(url: fixture.url)
        let a = try fixture.image("a.jpg", width: 40, height: 30)
        let copyOfA = fixture.scratch.appendingPathComponent("a-again.jpg")
        try FileManager.default.copyItem(at: a, to: copyOfA)
        let ids = try fixture.add(library, [a, copyOfA])
        let options = PHFetchOptions()
        options.photoLibrary = library

        func purge(_ id: String) throws {
            let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [id], options: options).firstObject)
            try library.performChangesAndWait { PHAssetChangeRequest.deleteAssets([asset] as NSArray) }
            try library.performChangesAndWait { PHAssetChangeRequest.deleteAssets([asset] as NSArray) }
        }
        try purge(ids[0])
        #expect(try await fixture.objects().count == 1, "the other asset still has the bytes")
        #expect(try library.verify().problems.isEmpty)
        try purge(ids[1])
        #expect(try await fixture.objects() == [], "no asset has them: gone")
    }

    @Test func verificationFindsMissingChangedAndOrphanedObjectsAndCollectionTakesOnlyOrphans() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let library = try PHPhotoLibrary(url: fixture.url)
        let files = try [(40, 30), (30, 40), (20, 20)].enumerated().map {
            try fixture.image("\($0.offset).jpg", width: $0.element.0, height: $0.element.1)
        }
        _ = try fixture.add(library, files)
        let names = try files.map { file -> String in
            let digest = try Self.sha256(file)
            return "\(fixture.location.prefix)sha256/\(digest.prefix(2))/\(digest)"
        }
        #expect(try library.verify().problems.isEmpty)

        try await fixture.client.delete(key: names[0])
        try await fixture.client.put(key: names[1], body: Data("not the photo".utf8))
        let orphanDigest = String(repeating: "ab", count: 32)
        let orphan = "\(fixture.location.prefix)sha256/ab/\(orphanDigest)"
        try await fixture.client.put(key: orphan, body: Data("left by a writer that died".utf8))

        let problems = try library.verify().problems.map { "\($0.kind) \($0.path)" }.sorted()
        let options = PHFetchOptions()
        options.photoLibrary = library
        #expect(PHAsset.fetchAssets(with: options).count == 3)
        #expect(problems.count == 3, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("missingFile ") })
        #expect(problems.contains { $0.hasPrefix("sizeMismatch ") || $0.hasPrefix("hashMismatch ") })
        #expect(problems.contains("orphanFile \(orphan)"))

        // Younger than the age: kept. Then collected — only the orphan; the changed object is an asset's.
        #expect(try library.removeOrphanedFiles(olderThan: 3600) == [])
        #expect(try library.removeOrphanedFiles(olderThan: 0) == [orphan])
        #expect(Set(try await fixture.objects()) == [names[1], names[2]])
    }

    @Test func bytesThatAreNotWhatTheirKeyNamesAreNeverServed() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let library = try PHPhotoLibrary(url: fixture.url)
        let file = try fixture.image("a.jpg", width: 40, height: 30)
        let id = try fixture.add(library, [file])[0]
        let digest = try Self.sha256(file)
        try await fixture.client.put(key: "\(fixture.location.prefix)sha256/\(digest.prefix(2))/\(digest)", body: Data("changed in the store".utf8))
        // This node's copy went in with the import: without it, the changed bytes are refused.
        try FileManager.default.removeItem(at: fixture.folder.appendingPathComponent("resources/cache"))
        let engine = try LibraryEngine.open(at: fixture.folder)
        let asset = try #require(try engine.asset(localIdentifier: id))
        let record = try #require(try engine.resources(assetID: asset.id).first)
        do {
            let served = try engine.materialize(record)
            Issue.record("bytes that are not the asset's were given as \(served.path)")
        } catch {
            #expect(error.code == LibraryError.invalidResource("").code, "\(error)")
        }
        let cached = (try? FileManager.default.subpathsOfDirectory(atPath: fixture.folder.appendingPathComponent("resources/cache").path)) ?? []
        #expect(!cached.contains { $0.hasSuffix(digest) }, "no copy of the wrong bytes is kept")
    }

    /// PhotoKit's network rules for an original this machine has no copy of: without network access, nil and
    /// `PHImageResultIsInCloudKey` (`networkAccessRequired`); with it, downloaded with increasing progress, then local.
    @Test func imagesOfOriginalsThatAreNotLocalFollowPhotoKitsNetworkRules() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let library = try PHPhotoLibrary(url: fixture.url)
        let id = try fixture.add(library, [try fixture.image("a.jpg", width: 640, height: 480)])[0]
        // This node forgets its copy (as one whose cache evicted it, or another node).
        try FileManager.default.removeItem(at: fixture.folder.appendingPathComponent("resources/cache"))
        let options = PHFetchOptions()
        options.photoLibrary = library
        let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [id], options: options).firstObject)
        let manager = PHImageManager()

        func request(network: Bool, progress: PHAssetImageProgressHandler? = nil) -> (UIImage?, [AnyHashable: Any]) {
            let request = PHImageRequestOptions()
            request.isSynchronous = true
            request.isNetworkAccessAllowed = network
            request.progressHandler = progress
            var result: (UIImage?, [AnyHashable: Any]) = (nil, [:])
            manager.requestImage(for: asset, targetSize: CGSize(width: 64, height: 64), contentMode: .aspectFit, options: request) {
                result = ($0, $1 ?? [:])
            }
            return result
        }

        let (denied, deniedInfo) = request(network: false)
        #expect(denied == nil)
        #expect(deniedInfo[PHImageResultIsInCloudKey] as? Bool == true)
        #expect((deniedInfo[PHImageErrorKey] as? PHPhotosError)?.code == .networkAccessRequired)

        let fractions = Mutex<[Double]>([])
        let finished = DispatchSemaphore(value: 0)
        let (image, info) = request(network: true) { fraction, error, _, progressInfo in
            #expect(error == nil && progressInfo?[PHImageResultRequestIDKey] != nil)
            fractions.withLock { $0.append(fraction) }
            if fraction >= 1 { finished.signal() }
        }
        #expect(image != nil && info[PHImageErrorKey] == nil, "\(info)")
        #expect(info[PHImageResultIsInCloudKey] as? Bool == false)
        #expect(finished.wait(timeout: .now() + 60) == .success, "the progress reaches 1")
        let told = fractions.withLock { $0 }
        #expect(told.first == 0 && told.last == 1 && told == told.sorted(), "\(told)")

        // Now a copy is here: no network needed.
        let (local, localInfo) = request(network: false)
        #expect(local != nil && localInfo[PHImageResultIsInCloudKey] as? Bool == false)
    }

    /// A Live Photo whose files are not on this node: refused without network access (`PHImageResultIsInCloudKey`),
    /// fetched with it, the progress handler told one rising progress over the still and the video, ending at 1.
    @Test func aLivePhotoInTheStoreIsFetchedWithProgress() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let library = try PHPhotoLibrary(url: fixture.url)
        let photo = fixture.scratch.appendingPathComponent("IMG_1.JPG")
        let movie = fixture.scratch.appendingPathComponent("IMG_1.MOV")
        try TestMedia.writeJPEG(
            to: photo, width: 400, height: 300, exif: TestEXIF(dateTimeOriginal: "2024:03:03 10:00:00", appleContentIdentifier: "LIVE-1"))
        try TestMedia.writeMovie(to: movie, seconds: 0.5, keys: ["com.apple.quicktime.content.identifier": "LIVE-1"])
        let report = try library.importItems(at: [photo, movie])
        #expect(report.livePhotosPaired == 1)
        try FileManager.default.removeItem(at: fixture.folder.appendingPathComponent("resources/cache"))
        let options = PHFetchOptions()
        options.photoLibrary = library
        let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: report.importedLocalIdentifiers, options: options).firstObject)
        #expect(asset.mediaSubtypes.contains(.photoLive))

        func request(network: Bool, progress: PHAssetImageProgressHandler? = nil) async -> (PHLivePhoto?, [AnyHashable: Any]) {
            let request = PHLivePhotoRequestOptions()
            request.deliveryMode = .highQualityFormat
            request.isNetworkAccessAllowed = network
            request.progressHandler = progress
            nonisolated(unsafe) var result: (PHLivePhoto?, [AnyHashable: Any]) = (nil, [:])
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                PHImageManager().requestLivePhoto(for: asset, targetSize: CGSize(width: 100, height: 100), contentMode: .aspectFit, options: request)
                {
                    result = ($0, $1 ?? [:])
                    continuation.resume()
                }
            }
            return result
        }
        let (denied, deniedInfo) = await request(network: false)
        #expect(denied == nil && deniedInfo[PHImageResultIsInCloudKey] as? Bool == true)
        #expect((deniedInfo[PHImageErrorKey] as? PHPhotosError)?.code == .networkAccessRequired)

        let fractions = Mutex<[Double]>([])
        let reachedOne = DispatchSemaphore(value: 0)
        let (live, info) = await request(network: true) { fraction, error, _, progressInfo in
            #expect(error == nil && progressInfo?[PHImageResultRequestIDKey] != nil)
            fractions.withLock { $0.append(fraction) }
            if fraction >= 1 { reachedOne.signal() }
        }
        #expect(live?.size == CGSize(width: 100, height: 75), "\(info)")
        let waited = try await blockingOffThePool { reachedOne.wait(timeout: .now() + 60) }
        #expect(waited == .success, "the progress reaches 1")
        let told = fractions.withLock { $0 }
        #expect(told.first == 0 && told.last == 1 && told == told.sorted() && told.count >= 3, "\(told)")
    }

    /// A movie that is not on this node: its poster frame is read by ranges (its index, its first samples), and no
    /// copy of the movie is made; the rotation comes from its stream as from a file.
    @Test func aPosterFrameOfAMovieInTheStoreIsReadByRanges() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let library = try PHPhotoLibrary(url: fixture.url)
        // Noise, losslessly: ~10 MB that do not compress; the index at the end, as cameras write it.
        let encoded = fixture.scratch.appendingPathComponent("noise-unrotated.mov")
        let movie = fixture.scratch.appendingPathComponent("noise.mov")
        try TestMedia.ffmpegRun([
            "-f", "lavfi", "-i", "nullsrc=s=320x240:r=30:d=3,geq=random(1)*255:128:128", "-c:v", "libx264", "-qp", "0", "-preset",
            "ultrafast", "-pix_fmt", "yuv420p", encoded.path,
        ])
        // ffmpeg 5 keeps a rotation as a display matrix only when remuxing.
        try TestMedia.ffmpegRun(["-i", encoded.path, "-c", "copy", "-metadata:s:v:0", "rotate=90", movie.path])
        let size = try #require(try FileManager.default.attributesOfItem(atPath: movie.path)[.size] as? Int)
        #expect(size > 5_000_000, "\(size) bytes")
        var created: String?
        try library.performChangesAndWait {
            created = PHAssetChangeRequest.creationRequestForAssetFromVideo(atFileURL: movie)?.placeholderForCreatedAsset?.localIdentifier
        }
        let cache = fixture.folder.appendingPathComponent("resources/cache")
        try FileManager.default.removeItem(at: cache)
        let options = PHFetchOptions()
        options.photoLibrary = library
        let identifier = try #require(created)
        let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [identifier], options: options).firstObject)
        // Decoding blocks: off the cooperative threads.
        let result = try await blockingOffThePool { () -> (UIImage?, String) in
            let request = PHImageRequestOptions()
            request.isSynchronous = true
            request.isNetworkAccessAllowed = true
            var result: (UIImage?, String) = (nil, "")
            PHImageManager().requestImage(for: asset, targetSize: CGSize(width: 60, height: 60), contentMode: .aspectFit, options: request) {
                result = ($0, "\($1 ?? [:])")
            }
            return result
        }
        let image = try #require(result.0, "\(result.1)")
        // Upright: the 320 × 240 frame turned a quarter, fitted into 60 × 60.
        #expect(image.size == CGSize(width: 45, height: 60))
        let copies = ((try? FileManager.default.subpathsOfDirectory(atPath: cache.path)) ?? []).filter {
            ($0 as NSString).lastPathComponent.count == 64
        }
        #expect(copies.isEmpty, "the movie was copied: \(copies)")
    }

    /// The same rules for a resource's bytes and for an editing input (`PHContentEditingInputResultIsInCloudKey`).
    @Test func resourcesAndEditingInputsFollowTheNetworkRulesToo() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let library = try PHPhotoLibrary(url: fixture.url)
        let file = try fixture.image("a.jpg", width: 320, height: 240)
        let id = try fixture.add(library, [file])[0]
        let cache = fixture.folder.appendingPathComponent("resources/cache")
        try FileManager.default.removeItem(at: cache)
        let options = PHFetchOptions()
        options.photoLibrary = library
        let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [id], options: options).firstObject)
        let resource = try #require(PHAssetResource.assetResources(for: asset).first { $0.type == .photo })

        func read(network: Bool) async -> (Data, (any Error)?, [Double]) {
            let request = PHAssetResourceRequestOptions()
            request.isNetworkAccessAllowed = network
            let fractions = Mutex<[Double]>([])
            request.progressHandler = { fraction in fractions.withLock { $0.append(fraction) } }
            let received = Mutex(Data())
            let error = await withCheckedContinuation { (continuation: CheckedContinuation<(any Error)?, Never>) in
                PHAssetResourceManager.default().requestData(
                    for: resource, options: request, dataReceivedHandler: { chunk in received.withLock { $0 += chunk } },
                    completionHandler: { continuation.resume(returning: $0) })
            }
            return (received.withLock { $0 }, error, fractions.withLock { $0 })
        }
        let (none, denied, _) = await read(network: false)
        #expect(none.isEmpty && (denied as? PHPhotosError)?.code == .networkAccessRequired, "\(String(describing: denied))")
        let (bytes, failure, fractions) = await read(network: true)
        let original = try Data(contentsOf: file)
        #expect(failure == nil && bytes == original, "\(String(describing: failure))")
        #expect(fractions.last == 1 && fractions == fractions.sorted())

        let editing = PHContentEditingInputRequestOptions()
        let (input, inCloud, code) = await withCheckedContinuation {
            (continuation: CheckedContinuation<(Bool, Bool?, PHPhotosError.Code?), Never>) in
            asset.requestContentEditingInput(with: editing) { input, info in
                continuation.resume(
                    returning: (
                        input != nil, info[PHContentEditingInputResultIsInCloudKey] as? Bool,
                        (info[PHContentEditingInputErrorKey] as? PHPhotosError)?.code
                    ))
            }
        }
        #expect(!input && inCloud == true && code == .networkAccessRequired)
        editing.isNetworkAccessAllowed = true
        let told = Mutex<[Double]>([])
        editing.progressHandler = { fraction, _ in told.withLock { $0.append(fraction) } }
        let fetched = try await asset.requestContentEditingInput(with: editing)
        #expect(try Data(contentsOf: try #require(fetched.fullSizeImageURL)) == original)
    }

    @Test func anAddressThatNamesOtherStorageIsRefused() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        _ = try fixture.add(try PHPhotoLibrary(url: fixture.url), [try fixture.image("a.jpg", width: 40, height: 30)])
        let bucket = try #require(Self.bucket)
        let elsewhere = try #require(URL(string: "file://\(fixture.folder.path)?files=s3://\(bucket)/another-prefix"))
        #expect(throws: PHPhotosError.self) { _ = try PHPhotoLibrary(url: elsewhere) }
        // A library that has files in its folder does not move them by being opened with a bucket.
        let plain = fixture.scratch.appendingPathComponent("Plain.photoslibrary")
        _ = try fixture.add(try PHPhotoLibrary(url: plain), [try fixture.image("b.jpg", width: 30, height: 40)])
        let moved = try #require(URL(string: "file://\(plain.path)?files=s3://\(bucket)/plain"))
        #expect(throws: PHPhotosError.self) { _ = try PHPhotoLibrary(url: moved) }
    }
}

/// The bucket of the test command's object store (`scripts/test-seaweedfs.sh start`).
enum ObjectStorageUnderTest {
    static var bucket: String? { ProcessInfo.processInfo.environment["OPENPHOTOKIT_TEST_S3_BUCKET"].flatMap { $0.isEmpty ? nil : $0 } }
}
