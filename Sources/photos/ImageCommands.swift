import ArgumentParser
import CommandLineSupport
import Foundation
import OpenPhotos
import PhotoMedia

struct Thumbnail: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render an asset through PHImageManager and write it (JPEG, PNG, WebP or HEIC, by the extension).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Local identifier (or a unique prefix).") var id: String
    @Option(help: "Target size in pixels, WxH, or 'max' for the largest image.") var size: String
    @Option(help: "fit or fill.") var mode = "fit"
    @Option(help: "none, fast or exact.") var resize = "fast"
    @Option(help: "A crop in unit coordinates of the displayed image: X,Y,W,H (needs --resize exact).") var crop: String?
    @Option(help: "current, unadjusted or original.") var version = "current"
    @Option(help: "The file to write.") var out: String

    func run() throws {
        let library = try global.open()
        let asset = try resolveAsset(id, in: library, global: global)
        let target: CGSize
        if size.lowercased() == "max" {
            target = PHImageManagerMaximumSize
        } else {
            let parts = size.lowercased().split(separator: "x").compactMap { Double($0) }
            guard parts.count == 2 else { throw CLIError("--size wants WxH, e.g. 256x256, or max") }
            target = CGSize(width: parts[0], height: parts[1])
        }
        let options = PHImageRequestOptions()
        options.isSynchronous = true
        options.deliveryMode = .highQualityFormat
        // An original in object storage that this machine has no copy of is downloaded, with its progress shown.
        options.isNetworkAccessAllowed = true
        let download = LazyProgress("download", unit: "%", json: global.json)
        options.progressHandler = { fraction, _, _, _ in download.update(Int(fraction * 100), of: 100) }
        defer { download.finish() }
        switch resize {
        case "none": options.resizeMode = .none
        case "fast": options.resizeMode = .fast
        case "exact": options.resizeMode = .exact
        default: throw CLIError("--resize is none, fast or exact")
        }
        switch version {
        case "current": options.version = .current
        case "unadjusted": options.version = .unadjusted
        case "original": options.version = .original
        default: throw CLIError("--version is current, unadjusted or original")
        }
        if let crop {
            let values = crop.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard values.count == 4 else { throw CLIError("--crop wants X,Y,W,H in unit coordinates") }
            options.normalizedCropRect = CGRect(x: values[0], y: values[1], width: values[2], height: values[3])
        }
        let contentMode: PHImageContentMode
        switch mode {
        case "fit": contentMode = .aspectFit
        case "fill": contentMode = .aspectFill
        default: throw CLIError("--mode is fit or fill")
        }
        if size.lowercased() == "max", crop == nil {
            try writeFullSize(asset)
            return
        }
        var result: (UIImage?, [AnyHashable: Any]?) = (nil, nil)
        PHImageManager.default().requestImage(for: asset, targetSize: target, contentMode: contentMode, options: options) { result = ($0, $1) }
        guard let image = result.0 else {
            throw CLIError(ImageResultInfo(result.1).error.map { describe($0) } ?? "no image")
        }
        let url = URL(fileURLWithPath: out)
        let data: Data?
        switch url.pathExtension.lowercased() {
        case "png": data = image.pngData()
        case "webp": data = image.webpData(compressionQuality: 0.85)
        case "heic": data = image.heicData(compressionQuality: 0.8)
        default: data = image.jpegData(compressionQuality: 0.85)
        }
        guard let data else { throw CLIError("cannot encode \(url.lastPathComponent)") }
        do { try data.write(to: url, options: .atomic) } catch { throw CLIError("cannot write \(url.path): \(error.localizedDescription)") }
        let width = Int(image.size.width)
        let height = Int(image.size.height)
        if global.json {
            Output.printJSON(["file": url.path, "pixelWidth": width, "pixelHeight": height, "bytes": data.count])
        } else {
            print("\(url.path)  \(width)x\(height)  \(data.count) bytes")
        }
    }
}

extension Thumbnail {
    /// The full-size image of the version streamed into the file: memory stays bounded whatever the size
    /// (a 16000 × 16000 PNG included), where a rendering in memory would hold every pixel.
    private func writeFullSize(_ asset: PHAsset) throws {
        guard asset.mediaType == .image else { throw CLIError("--size max streams photos; for a video, give a size") }
        let resources = PHAssetResource.assetResources(for: asset)
        let rendering = version == "current" ? resources.first { $0.type == .fullSizePhoto } : nil
        guard let resource = rendering ?? resources.first(where: { $0.type == .photo }), let source = resource.fileURL
        else { throw CLIError("the asset's original is not in the library") }
        let url = URL(fileURLWithPath: out)
        let written: (width: Int, height: Int)
        do { written = try ImageRenderer.writeFullSize(source.path, to: url) } catch { throw CLIError(error.description) }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        if global.json {
            Output.printJSON(["file": url.path, "pixelWidth": written.width, "pixelHeight": written.height, "bytes": bytes])
        } else {
            print("\(url.path)  \(written.width)x\(written.height)  \(bytes) bytes")
        }
    }
}

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write assets' files (PHAssetResourceManager) into a folder, under their original names.",
        discussion: """
            With --preset, a video is exported through AVAssetExportSession instead: Passthrough copies its tracks into \
            the --type container; 640x480, 960x540, 1280x720, 1920x1080, 3840x2160, LowQuality, MediumQuality, \
            HighestQuality re-encode it with H.264, HEVCHighestQuality, HEVC1920x1080, HEVC3840x2160 with HEVC. \
            Names are the original file names' last component, made safe; an existing file is never replaced (the \
            export of that file fails). Several assets show progress; Ctrl-C stops between assets (exit 130).
            """)
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Local identifiers (or unique prefixes).") var ids: [String]
    @Option(
        help:
            "current (an edited asset's rendering — and its Live Photo video — else the originals), original / unadjusted (the originals), or all (the originals and, for an edited asset, its rendering as IMG_E… and its adjustments as .AAE, as Photos exports them)."
    ) var version = "current"
    @Option(help: "The folder to write into (created if missing).") var out: String
    @Option(help: "Export a video with this AVAssetExportSession preset (for example 1280x720 or Passthrough).") var preset: String?
    @Option(help: "The container for --preset: mov, mp4 or m4v.") var type = "mp4"

    func run() throws {
        guard ["current", "unadjusted", "original", "all"].contains(version) else {
            throw CLIError("--version is current, unadjusted, original or all")
        }
        let library = try global.open()
        let assets = try ids.map { try resolveAsset($0, in: library, global: global) }
        let folder = URL(fileURLWithPath: out)
        do { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) } catch {
            throw CLIError("cannot create \(folder.path): \(error.localizedDescription)")
        }
        Interruption.cooperate()
        let bar = ProgressReporter("export", total: assets.count > 1 ? assets.count : 0, unit: "assets", json: global.json)
        var written: [String] = []
        for (index, asset) in assets.enumerated() {
            if Interruption.requested { break }
            if preset != nil {
                written.append(try exportVideo(asset, preset: preset!, into: folder))
            } else {
                written += try exportResources(of: asset, into: folder)
            }
            bar.update(index + 1)
        }
        bar.finish()
        if global.json {
            Output.printJSON(["written": written, "interrupted": Interruption.requested])
        } else {
            written.forEach { print(Output.printable($0)) }
        }
        if Interruption.requested { throw ExitCode(Interruption.exitStatus) }
    }

    /// The files of the version: the originals (photo, video, paired video, alternate photo, audio), or for
    /// `current` of an edited asset its renderings, named after the original with the rendering's extension.
    static func versionResources(of asset: PHAsset, version: String) -> [(resource: PHAssetResource, name: String)] {
        let resources = PHAssetResource.assetResources(for: asset)
        let originalTypes: [PHAssetResourceType] = [.photo, .video, .audio, .alternatePhoto, .pairedVideo]
        let originals = resources.filter { originalTypes.contains($0.type) }
        let unadjusted = PHAssetResource.resource(among: resources, version: .unadjusted)
        if version == "all" {
            // As Photos exports "with edits": IMG_1234.HEIC, IMG_E1234.JPG (and .MOV), IMG_1234.AAE (written apart).
            let stem = ((unadjusted?.originalFilename ?? "IMG_0000") as NSString).deletingPathExtension
            let edited = AdjustmentSidecar.editedStem(of: stem) ?? "\(stem)_E"
            var files = originals.map { ($0, $0.originalFilename) }
            if asset.hasAdjustments {
                for resource in [
                    PHAssetResource.resource(among: resources, version: .current),
                    PHAssetResource.resource(among: resources, version: .current, pairedVideo: true),
                ].compactMap({ $0 }) where resource !== unadjusted && !originals.contains(where: { $0 === resource }) {
                    // Photos' names: IMG_E1234.JPG, .HEIC, .MOV.
                    let ext = (resource.fileURL?.pathExtension ?? "jpg").uppercased()
                    files.append((resource, "\(edited).\(ext == "JPEG" ? "JPG" : ext)"))
                }
            }
            return files
        }
        guard version == "current", let rendering = PHAssetResource.resource(among: resources, version: .current), rendering !== unadjusted
        else {
            return originals.map { ($0, $0.originalFilename) }
        }
        let stem = ((unadjusted?.originalFilename ?? "Edited") as NSString).deletingPathExtension
        func named(_ resource: PHAssetResource) -> String {
            "\(stem).\((resource.fileURL?.pathExtension ?? "jpg").uppercased())"
        }
        var files = [(rendering, named(rendering))]
        if let video = PHAssetResource.resource(among: resources, version: .current, pairedVideo: true) {
            files.append((video, named(video)))
        }
        return files
    }

    private func exportResources(of asset: PHAsset, into folder: URL) throws -> [String] {
        var written: [String] = []
        if version == "all", asset.hasAdjustments,
            let recipe = PHAssetResource.assetResources(for: asset).first(where: { $0.type == .adjustmentData })
        {
            // The adjustments as an .AAE beside the original (XML, as Photos writes them).
            let stem = ((PHAssetResource.resource(of: asset, version: .unadjusted)?.originalFilename ?? "IMG_0000") as NSString)
                .deletingPathExtension
            let target = folder.appendingPathComponent(Self.safeName("\(stem).AAE", recipe))
            var bytes = Data()
            let failure = waitForCallback { done in
                PHAssetResourceManager.default().requestData(for: recipe, options: nil, dataReceivedHandler: { bytes.append($0) }) { done($0) }
            }
            if let error = failure { throw CLIError("\(Output.printable(target.lastPathComponent)): \(describe(error))") }
            guard let sidecar = try? AdjustmentSidecar(plist: bytes)?.plist() else {
                throw CLIError("\(Output.printable(target.lastPathComponent)): the asset's adjustments cannot be read")
            }
            do { try sidecar.write(to: target, options: .withoutOverwriting) } catch {
                throw CLIError("\(Output.printable(target.lastPathComponent)): \(error.localizedDescription) (an existing file is never replaced)")
            }
            written.append(target.path)
        }
        for (resource, name) in Self.versionResources(of: asset, version: version) {
            let target = folder.appendingPathComponent(Self.safeName(name, resource))
            let failure = waitForCallback { done in
                PHAssetResourceManager.default().writeData(for: resource, toFile: target, options: nil) { done($0) }
            }
            if let error = failure { throw CLIError("\(Output.printable(target.lastPathComponent)): \(describe(error))") }
            written.append(target.path)
        }
        return written
    }

    /// The stored name is data, not a path: only a sanitised last component names the file.
    static func safeName(_ name: String, _ resource: PHAssetResource) -> String {
        PHAssetResource.safeFileName(name, fallback: "\(resource.assetLocalIdentifier.prefix(8))-\(resource.type.rawValue)")
    }

    private func exportVideo(_ asset: PHAsset, preset: String, into folder: URL) throws -> String {
        let name = preset.hasPrefix("AVAssetExportPreset") ? preset : "AVAssetExportPreset" + preset
        guard AVAssetExportSession.allExportPresets().contains(name) else {
            let known = AVAssetExportSession.allExportPresets().map { $0.replacingOccurrences(of: "AVAssetExportPreset", with: "") }
            throw CLIError("unknown preset \(preset); one of \(known.joined(separator: ", "))")
        }
        let types: [String: AVFileType] = ["mov": .mov, "mp4": .mp4, "m4v": .m4v]
        guard let fileType = types[type] else { throw CLIError("--type is mov, mp4 or m4v") }
        guard asset.mediaType == .video else { throw CLIError("\(asset.localIdentifier) is not a video; --preset exports videos") }
        let videoOptions = PHVideoRequestOptions()
        videoOptions.isNetworkAccessAllowed = true  // a video only in object storage is downloaded
        let (session, failure) = waitForCallback { done in
            PHImageManager.default().requestExportSession(forVideo: asset, options: videoOptions, exportPreset: name) { result, info in
                done((result, ImageResultInfo(info).error))
            }
        }
        if let error = failure { throw CLIError(describe(error)) }
        guard let session else { throw CLIError("no export session for \(asset.localIdentifier)") }
        let resource = PHAssetResource.assetResources(for: asset).first
        let original = resource.map { Self.safeName($0.originalFilename, $0) } ?? String(asset.localIdentifier.prefix(8))
        let target = folder.appendingPathComponent(
            PHAssetResource.safeFileName((original as NSString).deletingPathExtension + "." + type, fallback: "video.\(type)"))
        session.outputURL = target
        session.outputFileType = fileType
        waitForCallback { done in session.exportAsynchronously { done(()) } }
        guard session.status == .completed else {
            throw CLIError("\(target.lastPathComponent): \(session.error.map { describe($0) } ?? "export \(session.status)")")
        }
        return target.path
    }
}
