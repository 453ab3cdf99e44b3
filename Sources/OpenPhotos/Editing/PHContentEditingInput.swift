import Foundation
import PhotoEditingProtocol
import PhotoLibraryEngine
import PhotoMedia
import Synchronization

/// Identifies a request for an editing input, to cancel it.
public typealias PHContentEditingInputRequestID = UInt

/// Info key: whether the asset's data is in iCloud (never here: the library's files are local).
public let PHContentEditingInputResultIsInCloudKey = "PHContentEditingInputResultIsInCloudKey"
/// Info key: true when the request was cancelled (the input is nil).
public let PHContentEditingInputCancelledKey = "PHContentEditingInputCancelledKey"
/// Info key: the `PHPhotosError` that kept the request from making an input.
public let PHContentEditingInputErrorKey = "PHContentEditingInputErrorKey"

/// What an editor edits: the asset's properties, a screen-sized image for its interface, the full-size file to
/// render from, and the recipe of the last edit when the editor said it can handle it.
///
/// Get one with ``PHAsset/requestContentEditingInput(with:completionHandler:)``. Which version it holds follows
/// PhotoKit's rule: when ``PHContentEditingInputRequestOptions/canHandleAdjustmentData`` accepts the asset's
/// adjustment data, the *previous* version (the input of the last edit) and ``adjustmentData``, so the edit can be
/// reopened and changed; otherwise the *current* rendering with no adjustment data, and the new edit stacks on it.
///
/// ``fullSizeImageURL`` names a copy made for this input in a private temporary folder — never the library's own
/// file — removed when the input and every output made from it are released.
open class PHContentEditingInput: NSObject, @unchecked Sendable {
    /// The asset's media type.
    open private(set) var mediaType: PHAssetMediaType
    /// The asset's media subtypes.
    open private(set) var mediaSubtypes: PHAssetMediaSubtype
    /// The asset's capture date.
    open private(set) var creationDate: Date?
    /// The asset's location.
    open private(set) var location: CLLocation?
    /// The uniform type identifier of the input's file.
    open private(set) var uniformTypeIdentifier: String?
    /// The uniform type of the input's file (iOS 26).
    open var contentType: UTType? { uniformTypeIdentifier.flatMap { UTType($0) } }
    /// How the asset is presented.
    open private(set) var playbackStyle: PHAsset.PlaybackStyle
    /// The last edit's recipe, when the editor can handle it (the input is then the previous version).
    open private(set) var adjustmentData: PHAdjustmentData?
    /// A screen-sized, upright image of the input (at most 2048 pixels on its long side), for the editor's interface;
    /// nil when the request's options skipped it.
    open var displaySizeImage: UIImage? {
        if let made = displayImageMaker { (displayImage, displayImageMaker) = (made(), nil) }
        return displayImage
    }
    private var displayImage: UIImage?
    /// Makes ``displaySizeImage`` on first use (in an extension's process, from its copy of the file).
    private var displayImageMaker: (() -> UIImage?)?
    /// The full-size photo to render from: a copy for this input (nil for videos).
    open private(set) var fullSizeImageURL: URL?
    /// The EXIF orientation of the file at ``fullSizeImageURL`` (1 for renderings, which are stored upright).
    open private(set) var fullSizeImageOrientation: Int32
    /// A video's input, as an `AVAsset` of a copy of the file (nil for photos).
    open private(set) var audiovisualAsset: AVAsset?
    /// The Live Photo the input shows, for a Live Photo asset.
    open private(set) var livePhoto: PHLivePhoto?

    /// The video input (deprecated on Apple platforms: use ``audiovisualAsset``).
    @available(*, deprecated, renamed: "audiovisualAsset")
    open var avAsset: AVAsset? { audiovisualAsset }

    // What the output and the commit need.
    let assetLocalIdentifier: String
    weak var library: PHPhotoLibrary?
    let basis: EditBasis
    /// Whether the input is the asset's original (not its current rendering or an edit's base).
    package var isOriginal: Bool { basis == .original }
    let contentVersion: Int
    package let workspace: EditingWorkspace

    init(
        asset: AssetRecord, state: EditingState, resource: ResourceRecord, basis: EditBasis, adjustment: PHAdjustmentData?,
        library: PHPhotoLibrary, workspace: EditingWorkspace
    ) {
        mediaType = PHAssetMediaType(rawValue: asset.mediaType.rawValue) ?? .unknown
        mediaSubtypes = PHAssetMediaSubtype(rawValue: asset.mediaSubtypes)
        creationDate = asset.creationDate
        location = asset.location.map {
            CLLocation(
                coordinate: CLLocationCoordinate2D(latitude: $0.latitude, longitude: $0.longitude), altitude: $0.altitude ?? 0,
                horizontalAccuracy: 0, verticalAccuracy: $0.altitude == nil ? -1 : 0, timestamp: asset.creationDate ?? asset.addedDate)
        }
        uniformTypeIdentifier = resource.uniformTypeIdentifier
        playbackStyle = PHAsset.PlaybackStyle(rawValue: asset.playbackStyle) ?? .unsupported
        adjustmentData = adjustment
        fullSizeImageOrientation = 1
        assetLocalIdentifier = asset.localIdentifier
        self.library = library
        self.basis = basis
        contentVersion = asset.contentVersion
        self.workspace = workspace
        super.init()
    }

    open override var description: String {
        "<PHContentEditingInput: \(assetLocalIdentifier) \(mediaType) \(uniformTypeIdentifier ?? "?") adjustmentData=\(adjustmentData.map { "\($0.formatIdentifier) \($0.formatVersion)" } ?? "nil")>"
    }

    // MARK: - Making inputs

    /// A display-size image as a Core Image recipe over the full-size copy: upright, at most ``displaySize`` long,
    /// decoded only when its pixels are asked for.
    private static func lazyDisplayImage(_ wire: EditingExtensionWire.Input) -> UIImage? {
        guard let path = wire.fullSizeImage, let image = CIImage(contentsOf: URL(fileURLWithPath: path)) else { return nil }
        let upright = image.oriented(forExifOrientation: wire.fullSizeImageOrientation)
        let scale = min(1, Double(displaySize) / max(upright.extent.width, upright.extent.height, 1))
        return UIImage(ciImage: scale < 1 ? upright.transformed(by: CGAffineTransform(scaleX: scale, y: scale)) : upright)
    }

    /// The input an extension process gets from its host: the properties, and copies of the files in the session
    /// folder; its outputs write into `outputFolder`.
    package init(extensionInput wire: EditingExtensionWire.Input, outputFolder: URL) {
        mediaType = PHAssetMediaType(rawValue: wire.mediaType) ?? .unknown
        mediaSubtypes = PHAssetMediaSubtype(rawValue: wire.mediaSubtypes)
        creationDate = wire.creationDate
        if let latitude = wire.latitude, let longitude = wire.longitude {
            location = CLLocation(
                coordinate: CLLocationCoordinate2D(latitude: latitude, longitude: longitude), altitude: wire.altitude ?? 0, horizontalAccuracy: 0,
                verticalAccuracy: wire.altitude == nil ? -1 : 0, timestamp: wire.creationDate ?? Date())
        }
        uniformTypeIdentifier = wire.uniformTypeIdentifier
        playbackStyle = PHAsset.PlaybackStyle(rawValue: wire.playbackStyle) ?? .unsupported
        adjustmentData = wire.adjustmentData.map {
            PHAdjustmentData(formatIdentifier: $0.formatIdentifier, formatVersion: $0.formatVersion, data: $0.data)
        }
        fullSizeImageURL = wire.fullSizeImage.map(URL.init(fileURLWithPath:))
        fullSizeImageOrientation = wire.fullSizeImageOrientation
        audiovisualAsset = wire.video.map { AVURLAsset(url: URL(fileURLWithPath: $0)) }
        displayImage = wire.displaySizeImage.flatMap { UIImage(contentsOfFile: $0) }
        if displayImage == nil { displayImageMaker = { Self.lazyDisplayImage(wire) } }
        assetLocalIdentifier = ""
        library = nil
        basis = .original
        contentVersion = 0
        workspace = EditingWorkspace(existing: outputFolder)
        super.init()
        if let still = fullSizeImageURL, let video = wire.pairedVideo {
            livePhoto = PHLivePhoto(
                size: displaySizeImage?.size ?? .zero, still: displaySizeImage, photoURL: still, videoURL: URL(fileURLWithPath: video), asset: nil)
        }
    }

    /// The long side of ``displaySizeImage``, at most.
    static let displaySize = 2048

    /// Makes the input of an asset (the work of a request, off the caller's thread).
    ///
    /// For a served library the server says which files the asset has and its last edit's adjustment data, the
    /// editor's `canHandle` chooses by the same rule, and the file is downloaded into the session's folder — only with
    /// network access, as an iCloud asset's is.
    /// - parameter network: whether a file this machine has no copy of (object storage, a served library) may be
    ///   downloaded, and who is told how far the download got (false from it stops the download).
    package static func make(
        _ asset: PHAsset, library: PHPhotoLibrary, canHandle: ((PHAdjustmentData) -> Bool)?, skipsDisplaySizeImage: Bool = false,
        originalChoice: PHAsset.OriginalResourceChoice = .compressed, workspaceParent: URL? = nil,
        network: (allowed: Bool, progress: (@Sendable (Double) -> Bool)?) = (true, nil)
    ) throws -> PHContentEditingInput {
        let remote = library.remote
        let engine = remote == nil ? try library.engine() : nil
        let state: EditingState
        let stored: StoredAdjustment?
        if let remote {
            (state, stored) = try remote.editingState(localIdentifier: asset.localIdentifier, rawChosen: originalChoice == .raw)
        } else if let engine {
            state = try engine.editingState(localIdentifier: asset.localIdentifier, access: library.access, rawChosen: originalChoice == .raw)
            stored = engine.adjustment(of: state)
        } else {
            throw LibraryError.internalError("no library to make an editing input from")
        }
        guard state.asset.mediaType == .image || state.asset.mediaType == .video else {
            throw LibraryError.requestNotSupportedForAsset("\(asset.localIdentifier) is neither a photo nor a video: it has no editing input")
        }
        let adjustment =
            state.asset.hasAdjustments
            ? stored.map { PHAdjustmentData(formatIdentifier: $0.formatIdentifier, formatVersion: $0.formatVersion, data: $0.data) } : nil
        let handles = adjustment.map { canHandle?($0) ?? false } ?? false
        let (chosen, basis) = state.inputSource(editorHandlesAdjustment: handles)
        let what = "the \(basis == .original ? "original" : "edited version") of \(asset.localIdentifier)"
        guard let resource = chosen else { throw LibraryError.missingResource("\(what) is missing") }
        if !network.allowed, !(engine?.isLocal(resource) ?? false) {
            throw LibraryError.networkAccessRequired("\(what) is not on this machine: allow network access to fetch it")
        }
        // In the library's editing area when it can write (a rendering written there is committed without a copy),
        // else in a temporary folder.
        let workspace = try EditingWorkspace(in: workspaceParent ?? engine?.editingArea())
        let input = PHContentEditingInput(
            asset: state.asset, state: state, resource: resource, basis: basis, adjustment: basis == .currentRendering ? nil : adjustment,
            library: library, workspace: workspace)
        // The input's files in a folder of their own: an output of the same session writes `FullSizeRender.jpg` beside
        // it, the name a rendering input has too.
        let inputFolder = workspace.url.appendingPathComponent("Input")
        do { try POSIXFiles.createDirectory(inputFolder) } catch {
            throw LibraryError.internalError("cannot create \(inputFolder.path): \(error)")
        }
        let stem = (resource.path.isEmpty ? resource.originalFilename : resource.path) as NSString
        let copy = inputFolder.appendingPathComponent(ResourceName.safeFileName(resource.originalFilename, fallback: "Input.\(stem.pathExtension)"))
        let isPhoto = state.asset.mediaType == .image
        var display: PixelBuffer?
        if let remote {
            // Downloaded, then the screen-sized image read from the copy.
            try remote.download(resource, to: copy, progress: network.progress)
            if !skipsDisplaySizeImage { display = try displayImage(of: copy, isPhoto: isPhoto, resource: resource, asset: asset) }
        } else if let engine {
            let file: URL
            do { file = try engine.materialize(resource, progress: network.progress) } catch {
                if error.code == LibraryError.missingResource("").code { throw LibraryError.missingResource("\(what) is missing") }
                throw error
            }
            // The copy and the screen-sized image side by side: each reads the file once.
            let failure = Mutex<(any Error)?>(nil)
            nonisolated(unsafe) var rendered: PixelBuffer?
            DispatchQueue.concurrentPerform(iterations: skipsDisplaySizeImage ? 1 : 2) { part in
                do {
                    if part == 0 {
                        try FileStager.copyOut(file, to: copy)
                    } else {
                        rendered = try displayImage(of: file, isPhoto: isPhoto, resource: resource, asset: asset)
                    }
                } catch {
                    failure.withLock { $0 = $0 ?? error }
                }
            }
            if let error = failure.withLock({ $0 }) { throw error }
            display = rendered
        }
        input.displayImage = display.map { UIImage(pixels: $0) }
        if isPhoto {
            input.fullSizeImageURL = copy
            input.fullSizeImageOrientation = Int32((try? MediaProbe().probe(copy).orientation) ?? 1)
        } else {
            input.audiovisualAsset = AVURLAsset(url: copy)
        }
        if state.asset.mediaSubtypes & PHAssetMediaSubtype.photoLive.rawValue != 0 {
            // The video of the same version as the still: the original's, the edit's base, or the current rendering.
            let resources = PHAssetResource.assetResources(for: PHAsset(record: state.asset, library: library))
            let video: PHAssetResource? =
                switch basis {
                case .original: PHAssetResource.resource(among: resources, version: .unadjusted, pairedVideo: true)
                case .adjustmentBase:
                    resources.first { $0.type == .adjustmentBasePairedVideo }
                        ?? PHAssetResource.resource(among: resources, version: .unadjusted, pairedVideo: true)
                case .currentRendering: PHAssetResource.resource(among: resources, version: .current, pairedVideo: true)
                }
            if let video {
                let videoCopy = inputFolder.appendingPathComponent("PairedVideo.\((video.originalFilename as NSString).pathExtension)")
                var copied = false
                if let remote {
                    try remote.download(video.record, to: videoCopy, progress: network.progress)
                    copied = true
                } else if let file = video.fileURL {
                    try FileStager.copyOut(file, to: videoCopy)
                    copied = true
                }
                if copied {
                    input.livePhoto = PHLivePhoto(
                        size: CGSize(width: resource.pixelWidth, height: resource.pixelHeight), still: input.displaySizeImage, photoURL: copy,
                        videoURL: videoCopy, asset: nil)
                }
            }
        }
        return input
    }

    /// The screen-sized, upright image of an input's file: a photo fitted in ``displaySize``, a video's poster frame.
    private static func displayImage(of file: URL, isPhoto: Bool, resource: ResourceRecord, asset: PHAsset) throws -> PixelBuffer {
        let request = RenderRequest(target: (displaySize, displaySize), fit: .fit, resize: .exact)
        do {
            if isPhoto {
                return try ImageRenderer.render(file.path, displayWidth: resource.pixelWidth, displayHeight: resource.pixelHeight, request: request)
            }
            let rotation = (try? MediaProbe().probe(file).rotation) ?? 0
            return try ImageRenderer.renderPosterFrame(
                file.path, rotation: rotation, displayWidth: resource.pixelWidth, displayHeight: resource.pixelHeight, request: request)
        } catch {
            // The renderer throws MediaError only: the file cannot be read as what it claims to be.
            throw LibraryError.invalidResource("cannot read the input of \(asset.localIdentifier): \(error)")
        }
    }
}

/// A private folder for one editing session — in the library's editing area, or in the temporary directory — holding
/// the input's copy and the outputs' renderings. Removed with its last user.
package final class EditingWorkspace: @unchecked Sendable {
    package let url: URL
    /// Whether the folder goes with this object (false: a folder someone else made and removes).
    private let ownsFolder: Bool

    /// A folder made by someone else (an extension's output folder, made by its host): kept when released.
    package init(existing url: URL) {
        self.url = url
        ownsFolder = false
    }

    /// A new folder inside `parent`, or inside this process's folder of editing workspaces.
    package init(in parent: URL? = nil) throws {
        ownsFolder = true
        let root = try parent ?? Self.processFolder.get()
        do {
            url = root.appendingPathComponent(UUID().uuidString)
            try POSIXFiles.createDirectory(url)
        } catch {
            throw LibraryError.internalError("cannot create an editing folder in \(root.path): \(error)")
        }
    }

    /// Removes the folder now (a session that ended), rather than when the last reference goes — which a process that
    /// exits never reaches.
    package func remove() { if ownsFolder { try? FileManager.default.removeItem(at: url) } }

    deinit { remove() }

    /// `$TMPDIR/OpenPhotoKit-Editing-<uid>/<pid>-<random>`: this process's workspaces, under an flock held for as long
    /// as the process lives. Making it sweeps the folders of processes that are gone (killed, or exited without removing
    /// theirs) — only those: a folder whose lock is held belongs to a live process.
    static let processFolder: Result<URL, LibraryError> = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("OpenPhotoKit-Editing-\(getuid())")
        do {
            try POSIXFiles.createDirectory(root)
            sweepAbandoned(in: root)
            let folder = root.appendingPathComponent("\(getpid())-\(UUID().uuidString.prefix(8))")
            try POSIXFiles.createDirectory(folder)
            let lock = open(folder.appendingPathComponent(".lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard lock >= 0, flock(lock, LOCK_EX | LOCK_NB) == 0 else {
                throw LibraryError.internalError("cannot lock \(folder.path): \(String(cString: strerror(errno)))")
            }
            // The descriptor stays open (and the lock held) until the process ends.
            return .success(folder)
        } catch let error as LibraryError {
            return .failure(error)
        } catch {
            return .failure(.internalError("cannot create an editing folder in \(root.path): \(error)"))
        }
    }()

    /// Removes the workspaces of processes that are gone: folders whose lock nobody holds, and folders of the layout
    /// before locks (a workspace directly in the root) untouched for an hour.
    static func sweepAbandoned(in root: URL) {
        let fileManager = FileManager.default
        guard let entries = try? fileManager.contentsOfDirectory(atPath: root.path) else { return }
        for name in entries {
            let folder = root.appendingPathComponent(name)
            let lockPath = folder.appendingPathComponent(".lock").path
            let lock = open(lockPath, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
            if lock >= 0 {
                defer { close(lock) }
                if flock(lock, LOCK_EX | LOCK_NB) == 0 { try? fileManager.removeItem(at: folder) }
                continue
            }
            var info = stat()
            if lstat(folder.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, UUID(uuidString: name) != nil,
                Double(info.st_mtim.tv_sec) < Date().timeIntervalSince1970 - 3600
            {
                try? fileManager.removeItem(at: folder)
            }
        }
    }
}

/// The requests for editing inputs in flight: each handler is called exactly once — with the input, an error, or
/// the cancelled key.
final class ContentEditingInputRequests: @unchecked Sendable {
    static let shared = ContentEditingInputRequests()

    typealias Handler = (PHContentEditingInput?, [AnyHashable: Any]) -> Void
    /// A handler held until it is called (handlers are not `Sendable`: they are called on the delivery queue only).
    private struct Pending: @unchecked Sendable { var handler: Handler }

    /// Inputs are made here, several at a time.
    private let workers = DispatchQueue(label: "OpenPhotoKit.content-editing", qos: .userInitiated, attributes: .concurrent)
    /// Handlers are called here, one at a time.
    let delivery = DispatchQueue(label: "OpenPhotoKit.content-editing-results")
    private let state = Mutex<(next: UInt, pending: [UInt: Pending])>((1, [:]))

    func request(
        _ asset: PHAsset, options: PHContentEditingInputRequestOptions?, completionHandler: @escaping Handler
    ) -> PHContentEditingInputRequestID {
        nonisolated(unsafe) let handler = completionHandler
        let id = state.withLock { state -> UInt in
            let id = state.next
            state.next += 1
            state.pending[id] = Pending(handler: handler)
            return id
        }
        nonisolated(unsafe) let canHandle = options?.canHandleAdjustmentData
        let skipsDisplaySizeImage = options?.skipsDisplaySizeImage ?? false
        let originalChoice = options?.originalResourceChoice ?? .compressed
        let networkAllowed = options?.isNetworkAccessAllowed ?? false
        nonisolated(unsafe) let progressHandler = options?.progressHandler
        workers.async { [self] in
            guard isPending(id) else { return }
            let library = asset.library ?? PHPhotoLibrary.shared()
            // Told in order on a queue of the request's own; setting `stop` ends the download at its next piece.
            let progressQueue = DispatchQueue(label: "OpenPhotoKit.content-editing-progress")
            let stopped = NetworkAccess.StopFlag()
            let progress: (@Sendable (Double) -> Bool)? = progressHandler.map { handler in
                nonisolated(unsafe) let handler = handler
                return { fraction in
                    progressQueue.async {
                        var stop: ObjCBool = false
                        handler(fraction, &stop)
                        if stop.boolValue { stopped.set() }
                    }
                    return !stopped.isSet && self.isPending(id)
                }
            }
            let result = Result {
                try PHContentEditingInput.make(
                    asset, library: library, canHandle: canHandle, skipsDisplaySizeImage: skipsDisplaySizeImage, originalChoice: originalChoice,
                    network: (networkAllowed, progress))
            }
            let delivered = result
            delivery.async { [self] in
                guard let handler = take(id) else { return }
                switch delivered {
                case .success(let input):
                    handler(input, [PHContentEditingInputResultIsInCloudKey: false])
                case .failure(let error):
                    let photosError = (error as? LibraryError).map(PHPhotosError.init) ?? error
                    // Not on this machine and the network not allowed: the caller may ask again with it.
                    let inCloud = (photosError as? PHPhotosError)?.code == .networkAccessRequired
                    handler(nil, [PHContentEditingInputErrorKey: photosError, PHContentEditingInputResultIsInCloudKey: inCloud])
                }
            }
        }
        return id
    }

    /// Cancels a request still running: its handler is called once, now, with ``PHContentEditingInputCancelledKey``.
    func cancel(_ id: PHContentEditingInputRequestID) {
        delivery.async { [self] in
            guard let handler = take(id) else { return }
            handler(nil, [PHContentEditingInputCancelledKey: true, PHContentEditingInputResultIsInCloudKey: false])
        }
    }

    private func isPending(_ id: UInt) -> Bool { state.withLock { $0.pending[id] != nil } }
    private func take(_ id: UInt) -> Handler? { state.withLock { $0.pending.removeValue(forKey: id) }?.handler }
}

extension PHAsset {
    /// The adjustment data of the asset's last edit as stored now, nil when it is unedited or the data cannot be read:
    /// what an editor is asked whether it can handle before its input is made.
    /// - throws: ``PHPhotosError`` when the library cannot be read.
    package func storedAdjustmentData() throws(PHPhotosError) -> PHAdjustmentData? {
        let library = self.library ?? PHPhotoLibrary.shared()
        do {
            let stored: StoredAdjustment?
            if let remote = library.remote {
                let (state, adjustment) = try remote.editingState(localIdentifier: localIdentifier, rawChosen: false)
                stored = state.asset.hasAdjustments ? adjustment : nil
            } else {
                let engine = try library.engine()
                let state = try engine.editingState(localIdentifier: localIdentifier, access: library.access)
                stored = state.asset.hasAdjustments ? engine.adjustment(of: state) : nil
            }
            guard let stored else { return nil }
            return PHAdjustmentData(formatIdentifier: stored.formatIdentifier, formatVersion: stored.formatVersion, data: stored.data)
        } catch {
            throw PHPhotosError(error)
        }
    }

    /// Makes the editing input of this asset in `workspace` (an extension's session folder), for an editor that
    /// `handles` (or not) its adjustment data; no display-size image (nothing shows one).
    /// - throws: ``PHPhotosError``.
    package func makeEditingInput(handlesAdjustmentData handles: Bool, in workspace: URL) throws(PHPhotosError) -> PHContentEditingInput {
        do {
            return try PHContentEditingInput.make(
                self, library: library ?? PHPhotoLibrary.shared(), canHandle: { _ in handles }, skipsDisplaySizeImage: true,
                workspaceParent: workspace)
        } catch let error as LibraryError {
            throw PHPhotosError(error)
        } catch let error as PHPhotosError {
            throw error
        } catch {
            throw PHPhotosError(.internalError, userInfo: [NSLocalizedDescriptionKey: "\(error)"])
        }
    }
}
