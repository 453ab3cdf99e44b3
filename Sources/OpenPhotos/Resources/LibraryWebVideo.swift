import Foundation
import PhotoLibraryEngine
import PhotoMedia

/// OpenPhotoKit: the movie a browser plays for an asset — its current version's movie (a video's, a Live Photo's
/// paired video) where every browser plays that as it is (8-bit 4:2:0 H.264 with AAC or MP3), else a web rendering of
/// it: H.264 and AAC in MPEG-4, within 1280 × 720, index first (progressive download), made once by a background
/// worker and kept with the library's renderings (in object storage, shared by every node). An iPhone's HEVC movies
/// play nowhere but Safari; the gallery plays their renderings.
package struct LibraryWebVideo: Sendable {
    /// The box a rendering fits in (long side × short side): 720p, as Immich's default.
    package static let size = (long: 1280, short: 720)

    /// The asset's current movie, the one a rendering is made from.
    package let source: PHAssetResource
    /// Where the bytes a browser gets are: the rendering, or the movie itself (nil: none made yet, or none needed).
    package let rendering: Rendering?

    /// A stored rendering.
    package struct Rendering: Sendable {
        /// Its size in bytes.
        package var size: Int
        /// A strong validator of its bytes (a rendering stored again by another worker changes it).
        package var tag: String
        /// A local file of it, for serving without a copy; nil when it is read from object storage by ranges.
        package var fileURL: URL?
    }

    let engine: LibraryEngine
    let assetUUID: String

    /// The web video of `asset`; nil when it has no movie (a still photo) or no library.
    package init?(_ asset: PHAsset) {
        guard asset.mediaType == .video || asset.mediaSubtypes.contains(.photoLive),
            let source = PHAssetResource.resource(of: asset, version: .current, pairedVideo: asset.mediaType != .video),
            let engine = asset.library?.engineIfAvailable
        else { return nil }
        self.source = source
        self.engine = engine
        self.assetUUID = String(asset.localIdentifier.prefix { $0 != "/" })
        rendering = engine.derivativeFile(assetUUID: assetUUID, name: Self.name(of: source)).map {
            Rendering(size: Int($0.size), tag: $0.tag, fileURL: $0.file)
        }
    }

    /// A rendering is named by the movie it was made from (so an edit's rendering never answers for the original),
    /// and goes with that movie's other renderings.
    static func name(of source: PHAssetResource) -> String {
        Derivatives.namePrefix(sha256: source.sha256) + "web-h264-\(size.long)x\(size.short).mp4"
    }

    /// Up to `count` bytes of the rendering from `offset`.
    package func readRendering(at offset: Int, count: Int) throws -> Data {
        do { return try engine.readDerivative(assetUUID: assetUUID, name: Self.name(of: source), offset: Int64(offset), count: count) } catch {
            throw PHPhotosError(error)
        }
    }

    /// What making the web video did.
    package enum Outcome: Sendable, Equatable {
        /// A rendering was made and stored.
        case rendered
        /// One was stored already (by this worker before, or another).
        case alreadyStored
        /// The movie plays in browsers as it is: nothing to make.
        case notNeeded
    }

    /// Makes and stores the rendering unless there is one or the movie plays in browsers as it is, blocking for as
    /// long as encoding the movie takes. The movie is read from a local copy (fetched where the library's files are
    /// in object storage) and encoded in a sandboxed process of its own (`WebVideoEncoder`): a movie that cannot be
    /// decoded, or on which the encoder crashes or hangs, throws ``PHPhotosError/Code/invalidResource``; a host where
    /// the encoder or its sandbox is missing, ``PHPhotosError/Code/internalError``.
    package func make() throws -> Outcome {
        guard rendering == nil else { return .alreadyStored }
        guard let file = source.fileURL else {
            throw PHPhotosError(.missingResource, userInfo: [NSLocalizedDescriptionKey: "the movie is missing from the library"])
        }
        let encoding: VideoEncoding?
        do { encoding = try MediaProbe().probe(file).videoEncoding } catch {
            throw PHPhotosError(.invalidResource, userInfo: [NSLocalizedDescriptionKey: "the movie cannot be read: \(error)"])
        }
        if encoding?.playsInBrowsers ?? false { return .notNeeded }
        // Encoded into an area of this process in the library's files: a worker killed mid-way leaves it to the next
        // writer's recovery, not in a temporary folder forever.
        let area: ProcessFolder
        do { area = try engine.makeUploadArea(label: "web-video") } catch { throw PHPhotosError(error) }
        defer { area.remove() }
        let output = area.url.appendingPathComponent("web.mp4")
        let audioAsAAC = !(encoding?.audioCodec.map { $0 == "aac" || $0 == "mp3" } ?? true)
        do {
            try WebVideoEncoder.encode(file, to: output, long: Self.size.long, short: Self.size.short, audioAsAAC: audioAsAAC)
        } catch {
            let code: PHPhotosError.Code = if case .unavailable = error { .internalError } else { .invalidResource }
            throw PHPhotosError(code, userInfo: [NSLocalizedDescriptionKey: "the web rendering could not be made: \(error)"])
        }
        do { try engine.storeDerivativeFile(output, assetUUID: assetUUID, name: Self.name(of: source)) } catch { throw PHPhotosError(error) }
        return .rendered
    }
}
