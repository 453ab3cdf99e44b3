import OpenPhotos
import Foundation
import PhotosTesting
import Testing

/// Imports `../shared/media` (real iPhone, Android, camera and broken files) and holds every asset to the corpus'
/// `truth.json` (exiftool and ffprobe). Skipped when the corpus is not beside the repository.
@Suite("Shared media corpus", .enabled(if: TestMedia.sharedMediaFolder != nil))
struct SharedMediaImportTests {
    struct Corpus {
        let library: TestLibrary
        let report: PHPhotoLibrary.ImportReport
        let truth: [String: [String: Any]]
        let folder: URL
        /// Each imported file's asset, by path relative to the corpus (the video of a Live Photo maps to its asset).
        let assets: [String: PHAsset]
    }

    static func importCorpus() throws -> Corpus {
        let folder = try #require(TestMedia.sharedMediaFolder)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("truth.json"))) as? [String: Any]
        let truth = try #require(json?["files"] as? [String: [String: Any]])
        let library = try TestLibrary(name: "Corpus")
        let report = try library.library.importItems(at: [folder], recursive: true)
        var assets: [String: PHAsset] = [:]
        let all = PHAsset.fetchAssets(
            with: library.options {
                $0.includeAllBurstAssets = true; $0.includeHiddenAssets = true
            })
        var byName: [String: PHAsset] = [:]
        for asset in all {
            for resource in PHAssetResource.assetResources(for: asset) { byName[resource.originalFilename] = asset }
        }
        for path in truth.keys { assets[path] = byName[(path as NSString).lastPathComponent] }
        return Corpus(library: library, report: report, truth: truth, folder: folder, assets: assets)
    }

    @Test func everyFileImportsOrFailsAsTheTruthSays() throws {
        let corpus = try Self.importCorpus()
        defer { corpus.library.remove() }
        let failed = Set(corpus.report.failures.map { $0.file.path.replacingOccurrences(of: corpus.folder.path + "/", with: "") })
        for (path, truth) in corpus.truth.sorted(by: { $0.key < $1.key }) {
            switch truth["expectedImport"] as? String {
            case "reject":
                #expect(failed.contains(path), "\(path) should be refused")
                #expect(corpus.assets[path] == nil)
            case "ok", "import-metadata-degraded":
                #expect(corpus.assets[path] != nil, "\(path) should be imported")
            default:
                #expect(failed.contains(path) || corpus.assets[path] != nil, "\(path): refused or imported, never lost")
            }
        }
        // The folder's non-media files are refused by content, with their names.
        #expect(failed.contains("truth.json") && failed.contains("README.md"))
        #expect(corpus.report.duplicates.isEmpty)
        #expect(corpus.report.livePhotosPaired == 1)
    }

    @Test func sizesDatesPlacesAndKeysMatchTheTruth() throws {
        let corpus = try Self.importCorpus()
        defer { corpus.library.remove() }
        for (path, truth) in corpus.truth.sorted(by: { $0.key < $1.key }) where (truth["expectedImport"] as? String) == "ok" {
            guard let asset = corpus.assets[path] else { continue }
            let isPairedVideo = path.hasSuffix(".mov") && asset.mediaType == .image
            // The SHA-256 of the stored original.
            let resource = PHAssetResource.assetResources(for: asset).first { $0.originalFilename == (path as NSString).lastPathComponent }
            #expect(resource?.sha256 == truth["sha256"] as? String, "\(path)")
            if isPairedVideo { continue }  // the Live Photo's properties are its still's
            #expect("\(asset.mediaType)" == truth["mediaType"] as? String, "\(path)")

            // Display size; either convention where the truth records a conflict.
            var sizes = [[truth["pixelWidth"] as? Int ?? -1, truth["pixelHeight"] as? Int ?? -1]]
            for key in ["orientationConflict", "displaySizeAmbiguous"] {
                if let alternatives = truth[key] as? [String: Any] {
                    sizes += alternatives.values.compactMap { $0 as? [Int] }
                }
            }
            #expect(sizes.contains([asset.pixelWidth, asset.pixelHeight]), "\(path): \(asset.pixelWidth)x\(asset.pixelHeight)")

            Self.checkDate(asset, truth, path)
            Self.checkLocation(asset, truth, path)
            #expect(asset.burstIdentifier == truth["burstUUID"] as? String, "\(path)")
            let hints = truth["hints"] as? [String: Any] ?? [:]
            #expect(asset.mediaSubtypes.contains(.photoHDR) == (hints["hdr"] as? Bool ?? false), "\(path): HDR")
            let depth = (hints["portrait"] as? Bool ?? false) || (hints["hasDepthData"] as? Bool ?? false)
            #expect(asset.mediaSubtypes.contains(.photoDepthEffect) == depth, "\(path): depth effect")
            if let duration = truth["durationSeconds"] as? Double, asset.mediaType == .video {
                #expect(abs(asset.duration - duration) < 0.05, "\(path): duration \(asset.duration) vs \(duration)")
            }
            if truth["livePhotoStatus"] as? String == "complete-pair" {
                #expect(asset.mediaSubtypes.contains(.photoLive) && asset.playbackStyle == .livePhoto, "\(path)")
                let partner = (truth["livePhotoPairedWith"] as? String).map { ($0 as NSString).lastPathComponent }
                #expect(
                    PHAssetResource.assetResources(for: asset).contains { $0.type == .pairedVideo && $0.originalFilename == partner }, "\(path)")
            } else {
                #expect(!asset.mediaSubtypes.contains(.photoLive), "\(path)")
            }
            #expect(asset.mediaSubtypes.contains(.photoScreenshot) == (hints["screenshot"] as? Bool ?? false), "\(path): screenshot")
        }
        // Selfies (front camera) fill Self-Portraits.
        let selfies = try #require(
            PHAssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumSelfPortraits, options: corpus.library.options())
                .firstObject)
        let expected = corpus.truth.filter { (($0.value["hints"] as? [String: Any])?["selfie"] as? Bool) == true }.keys.compactMap {
            corpus.assets[$0]
        }
        #expect(Set(identifiers(PHAsset.fetchAssets(in: selfies, options: nil))) == Set(expected.map(\.localIdentifier)))
        #expect(!expected.isEmpty)

        // The animated WebP plays as an animation; the other stills do not.
        let animated = try #require(corpus.assets["webp/animation_lossy.webp"])
        #expect(animated.playbackStyle == .imageAnimated && animated.mediaSubtypes.contains(.photoAnimation))
        #expect(corpus.assets["webp/iphone_x_exif_issue473.webp"]?.playbackStyle == .image)

        // Broken EXIF offsets: the pixels import, no date or place is invented.
        let degraded = try #require(corpus.assets["broken/generated_bad_ifd_offsets.jpg"])
        #expect(degraded.location == nil)
    }

    /// The instant (with subseconds) and the zone: an offset the file records, or — without one — the wall time in
    /// the importing machine's zone, as Photos does.
    static func checkDate(_ asset: PHAsset, _ truth: [String: Any], _ path: String) {
        guard let expectedText = truth["creationDate"] as? String else { return }
        guard let date = asset.creationDate else {
            Issue.record("\(path): no creation date; expected \(expectedText)")
            return
        }
        let subsec = (truth["creationDateSubsec"] as? String).flatMap { Double("0." + $0) } ?? 0
        if let utc = truth["creationDateUTC"] as? String, let instant = ISO8601DateFormatter().date(from: utc) {
            #expect(abs(date.timeIntervalSince(instant) - subsec) < 0.002, "\(path): \(date) vs \(utc) + \(subsec)")
            let offset = (truth["timezoneOffset"] as? String).flatMap(parseOffset)
            let ours = asset.creationTimeZone?.secondsFromGMT(for: date)
            // mvhd dates are UTC by convention: the file records no zone, and none is invented.
            #expect(ours == offset || (offset == 0 && ours == nil), "\(path): zone \(String(describing: ours)) vs \(String(describing: offset))")
        } else if let local = truth["creationDateLocal"] as? String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
            formatter.timeZone = asset.creationTimeZone ?? .current
            #expect(formatter.string(from: date) == local, "\(path): wall time")
            if asset.creationTimeZone != nil {
                #expect(truth["timezoneOnlyIn"] != nil, "\(path): a zone the file does not record")
            }
        }
    }

    static func checkLocation(_ asset: PHAsset, _ truth: [String: Any], _ path: String) {
        guard let expected = truth["location"] as? [String: Any], let latitude = expected["latitude"] as? Double,
            let longitude = expected["longitude"] as? Double
        else {
            #expect(asset.location == nil, "\(path): a location the file does not have")
            return
        }
        guard let location = asset.location else {
            Issue.record("\(path): no location; expected \(latitude), \(longitude)")
            return
        }
        #expect(abs(location.coordinate.latitude - latitude) < 1e-4 && abs(location.coordinate.longitude - longitude) < 1e-4, "\(path)")
        if let altitude = expected["altitude"] as? Double {
            #expect(abs(location.altitude - altitude) < 0.01, "\(path): altitude \(location.altitude) vs \(altitude)")
        }
    }

    static func parseOffset(_ text: String) -> Int? {
        let sign = text.hasPrefix("-") ? -1 : 1
        let parts = text.dropFirst().split(separator: ":").compactMap { Int($0) }
        guard parts.count == 2 else { return nil }
        return sign * (parts[0] * 3600 + parts[1] * 60)
    }
}
