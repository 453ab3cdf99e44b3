import Foundation
import OpenPhotos
import PhotoLibraryEngine
import PhotoMedia
import PhotosTesting
import Testing

/// The blob store of a library folder: what the engine reads and writes through it, and what it refuses.
@Suite("Folder blob store")
struct BlobStoreTests {
    /// A key by path alone (the folder store files blobs by path).
    static func key(_ path: String) -> BlobKey { BlobKey(path: path, sha256: String(repeating: "0", count: 64)) }

    /// A library with one imported photo; its original's key and bytes.
    func libraryWithOnePhoto() throws -> (TestLibrary, LibraryEngine, ResourceRecord, Data) {
        let library = try TestLibrary()
        let file = try library.makeImage(width: 80, height: 60)
        try library.library.performChangesAndWait { _ = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file) }
        let engine = try LibraryEngine.open(at: library.url)
        let asset = try #require(PHAsset.fetchAssets(with: library.options()).firstObject)
        let stored = try #require(try engine.asset(localIdentifier: asset.localIdentifier))
        let record = try #require(try engine.resources(assetID: stored.id).first)
        return (library, engine, record, try Data(contentsOf: file))
    }

    @Test func readsRangesAndSizesFromTheStoredBytes() throws {
        let (library, engine, record, bytes) = try libraryWithOnePhoto()
        defer { library.remove() }
        #expect(try engine.storedSize(of: record) == Int64(bytes.count))
        #expect(try engine.read(record, offset: 0, count: 10) == bytes.prefix(10))
        #expect(try engine.read(record, offset: 5, count: 7) == bytes[5..<12])
        // At the end: fewer bytes, then none.
        #expect(try engine.read(record, offset: Int64(bytes.count - 3), count: 100) == bytes.suffix(3))
        #expect(try engine.read(record, offset: Int64(bytes.count) + 10, count: 100) == Data())
        // Materialized for a decoder: the same bytes.
        #expect(try Data(contentsOf: engine.materialize(record)) == bytes)
    }

    /// A stream reads through one open blob: the size is the opened file's, and the bytes stay readable when the key
    /// is removed meanwhile (a rendering superseded while it is being sent).
    @Test func anOpenBlobReadsTheFileItOpened() throws {
        let (library, engine, record, bytes) = try libraryWithOnePhoto()
        defer { library.remove() }
        let reader = try engine.open(record)
        #expect(reader.size == Int64(bytes.count))
        #expect(try reader.read(at: 0, count: 7) == bytes.prefix(7))
        engine.blobs.remove(record.blobKey)
        #expect(throws: LibraryError.self) { try engine.storedSize(of: record) }
        var streamed = Data()
        while true {
            let chunk = try reader.read(at: Int64(streamed.count), count: 1000)
            if chunk.isEmpty { break }
            streamed += chunk
        }
        #expect(streamed == bytes)
        #expect(try reader.read(at: -1, count: 10) == Data())
    }

    @Test func keysThatLeaveTheLibraryAreRefused() throws {
        let (library, engine, _, _) = try libraryWithOnePhoto()
        defer { library.remove() }
        let outside = library.scratch.appendingPathComponent("secret.txt")
        try Data("secret".utf8).write(to: outside)
        for key in ["../\(library.url.lastPathComponent)/../secret.txt", outside.path, "originals/../../secret.txt", "", "originals//x"] {
            #expect(throws: LibraryError.self, "\(key)") { try engine.blobs.materialize(Self.key(key)) }
            #expect(throws: LibraryError.self, "\(key)") { try engine.blobs.size(of: Self.key(key)) }
            #expect(throws: LibraryError.self, "\(key)") { try engine.blobs.read(Self.key(key), offset: 0, count: 6) }
            #expect(engine.blobs.readSmall(Self.key(key), limit: 100) == nil)
        }
        #expect(throws: LibraryError.self) { try engine.blobs.size(of: Self.key("originals/0/missing.jpg")) }
    }

    @Test func smallReadsStopAtTheirLimit() throws {
        let (library, engine, record, bytes) = try libraryWithOnePhoto()
        defer { library.remove() }
        #expect(engine.blobs.readSmall(record.blobKey, limit: bytes.count) == bytes)
        #expect(engine.blobs.readSmall(record.blobKey, limit: bytes.count - 1) == nil)
    }

    @Test func derivativesRoundTripAndAreReplacedWhole() throws {
        let (library, engine, record, _) = try libraryWithOnePhoto()
        defer { library.remove() }
        let uuid = String(record.assetLocalIdentifier.prefix { $0 != "/" })
        let name = Derivatives.namePrefix(sha256: record.sha256) + "4x2-fit-exact.pixels"
        #expect(engine.derivative(assetUUID: uuid, name: name) == nil)
        let first = PixelBuffer(width: 4, height: 2, bands: 3, bytes: Data((0..<24).map { UInt8($0) }))
        engine.storeDerivative(first, assetUUID: uuid, name: name)
        #expect(engine.derivative(assetUUID: uuid, name: name) == first)
        let second = PixelBuffer(width: 4, height: 2, bands: 3, bytes: Data((0..<24).map { UInt8(100 + $0) }))
        engine.storeDerivative(second, assetUUID: uuid, name: name)
        #expect(engine.derivative(assetUUID: uuid, name: name) == second)
        // Names that are not one plain component, and asset ids that are not UUIDs, are never stored or read.
        for bad in ["../x.pixels", ".hidden", "a/b"] {
            engine.storeDerivative(first, assetUUID: uuid, name: bad)
            #expect(engine.derivative(assetUUID: uuid, name: bad) == nil)
        }
        engine.storeDerivative(first, assetUUID: "../../originals", name: name)
        #expect(engine.derivative(assetUUID: "../../originals", name: name) == nil)
        // One version's derivatives go with it; the rest stay until the asset goes.
        let other = "0123456789abcdef-4x2-fit-exact.pixels"
        engine.storeDerivative(first, assetUUID: uuid, name: other)
        engine.blobs.removeDerivatives(assetUUID: uuid, prefix: Derivatives.namePrefix(sha256: record.sha256))
        #expect(engine.derivative(assetUUID: uuid, name: name) == nil)
        #expect(engine.derivative(assetUUID: uuid, name: other) == first)
        engine.blobs.removeDerivatives(assetUUID: uuid, prefix: nil)
        #expect(engine.derivative(assetUUID: uuid, name: other) == nil)
    }

    /// A damaged derivative (cut short by a full disk, or another format) is a miss, never wrong pixels.
    @Test func aDamagedDerivativeIsAMiss() throws {
        let (library, engine, record, _) = try libraryWithOnePhoto()
        defer { library.remove() }
        let uuid = String(record.assetLocalIdentifier.prefix { $0 != "/" })
        let name = Derivatives.namePrefix(sha256: record.sha256) + "4x2.pixels"
        let pixels = PixelBuffer(width: 4, height: 2, bands: 3, bytes: Data(repeating: 7, count: 24))
        engine.storeDerivative(pixels, assetUUID: uuid, name: name)
        let stored = try #require(engine.blobs.derivative(assetUUID: uuid, name: name))
        engine.blobs.storeDerivative(stored.prefix(stored.count - 1), assetUUID: uuid, name: name)
        #expect(engine.derivative(assetUUID: uuid, name: name) == nil)
        engine.blobs.storeDerivative(Data("OPKPIX2\0".utf8) + stored.dropFirst(8), assetUUID: uuid, name: name)
        #expect(engine.derivative(assetUUID: uuid, name: name) == nil)
    }

    /// Putting blobs: staged files are taken (not copied), a stored blob gets a second key with the same bytes, what
    /// was put before a failure is listed for the caller to remove, and verification's listing sees exactly the
    /// stored originals.
    @Test func putsTakeStagedFilesAndListWhatTheyPlaced() throws {
        let (library, engine, record, bytes) = try libraryWithOnePhoto()
        defer { library.remove() }
        let staged = try engine.stage(file: try library.makeImage(width: 20, height: 10), move: false)
        let stagedBytes = try Data(contentsOf: staged.url)
        var placed: [BlobKey] = []
        let new = BlobKey(path: "originals/Z/new.jpg", sha256: staged.sha256)
        let copy = BlobKey(path: "originals/Z/copy.jpg", sha256: record.sha256)
        try engine.blobs.put([(.staged(staged.url), new), (.stored(record.blobKey), copy)], placed: &placed)
        #expect(placed == [new, copy])
        #expect(!FileManager.default.fileExists(atPath: staged.url.path), "the staged file was taken, not copied")
        #expect(try engine.blobs.read(new, offset: 0, count: stagedBytes.count + 1) == stagedBytes)
        #expect(try engine.blobs.digest(of: copy) == engine.blobs.digest(of: record.blobKey))
        #expect(try engine.blobs.digest(of: record.blobKey).size == Int64(bytes.count))
        #expect(Set(try engine.blobs.storedBlobs().map(\.name)) == [record.path, "originals/Z/new.jpg", "originals/Z/copy.jpg"])

        // A failure midway: the first is stored and listed, the rest is not.
        let second = try engine.stage(file: try library.makeImage(width: 10, height: 10), move: false)
        var partial: [BlobKey] = []
        let secondKey = BlobKey(path: "originals/Z/second.jpg", sha256: second.sha256)
        #expect(throws: LibraryError.self) {
            try engine.blobs.put(
                [(.staged(second.url), secondKey), (.stored(Self.key("originals/Z/absent.jpg")), Self.key("originals/Z/third.jpg"))],
                placed: &partial)
        }
        #expect(partial == [secondKey])
        #expect(throws: LibraryError.self) { try engine.blobs.digest(of: Self.key("originals/Z/third.jpg")) }
        #expect(throws: LibraryError.self) {
            var none: [BlobKey] = []
            try engine.blobs.put([(.staged(second.url), Self.key("../outside.jpg"))], placed: &none)
        }
        // verify reports what no row names: the four blobs put here.
        let (_, problems, complete) = try engine.verify()
        #expect(complete)
        #expect(Set(problems.map(\.path)) == ["originals/Z/new.jpg", "originals/Z/copy.jpg", "originals/Z/second.jpg"])
        #expect(problems.allSatisfy { $0.kind == .orphanFile })
    }
}
