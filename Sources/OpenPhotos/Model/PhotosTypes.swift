import Foundation

// The enumerations of Apple's PhotosTypes.h, with Apple's raw values (spec §18).

/// The type of an asset.
public enum PHAssetMediaType: Int, Sendable, CaseIterable, Codable {
    case unknown = 0
    case image = 1
    case video = 2
    case audio = 3
}

/// Subtypes of an asset: panorama, HDR, screenshot, Live Photo …
public struct PHAssetMediaSubtype: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let photoPanorama = PHAssetMediaSubtype(rawValue: 1 << 0)
    public static let photoHDR = PHAssetMediaSubtype(rawValue: 1 << 1)
    public static let photoScreenshot = PHAssetMediaSubtype(rawValue: 1 << 2)
    public static let photoLive = PHAssetMediaSubtype(rawValue: 1 << 3)
    public static let photoDepthEffect = PHAssetMediaSubtype(rawValue: 1 << 4)
    public static let photoAnimation = PHAssetMediaSubtype(rawValue: 1 << 6)
    public static let spatialMedia = PHAssetMediaSubtype(rawValue: 1 << 10)
    public static let videoStreamed = PHAssetMediaSubtype(rawValue: 1 << 16)
    public static let videoHighFrameRate = PHAssetMediaSubtype(rawValue: 1 << 17)
    public static let videoTimelapse = PHAssetMediaSubtype(rawValue: 1 << 18)
    public static let videoScreenRecording = PHAssetMediaSubtype(rawValue: 1 << 19)
    public static let videoCinematic = PHAssetMediaSubtype(rawValue: 1 << 21)
}

/// Which burst photos were selected, automatically or by the user.
public struct PHAssetBurstSelectionType: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let autoPick = PHAssetBurstSelectionType(rawValue: 1)
    public static let userPick = PHAssetBurstSelectionType(rawValue: 2)
}

/// Where an asset comes from.
public struct PHAssetSourceType: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let typeUserLibrary = PHAssetSourceType(rawValue: 1)
    public static let typeCloudShared = PHAssetSourceType(rawValue: 2)
    public static let typeiTunesSynced = PHAssetSourceType(rawValue: 4)
}

/// Kinds of edits an asset may support.
public enum PHAssetEditOperation: Int, Sendable, CaseIterable, Codable {
    case delete = 1
    case content = 2
    case properties = 3
    /// Whether a Live Photo's video can be turned on or off with
    /// ``PHAssetChangeRequest/setLivePhotoVideoPlaybackEnabled(_:)`` (iOS 27.3): false for an asset that is not a
    /// Live Photo, and for a Live Photo whose video an edit without a paired video hid.
    case setLivePhotoVideoPlaybackEnabled = 4
}

/// Kinds of edits a collection may support.
public enum PHCollectionEditOperation: Int, Sendable, CaseIterable, Codable {
    case deleteContent = 1
    case removeContent = 2
    case addContent = 3
    case createContent = 4
    case rearrangeContent = 5
    case delete = 6
    case rename = 7
}

/// Major types of asset collections.
public enum PHAssetCollectionType: Int, Sendable, Codable {
    case album = 1
    case smartAlbum = 2
    @available(*, deprecated, message: "Will be removed in a future release")
    case moment = 3
}

/// Minor types of asset collections.
public enum PHAssetCollectionSubtype: Int, Sendable, CaseIterable, Codable {
    case albumRegular = 2
    case albumSyncedEvent = 3
    case albumSyncedFaces = 4
    case albumSyncedAlbum = 5
    case albumImported = 6
    case albumMyPhotoStream = 100
    case albumCloudShared = 101
    case smartAlbumGeneric = 200
    case smartAlbumPanoramas = 201
    case smartAlbumVideos = 202
    case smartAlbumFavorites = 203
    case smartAlbumTimelapses = 204
    case smartAlbumAllHidden = 205
    case smartAlbumRecentlyAdded = 206
    case smartAlbumBursts = 207
    case smartAlbumSlomoVideos = 208
    case smartAlbumUserLibrary = 209
    case smartAlbumSelfPortraits = 210
    case smartAlbumScreenshots = 211
    case smartAlbumDepthEffect = 212
    case smartAlbumLivePhotos = 213
    case smartAlbumAnimated = 214
    case smartAlbumLongExposures = 215
    case smartAlbumUnableToUpload = 216
    case smartAlbumRAW = 217
    case smartAlbumCinematic = 218
    case smartAlbumSpatial = 219
    case smartAlbumScreenRecordings = 220
    /// Recently Deleted. Not public in Apple's SDK; its raw value is the private one clients filter on.
    case smartAlbumRecentlyDeleted = 1_000_000_201
    /// Matches every subtype when fetching.
    case any = 9_223_372_036_854_775_807
}

/// Major types of collection lists.
public enum PHCollectionListType: Int, Sendable, Codable {
    @available(*, deprecated, message: "Will be removed in a future release")
    case momentList = 1
    case folder = 2
    case smartFolder = 3
}

/// Minor types of collection lists.
public enum PHCollectionListSubtype: Int, Sendable, Codable {
    @available(*, deprecated, message: "Will be removed in a future release")
    case momentListCluster = 1
    @available(*, deprecated, message: "Will be removed in a future release")
    case momentListYear = 2
    case regularFolder = 100
    /// The one collection list that holds the top-level user collections (iOS 27): it cannot be renamed or deleted.
    case rootFolder = 101
    case smartFolderEvents = 200
    case smartFolderFaces = 201
    case any = 9_223_372_036_854_775_807
}

/// The kinds of files an asset holds.
public enum PHAssetResourceType: Int, Sendable, CaseIterable, Codable {
    case photo = 1
    case video = 2
    case audio = 3
    case alternatePhoto = 4
    case fullSizePhoto = 5
    case fullSizeVideo = 6
    case adjustmentData = 7
    case adjustmentBasePhoto = 8
    case pairedVideo = 9
    case fullSizePairedVideo = 10
    case adjustmentBasePairedVideo = 11
    case adjustmentBaseVideo = 12
    case photoProxy = 19
}

/// Whether the user allowed the app to access the library.
public enum PHAuthorizationStatus: Int, Sendable, CaseIterable, Codable {
    case notDetermined = 0
    case restricted = 1
    case denied = 2
    case authorized = 3
    case limited = 4
}

/// The access an app asks for.
public enum PHAccessLevel: Int, Sendable, CaseIterable, Codable {
    case addOnly = 1
    case readWrite = 2
}

/// Kinds of objects in persistent change history.
public enum PHObjectType: Int, Sendable, CaseIterable, Codable {
    case asset = 1
    case assetCollection = 2
    case collectionList = 3
}

extension PHAsset {
    /// How to present an asset.
    public enum PlaybackStyle: Int, Sendable, CaseIterable, Codable {
        case unsupported = 0
        case image = 1
        case imageAnimated = 2
        case livePhoto = 3
        case video = 4
        case videoLooping = 5
    }

    /// The Live Photo effect applied to an asset.
    public enum PlaybackVariation: Int, Sendable, CaseIterable, Codable {
        case none = 0
        case autoloop = 1
        case mirror = 2
        case longExposure = 3
    }

    /// The user's star rating of an asset (iOS 27).
    public enum Rating: Int, Sendable, CaseIterable, Codable {
        case unset = 0
        case one = 1
        case two = 2
        case three = 3
        case four = 4
        case five = 5
    }

    /// Which original of a RAW + JPEG pair an asset shows (iOS 27): the JPEG or HEIC (`.photo`), or the RAW
    /// (`.alternatePhoto`).
    public enum OriginalResourceChoice: Int, Sendable, CaseIterable, Codable {
        case compressed = 0
        case raw = 1
    }

    /// Whether and how an asset's content was adjusted.
    public enum AdjustmentsState: Int, Sendable, CaseIterable, Codable {
        case none = 0
        case userAdjusted = 2
        case cameraAutoAdjusted = 3
    }
}

/// Objective-C names of the playback enums.
public typealias PHAssetPlaybackStyle = PHAsset.PlaybackStyle
public typealias PHAssetPlaybackVariation = PHAsset.PlaybackVariation
