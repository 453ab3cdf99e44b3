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
    /// files whose identifiers differ never are. Files that cannot be read — damaged, not regular files, names
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
        let engine: LibraryEngine
        do { engine = try self.engine() } catch { throw PHPhotosError(error) }
        var report = ImportReport()
        var walk = FolderWalk(recursive: recursive)
        for url in urls { walk.collect(url, depth: 0) }
        let files = walk.files
        report.failures = walk.failures
        report.skippedLinks = walk.skippedLinks
        report.filesExamined = files.count

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
            return false
        }

        // 3. Live Photos, then one creation request per asset, in transactions of batchSize.
        let units = Self.pairLivePhotos(items)
        report.livePhotosPaired = units.filter { $0.count == 2 }.count
        var start = 0
        if isCancelled?() == true { report.wasCancelled = true }
        /// Commits `batch` in one transaction; the identifiers created, or the error.
        func commit(_ batch: [[ImportItem]]) -> Result<[String], any Error> {
            var identifiers: [String] = []
            do {
                try performChangesAndWait {
                    for unit in batch {
                        let request = PHAssetCreationRequest.forAsset()
                        for item in unit {
                            let type: PHAssetResourceType = item.info.isImage ? .photo : (unit.count == 2 ? .pairedVideo : .video)
                            request.addStagedResource(with: type, staged: item.staged, info: item.info, originalFilename: item.file.lastPathComponent)
                        }
                        identifiers.append(request.placeholderForCreatedAsset!.localIdentifier)
                    }
                }
                return .success(identifiers)
            } catch {
                return .failure(error)
            }
        }
        while start < units.count, !report.wasCancelled {
            let batch = Array(units[start..<min(start + max(1, batchSize), units.count)])
            start += batch.count
            switch commit(batch) {
            case .success(let identifiers): report.importedLocalIdentifiers += identifiers
            case .failure(let error) where batch.count == 1:
                for item in batch[0] {
                    engine.discardStaged([item.staged])
                    report.failures.append(ImportFailure(file: item.file, reason: "\(error)"))
                }
            case .failure:
                // One asset can fail a whole transaction: each is tried alone, so only what fails is reported, with
                // its own reason, and the rest is imported.
                for unit in batch {
                    switch commit([unit]) {
                    case .success(let identifiers): report.importedLocalIdentifiers += identifiers
                    case .failure(let error):
                        for item in unit {
                            engine.discardStaged([item.staged])
                            report.failures.append(ImportFailure(file: item.file, reason: "\(error)"))
                        }
                    }
                }
            }
            if isCancelled?() == true { report.wasCancelled = true }
        }
        // Cancelled: what was staged and not committed goes now (a kill would leave it to the next open's sweep).
        for unit in units[start...] {
            engine.discardStaged(unit.map(\.staged))
        }
        phase("commit")
        return report
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
