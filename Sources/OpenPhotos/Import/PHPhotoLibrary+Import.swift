import Foundation
import Synchronization
import PhotoLibraryEngine
import PhotoMedia

extension PHPhotoLibrary {
    /// OpenPhotoKit: what ``importItems(at:recursive:batchSize:progress:)`` did.
    public struct ImportReport: Sendable {
        /// The assets created, in import order.
        public var importedLocalIdentifiers: [String] = []
        /// Stills and videos joined into Live Photos.
        public var livePhotosPaired = 0
        /// Camera RAW files joined to the JPEG or HEIC of the same name (RAW + JPEG: one asset, the RAW its alternate
        /// photo).
        public var rawPairsJoined = 0
        /// Photos imported with the edit Photos exported beside them (an `.AAE` file, and the edited rendering
        /// `IMG_E…` when there is one): the asset's adjustment data and current version.
        public var editsKept = 0
        /// Files whose bytes the library already holds (or that appeared earlier in this import).
        public var duplicates: [ImportDuplicate] = []
        /// Files that could not be imported, with the reason.
        public var failures: [ImportFailure] = []
        /// Files looked at.
        public var filesExamined = 0
        /// Bytes read from the files (each file is read once: copied and hashed in one pass).
        public var bytesRead: Int64 = 0
        /// Symbolic links to folders not followed: the folder was already visited (a link loop, or a second way
        /// to the same folder), so its files are imported once.
        public var skippedLinks: [URL] = []
        /// Whether `isCancelled` stopped the import early: what was committed before stays, nothing else is left.
        public var wasCancelled = false
    }

    /// OpenPhotoKit: a file skipped because its bytes are already in the library.
    public struct ImportDuplicate: Sendable, Equatable {
        /// The file skipped.
        public var file: URL
        /// The asset that holds the same bytes, or nil when the same bytes came earlier in this import
        /// (`sameAs` names that file).
        public var existingLocalIdentifier: String?
        /// The earlier file of this import with the same bytes.
        public var sameAs: URL?

        /// A duplicate of an asset, or of an earlier file of the same import.
        public init(file: URL, existingLocalIdentifier: String?, sameAs: URL?) {
            self.file = file
            self.existingLocalIdentifier = existingLocalIdentifier
            self.sameAs = sameAs
        }
    }

    /// OpenPhotoKit: a file that could not be imported.
    public struct ImportFailure: Sendable, Equatable, CustomStringConvertible {
        /// The file (or folder) that could not be imported.
        public var file: URL
        /// Why, in one line naming the file.
        public var reason: String
        /// "path: reason".
        public var description: String { "\(file.path): \(reason)" }

        /// A failure to import `file`.
        public init(file: URL, reason: String) {
            self.file = file
            self.reason = reason
        }
    }

    /// OpenPhotoKit: how far an import is.
    public struct ImportProgress: Sendable {
        /// Files read so far.
        public var filesDone: Int
        /// Files found.
        public var filesTotal: Int
        /// Bytes read so far.
        public var bytesDone: Int64
    }

    /// OpenPhotoKit: imports photos and videos from files and folders, the way the Photos app imports a card.
    ///
    /// Each file is copied into the library and hashed in one read, then probed (format from the content, size,
    /// metadata). Bytes the library already holds are reported as duplicates, not imported again. A still and a
    /// video with the same Apple content identifier become one Live Photo (`photo` + `pairedVideo` resources,
    /// `photoLive`); only files without identifiers are paired by the same base name within a few seconds, and two
    /// files whose identifiers differ never are. An `.AAE` file beside a photo (`IMG_1234.AAE` or `IMG_O1234.AAE`, as
    /// Photos exports an edited photo with its original) becomes the asset's ``PHAdjustmentData``, and the edited
    /// rendering beside it (`IMG_E1234.JPG`/`.HEIC`, and a Live Photo's `IMG_E1234.MOV`) its current version: one asset
    /// whose original stays and whose edit can be reverted (without a rendering, the original stands in for it; the
    /// recipe is kept for an editor that reads it). An XMP sidecar (`IMG_1234.JPG.xmp` as darktable writes it,
    /// `IMG_1234.xmp` as Lightroom does) gives the rating, caption and keywords, over what the file itself says.
    /// Files that cannot be read — damaged, not regular files, names
    /// that are not UTF-8 — are reported with the reason and the import goes on. Folders are walked once each
    /// (a link back to a visited folder is skipped and reported), at most ``maximumFolderDepth`` deep.
    /// Assets are created with ``PHAssetCreationRequest`` in transactions of `batchSize`.
    /// - parameter isCancelled: asked between files and between transactions; when it returns true the import
    ///   stops, keeps what it committed, removes what it staged, and reports ``ImportReport/wasCancelled``.
    /// - throws: ``PHPhotosError`` only when the library itself cannot be used; per-file problems are in the report.
    public func importItems(
        at urls: [URL], recursive: Bool = false, batchSize: Int = 64, progress: (@Sendable (ImportProgress) -> Void)? = nil,
        isCancelled: (@Sendable () -> Bool)? = nil
    ) throws -> ImportReport {
        try importItems(at: urls, recursive: recursive, batchSize: batchSize, progress: progress, isCancelled: isCancelled, movingFiles: false)
    }

    /// The import, optionally moving the files into the library (hard links where the file system allows, as
    /// `shouldMoveFile` does; the sources go once the assets are committed): what `photos serve` does with uploads,
    /// which are its own files, so that each byte is written once.
    /// - parameter knownSHA256: moved files' SHA-256 digests (by standardized path) that their owner computed while
    ///   writing them, so that they are not read again to be hashed.
    package func importItems(
        at urls: [URL], recursive: Bool = false, batchSize: Int = 64, progress: (@Sendable (ImportProgress) -> Void)? = nil,
        isCancelled: (@Sendable () -> Bool)? = nil, movingFiles: Bool, knownSHA256: [String: String] = [:]
    ) throws -> ImportReport {
        if let remote, !movingFiles {
            return try importItems(at: urls, into: remote, recursive: recursive, progress: progress, isCancelled: isCancelled)
        }
        let engine: LibraryEngine
        do { engine = try self.engine() } catch { throw PHPhotosError(error) }
        var (report, walked) = Self.walk(urls, recursive: recursive)
        // `.AAE` sidecars are read here, not imported as media: by folder and stem.
        var sidecars: [String: (file: URL, sidecar: AdjustmentSidecar)] = [:]
        // XMP sidecars (darktable's `IMG_1234.JPG.xmp`, Lightroom's `IMG_1234.xmp`): rating, caption, keywords.
        var xmpSidecars: [String: MediaMetadata] = [:]
        var files: [URL] = []
        for file in walked {
            if file.pathExtension.lowercased() == "xmp" {
                let bytes = try? FileHandle(forReadingFrom: file).read(upToCount: 1 << 20)
                var described = MediaMetadata()
                DescriptiveMetadata.read(xmp: bytes.map { String(decoding: $0, as: UTF8.self) }, iptc: nil, into: &described)
                // Keyed by what it names: `IMG_1234.JPG.xmp` a file, `IMG_1234.xmp` a stem.
                xmpSidecars[file.deletingPathExtension().standardizedFileURL.path.lowercased()] = described
                continue
            }
            guard file.pathExtension.lowercased() == "aae" else {
                files.append(file)
                continue
            }
            let bytes = try? FileHandle(forReadingFrom: file).read(upToCount: AdjustmentSidecar.maximumFileSize + 1)
            if let bytes, let sidecar = AdjustmentSidecar(plist: bytes) {
                sidecars[Self.sidecarKey(file)] = (file, sidecar)
            } else {
                report.failures.append(ImportFailure(file: file, reason: "not an adjustments file of Photos (an .AAE property list)"))
            }
        }

        // 1. Copy + hash (one read), probe the copy's header: on every core, results kept in file order.
        let trace = ProcessInfo.processInfo.environment["OPENPHOTOKIT_TRACE_IMPORT"] != nil
        var phaseStart = Date()
        func phase(_ name: String) {
            guard trace else { return }
            FileHandle.standardError.write(Data(String(format: "import: %@ %.3f s\n", name, Date().timeIntervalSince(phaseStart)).utf8))
            phaseStart = Date()
        }
        let paths = files
        let counter = Mutex((done: 0, bytes: Int64(0)))
        var outcomes = [ImportOutcome?](repeating: nil, count: paths.count)
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
        outcomes.withUnsafeMutableBufferPointer { slots in
            nonisolated(unsafe) let slots = slots
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                for index in stride(from: worker, to: paths.count, by: workers) {
                    if isCancelled?() == true { break }
                    let known = movingFiles ? knownSHA256[paths[index].standardizedFileURL.path] : nil
                    let outcome = Self.stageAndProbe(paths[index], engine: engine, move: movingFiles, knownSHA256: known)
                    slots[index] = outcome
                    let now = counter.withLock { state in
                        state.done += 1
                        if case .item(let item) = outcome { state.bytes += item.staged.size }
                        return state
                    }
                    progress?(ImportProgress(filesDone: now.done, filesTotal: paths.count, bytesDone: now.bytes))
                }
            }
        }
        phase("copy, hash, probe")
        var items: [ImportItem] = []
        for outcome in outcomes {
            switch outcome {
            case .item(let item)?:
                items.append(item)
                report.bytesRead += item.staged.size
            case .failure(let failure)?: report.failures.append(failure)
            case nil: break
            }
        }
        do { try engine.syncStaged(items.map(\.staged)) } catch {
            engine.discardStaged(items.map(\.staged))
            throw PHPhotosError(error)
        }

        phase("fsync")
        // Edited renderings (`IMG_E1234.JPG`, a Live Photo's `IMG_E1234.MOV`) of originals with an `.AAE` in this
        // import belong to those originals' edits, not to assets of their own.
        var renderings: [String: [ImportItem]] = [:]
        let originalKeys = Set(items.map { Self.sidecarKey($0.file) })
        items = items.filter { item in
            let stem = item.file.deletingPathExtension().lastPathComponent
            guard let original = AdjustmentSidecar.originalStem(ofEdited: stem) else { return true }
            let key = Self.sidecarKey(item.file.deletingLastPathComponent().appendingPathComponent(original))
            guard originalKeys.contains(key), Self.sidecar(for: key, in: sidecars) != nil else { return true }
            renderings[key, default: []].append(item)
            return false
        }

        // 2. Duplicates: bytes already in the library, or earlier in this import.
        // Only a client that can read the whole library is told what it holds: an add-only or limited client's file
        // that the library already has becomes a new asset, as PhotoKit does for any client (duplicates within the
        // import are still its own business and reported).
        let existing: [String: String]
        let seesEverything = access.canRead && !access.isLimited
        do { existing = seesEverything ? try engine.assetIdentifiers(withSHA256: items.map(\.staged.sha256)) : [:] } catch {
            engine.discardStaged(items.map(\.staged))
            throw PHPhotosError(error)
        }
        var firstWithDigest: [String: URL] = [:]
        items = items.filter { item in
            let digest = item.staged.sha256
            let earlier = firstWithDigest[digest]
            guard existing[digest] != nil || earlier != nil else {
                firstWithDigest[digest] = item.file
                return true
            }
            report.duplicates.append(ImportDuplicate(file: item.file, existingLocalIdentifier: existing[digest], sameAs: earlier))
            engine.discardStaged([item.staged])
            // A duplicate's edit goes with it.
            if let edited = renderings.removeValue(forKey: Self.sidecarKey(item.file)) { engine.discardStaged(edited.map(\.staged)) }
            return false
        }

        // 3. Live Photos, then one creation request per asset, in transactions of batchSize.
        let units = Self.pairRAWs(Self.pairLivePhotos(items))
        report.livePhotosPaired = units.filter { $0.count >= 2 && $0[0].info.isImage && $0.contains { !$0.info.isImage } }.count
        report.rawPairsJoined = units.filter { $0.count >= 2 && $0.dropFirst().contains { $0.info.format == .cameraRAW } }.count
        // An edit is kept where its rendering can be one here (JPEG or HEIC: Photos' own, or the original standing in);
        // otherwise the photo is imported without it, and that is said.
        for unit in units where unit[0].info.isImage {
            let key = Self.sidecarKey(unit[0].file)
            guard let sidecar = sidecars[Self.sidecarEntryKey(for: key, in: sidecars) ?? ""] else { continue }
            let still = renderings[key]?.first { $0.info.isImage } ?? unit[0]
            if ![MediaFormat.jpeg, .heic].contains(still.info.format) {
                sidecars[Self.sidecarEntryKey(for: key, in: sidecars)!] = nil
                report.failures.append(
                    ImportFailure(
                        file: sidecar.file,
                        reason:
                            "not applied: \(still.file.lastPathComponent) is \(still.info.format.rawValue), and an edit's rendering is JPEG or HEIC (the photo is imported without it)"
                    ))
            }
        }
        var start = 0
        if isCancelled?() == true { report.wasCancelled = true }
        /// Commits `batch` in one transaction; the identifiers created, or the error.
        func commit(_ batch: [[ImportItem]], withEdits: Bool = true) -> Result<[String], any Error> {
            var identifiers: [String] = []
            do {
                try performChangesAndWait {
                    for unit in batch {
                        let request = PHAssetCreationRequest.forAsset()
                        for (index, item) in unit.enumerated() {
                            let type: PHAssetResourceType =
                                item.info.isImage
                                ? (index > 0 ? .alternatePhoto : .photo) : (unit[0].info.isImage ? .pairedVideo : .video)
                            request.addStagedResource(with: type, staged: item.staged, info: item.info, originalFilename: item.file.lastPathComponent)
                        }
                        if let described = Self.xmpSidecar(of: unit[0].file, in: xmpSidecars) {
                            // The sidecar is the editor's word, newer than what the file holds.
                            if let rating = described.rating { request.rating = PHAsset.Rating(rawValue: rating) ?? .unset }
                            if let caption = described.caption { request.caption = caption }
                            for keyword in described.keywords { request.addKeyword(keyword) }
                        }
                        let key = Self.sidecarKey(unit[0].file)
                        if withEdits, unit[0].info.isImage, let sidecar = Self.sidecar(for: key, in: sidecars) {
                            request.contentEditingOutput = Self.editOutput(
                                sidecar, original: unit[0], renderings: renderings[key] ?? [], placeholder: request.placeholderForCreatedAsset!)
                        }
                        identifiers.append(request.placeholderForCreatedAsset!.localIdentifier)
                    }
                }
                return .success(identifiers)
            } catch {
                return .failure(error)
            }
        }
        func hasEdit(_ unit: [ImportItem]) -> Bool {
            unit[0].info.isImage && Self.sidecar(for: Self.sidecarKey(unit[0].file), in: sidecars) != nil
        }
        /// A unit's files staged again where a failed commit took them (a commit that fails after placing its files
        /// removes them): copied from their sources once more. Nil when a source cannot be read now (reported).
        func restaged(_ unit: [ImportItem]) -> [ImportItem]? {
            var fresh: [ImportItem] = []
            for item in unit {
                if FileManager.default.fileExists(atPath: item.staged.url.path) {
                    fresh.append(item)
                    continue
                }
                let known = movingFiles ? knownSHA256[item.file.standardizedFileURL.path] : nil
                switch Self.stageAndProbe(item.file, engine: engine, move: movingFiles, knownSHA256: known) {
                case .item(let again): fresh.append(again)
                case .failure(let failure):
                    engine.discardStaged(fresh.map(\.staged))
                    report.failures.append(failure)
                    return nil
                }
            }
            return fresh
        }
        /// Commits one asset alone; an edit that cannot be kept never costs the photo: it is imported without, and
        /// that is reported.
        func commitAlone(_ original: [ImportItem]) {
            guard let unit = restaged(original) else { return }
            var result = commit([unit])
            var editKept = hasEdit(unit)
            if editKept, case .failure(let error) = result, let again = restaged(unit) {
                editKept = false
                result = commit([again], withEdits: false)
                if case .success = result {
                    report.failures.append(
                        ImportFailure(file: unit[0].file, reason: "imported without its edit (.AAE), which could not be kept: \(error)"))
                }
            }
            switch result {
            case .success(let identifiers):
                report.importedLocalIdentifiers += identifiers
                if editKept { report.editsKept += 1 }
            case .failure(let error):
                for item in unit {
                    engine.discardStaged([item.staged])
                    report.failures.append(ImportFailure(file: item.file, reason: "\(error)"))
                }
            }
        }
        while start < units.count, !report.wasCancelled {
            let batch = Array(units[start..<min(start + max(1, batchSize), units.count)])
            start += batch.count
            if batch.count == 1 {
                commitAlone(batch[0])
            } else if case .success(let identifiers) = commit(batch) {
                report.importedLocalIdentifiers += identifiers
                report.editsKept += batch.filter(hasEdit).count
            } else {
                // One asset can fail a whole transaction: each is tried alone, so only what fails is reported, with
                // its own reason, and the rest is imported.
                for unit in batch { commitAlone(unit) }
            }
            if isCancelled?() == true { report.wasCancelled = true }
        }
        // Cancelled: what was staged and not committed goes now (a kill would leave it to the next open's sweep).
        for unit in units[start...] {
            engine.discardStaged(unit.map(\.staged))
        }
        // The renderings were copied into their edits' outputs (or their asset was not imported).
        engine.discardStaged(renderings.values.flatMap { $0.map(\.staged) })
        phase("commit")
        return report
    }

    /// The XMP sidecar of a file: `NAME.EXT.xmp` (darktable), else `NAME.xmp` (Lightroom, Capture One).
    static func xmpSidecar(of file: URL, in sidecars: [String: MediaMetadata]) -> MediaMetadata? {
        let path = file.standardizedFileURL.path.lowercased()
        return sidecars[path] ?? sidecars[(path as NSString).deletingPathExtension]
    }

    /// Where a file's sidecar is looked up: its folder and stem, in lower case.
    static func sidecarKey(_ file: URL) -> String {
        file.deletingLastPathComponent().standardizedFileURL.path + "/" + file.deletingPathExtension().lastPathComponent.lowercased()
    }

    /// The `.AAE` of the original with this key: `IMG_1234.AAE`, else `IMG_O1234.AAE`.
    static func sidecar(for key: String, in sidecars: [String: (file: URL, sidecar: AdjustmentSidecar)]) -> AdjustmentSidecar? {
        sidecarEntryKey(for: key, in: sidecars).flatMap { sidecars[$0]?.sidecar }
    }

    /// The key under which the `.AAE` of the original with this key is kept.
    static func sidecarEntryKey(for key: String, in sidecars: [String: (file: URL, sidecar: AdjustmentSidecar)]) -> String? {
        let folder = (key as NSString).deletingLastPathComponent
        let stem = (key as NSString).lastPathComponent
        return AdjustmentSidecar.sidecarStems(of: stem).map { folder + "/" + $0.lowercased() }.first { sidecars[$0] != nil }
    }

    /// The edit an `.AAE` describes, for the asset being created: its adjustment data, and as its rendering the edited
    /// file Photos exported (JPEG or HEIC; a Live Photo's edited video beside it) — or, without one, the original.
    /// A rendering in another format, or a copy that fails, leaves the output without one: the commit then fails
    /// with the output's error, and the asset is tried alone (reported, the rest imported).
    static func editOutput(
        _ sidecar: AdjustmentSidecar, original: ImportItem, renderings: [ImportItem], placeholder: PHObjectPlaceholder
    ) -> PHContentEditingOutput {
        let output = PHContentEditingOutput(placeholderForCreatedAsset: placeholder)
        output.adjustmentData = PHAdjustmentData(
            formatIdentifier: sidecar.formatIdentifier, formatVersion: sidecar.formatVersion, data: sidecar.data)
        let still = renderings.first { $0.info.isImage } ?? original
        if still.info.format == .jpeg || still.info.format == .heic,
            let target = try? output.renderedContentURL(for: still.info.format == .heic ? .heic : .jpeg)
        {
            try? FileManager.default.copyItem(at: still.staged.url, to: target)
        }
        if let video = renderings.first(where: { !$0.info.isImage }) {
            try? FileManager.default.copyItem(at: video.staged.url, to: output.renderedPairedVideoURL)
        }
        return output
    }

    /// OpenPhotoKit: how deep ``importItems(at:recursive:batchSize:progress:isCancelled:)`` descends into folders.
    public static let maximumFolderDepth = 64

    struct ImportItem {
        var file: URL
        var staged: StagedFile
        var info: MediaInfo
    }

    enum ImportOutcome {
        case item(ImportItem)
        case failure(ImportFailure)
    }

    /// Copies and hashes one file into the staging folder (not yet durable) and reads its header.
    static func stageAndProbe(_ file: URL, engine: LibraryEngine, move: Bool = false, knownSHA256: String? = nil) -> ImportOutcome {
        // The name becomes the resource's original file name: one that cannot be a file name fails this file alone.
        do { try ResourceName.validate(file.lastPathComponent) } catch {
            return .failure(ImportFailure(file: file, reason: error.message))
        }
        let staged: StagedFile
        do { staged = try engine.stage(file: file, move: move, durable: false, knownSHA256: knownSHA256) } catch {
            return .failure(ImportFailure(file: file, reason: error.message))
        }
        do {
            return .item(ImportItem(file: file, staged: staged, info: try engine.configuration.probe.probe(staged.url)))
        } catch {
            engine.discardStaged([staged])
            return .failure(
                ImportFailure(file: file, reason: error.description.replacingOccurrences(of: staged.url.path, with: file.lastPathComponent)))
        }
    }

    /// Groups items into assets: Live Photo pairs (still first) and single files.
    ///
    /// A video joins the still with the same content identifier (the closest in time when several stills claim it);
    /// files without identifiers pair by the same base name in the same folder, dated at most 5 s apart.
    /// Joins each camera RAW file to the JPEG or HEIC of the same name in the same folder — what a camera set to
    /// RAW + JPEG writes, and what Photos imports as one asset: the JPEG its photo, the RAW its alternate photo. A RAW
    /// without one is an asset of its own.
    static func pairRAWs(_ units: [[ImportItem]]) -> [[ImportItem]] {
        func key(_ file: URL) -> String {
            file.deletingLastPathComponent().standardizedFileURL.path + "/" + file.deletingPathExtension().lastPathComponent.lowercased()
        }
        var rawUnits: [String: Int] = [:]
        for (index, unit) in units.enumerated() where unit.count == 1 && unit[0].info.format == .cameraRAW {
            if rawUnits[key(unit[0].file)] == nil { rawUnits[key(unit[0].file)] = index }
        }
        var joined = Set<Int>()
        var result: [[ImportItem]] = []
        var pairs: [Int: Int] = [:]
        for (index, unit) in units.enumerated() where [MediaFormat.jpeg, .heic].contains(unit[0].info.format) {
            if let raw = rawUnits[key(unit[0].file)], !joined.contains(raw) {
                joined.insert(raw)
                pairs[index] = raw
            }
        }
        for (index, unit) in units.enumerated() where !joined.contains(index) {
            result.append(pairs[index].map { unit + units[$0] } ?? unit)
        }
        return result
    }

    static func pairLivePhotos(_ items: [ImportItem]) -> [[ImportItem]] {
        var pairedWith: [Int: Int] = [:]  // video index → still index
        var stillTaken = Set<Int>()
        func gap(_ a: ImportItem, _ b: ImportItem) -> TimeInterval {
            guard let x = a.info.metadata.creationDate, let y = b.info.metadata.creationDate else { return .infinity }
            return abs(x.timeIntervalSince(y))
        }
        let stills = items.indices.filter { items[$0].info.isImage }
        let videos = items.indices.filter { !items[$0].info.isImage }
        for v in videos {
            let video = items[v]
            let candidates: [Int]
            if let id = video.info.metadata.contentIdentifier {
                candidates = stills.filter { !stillTaken.contains($0) && items[$0].info.metadata.contentIdentifier == id }
            } else {
                let base = video.file.deletingPathExtension().lastPathComponent.lowercased()
                let folder = video.file.deletingLastPathComponent().path
                candidates = stills.filter {
                    let still = items[$0]
                    return !stillTaken.contains($0) && still.info.metadata.contentIdentifier == nil
                        && still.file.deletingPathExtension().lastPathComponent.lowercased() == base
                        && still.file.deletingLastPathComponent().path == folder && gap(still, video) <= 5
                }
            }
            guard let best = candidates.min(by: { gap(items[$0], video) < gap(items[$1], video) }) else { continue }
            pairedWith[v] = best
            stillTaken.insert(best)
        }
        let videoOfStill = Dictionary(uniqueKeysWithValues: pairedWith.map { ($1, $0) })
        var units: [[ImportItem]] = []
        for index in items.indices {
            if pairedWith[index] != nil { continue }  // placed with its still
            if let video = videoOfStill[index] { units.append([items[index], items[video]]) } else { units.append([items[index]]) }
        }
        return units
    }
}

extension PHPhotoLibrary {
    /// The files an import takes from `urls`, and a report that says what the walk found (failures, links skipped,
    /// files examined).
    static func walk(_ urls: [URL], recursive: Bool) -> (ImportReport, [URL]) {
        var report = ImportReport()
        var walk = FolderWalk(recursive: recursive)
        for url in urls { walk.collect(url, depth: 0) }
        report.failures = walk.failures
        report.skippedLinks = walk.skippedLinks
        report.filesExamined = walk.files.count
        return (report, walk.files)
    }

    /// The import into a served library: the same walk, then each folder's files sent to the server and imported
    /// there together (as uploads are), so that what pairs by name — Live Photos, RAW + JPEG, Photos' edits and
    /// sidecars — pairs as it does among the files of one folder. A folder of more than
    /// ``RemoteLibrary/filesPerImport`` files is imported in parts of that many.
    private func importItems(
        at urls: [URL], into remote: RemoteLibrary, recursive: Bool, progress: (@Sendable (ImportProgress) -> Void)?,
        isCancelled: (@Sendable () -> Bool)?
    ) throws -> ImportReport {
        let (walkReport, walked) = Self.walk(urls, recursive: recursive)
        var report = walkReport
        var folders: [URL: [URL]] = [:]
        var order: [URL] = []
        for file in walked {
            let folder = file.deletingLastPathComponent().standardizedFileURL
            if folders[folder] == nil { order.append(folder) }
            folders[folder, default: []].append(file)
        }
        var done = 0
        for folder in order {
            let files = folders[folder] ?? []
            for start in stride(from: 0, to: files.count, by: RemoteLibrary.filesPerImport) {
                let part = Array(files[start..<min(start + RemoteLibrary.filesPerImport, files.count)])
                let outcome: RemoteImportOutcome?
                do {
                    outcome = try remote.importFiles(
                        part,
                        sent: { _, size in
                            done += 1
                            report.bytesRead += size
                            progress?(ImportProgress(filesDone: done, filesTotal: walked.count, bytesDone: report.bytesRead))
                        }, isCancelled: { isCancelled?() == true })
                } catch {
                    throw PHPhotosError(error)
                }
                guard let outcome else {
                    report.wasCancelled = true
                    return report
                }
                report.importedLocalIdentifiers += outcome.created
                report.livePhotosPaired += outcome.livePhotosPaired
                report.rawPairsJoined += outcome.rawPairsJoined
                report.editsKept += outcome.editsKept
                report.duplicates += outcome.duplicates.map {
                    ImportDuplicate(file: $0.file, existingLocalIdentifier: $0.existing, sameAs: $0.sameAs)
                }
                report.failures += outcome.failures.map { ImportFailure(file: $0.file, reason: $0.reason) }
            }
        }
        return report
    }
}
