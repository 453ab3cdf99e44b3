import Foundation

/// A geographic position as stored with an asset.
package struct LocationRecord: Sendable, Hashable {
    package var latitude: Double
    package var longitude: Double
    package var altitude: Double?

    package init(latitude: Double, longitude: Double, altitude: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }
}

/// One row of the `asset` table: everything a `PHAsset` exposes.
/// PhotoKit's media types as the engine stores them (`PHAssetMediaType`'s raw values; the public API maps them by
/// raw value).
package enum MediaType: Int, Sendable, Hashable, CaseIterable, SQLValueConvertible {
    case unknown = 0
    case image = 1
    case video = 2
    case audio = 3
}

package struct AssetRecord: Sendable, Hashable {
    package var id: Int64
    package var localIdentifier: String
    package var mediaType: MediaType
    package var mediaSubtypes: UInt
    package var playbackStyle: Int
    package var playbackVariation: Int
    package var pixelWidth: Int
    package var pixelHeight: Int
    package var creationDate: Date?
    /// Seconds east of UTC of the wall-clock time the asset was captured at, when known.
    package var creationTimeZoneOffset: Int?
    package var modificationDate: Date
    package var addedDate: Date
    package var location: LocationRecord?
    package var duration: Double
    package var isFavorite: Bool
    package var isHidden: Bool
    package var burstIdentifier: String?
    package var burstSelectionTypes: UInt
    package var representsBurst: Bool
    package var sourceType: UInt
    package var hasAdjustments: Bool
    package var adjustmentFormatIdentifier: String?
    package var trashedDate: Date?
    /// When the asset's content was last edited or reverted (nil: never).
    package var adjustmentTimestamp: Date?
    /// Counts the asset's content changes (1: as added); names the files of each version.
    package var contentVersion: Int
    /// The user's star rating: 0 (unset) to 5.
    package var rating: Int
    /// A Live Photo whose video the user turned off (it presents as a still; `playbackStyle` says image).
    package var livePlaybackOff: Bool
    /// Which original of a RAW + JPEG pair the asset shows: 0 the JPEG or HEIC, 1 the RAW.
    package var originalChoice: Int = 0

}

extension AssetRecord {
    /// The columns read for a record, in `init(row:)` order.
    static let selection = """
        a.id, a.local_id, a.media_type, a.media_subtypes, a.playback_style, a.playback_variation, a.pixel_width, \
        a.pixel_height, a.creation_date, a.creation_tz_offset, a.modification_date, a.added_date, a.latitude, \
        a.longitude, a.altitude, a.duration, a.is_favorite, a.is_hidden, a.burst_identifier, \
        a.burst_selection_types, a.represents_burst, a.source_type, a.has_adjustments, \
        a.adjustment_format_identifier, a.trashed_date, a.adjustment_timestamp, a.content_version, a.rating, \
        a.live_playback_off, a.original_choice
        """

    init(row: some SQLRow) {
        id = row[0]
        localIdentifier = row[1]
        // A media type of a newer version reads as unknown, never as a crash.
        mediaType = MediaType(rawValue: row[2] as Int) ?? .unknown
        mediaSubtypes = UInt(row[3] as Int64)
        livePlaybackOff = row[28]
        // A Live Photo turned off presents as a still (PHAsset.PlaybackStyle.image) and keeps its video.
        playbackStyle = livePlaybackOff ? 1 : row[4]
        playbackVariation = row[5]
        pixelWidth = row[6]
        pixelHeight = row[7]
        creationDate = (row[8] as Double?).map(Date.init(timeIntervalSince1970:))
        creationTimeZoneOffset = row[9]
        modificationDate = Date(timeIntervalSince1970: row[10])
        addedDate = Date(timeIntervalSince1970: row[11])
        if let lat = row[12] as Double?, let lon = row[13] as Double? {
            location = LocationRecord(latitude: lat, longitude: lon, altitude: row[14])
        } else {
            location = nil
        }
        duration = row[15]
        isFavorite = row[16]
        isHidden = row[17]
        burstIdentifier = row[18]
        burstSelectionTypes = UInt(row[19] as Int64)
        representsBurst = row[20]
        sourceType = UInt(row[21] as Int64)
        hasAdjustments = row[22]
        adjustmentFormatIdentifier = row[23]
        trashedDate = (row[24] as Double?).map(Date.init(timeIntervalSince1970:))
        adjustmentTimestamp = (row[25] as Double?).map(Date.init(timeIntervalSince1970:))
        contentVersion = row[26]
        rating = row[27]
        originalChoice = Int(row[29] as Int64)
    }
}

/// One stored file of an asset (a row of `resource`).
package struct ResourceRecord: Sendable, Hashable {
    package var id: Int64
    package var assetID: Int64
    package var assetLocalIdentifier: String
    package var type: ResourceType
    /// The stored type's number, also when this version does not know it (``ResourceType/unknown``).
    package var typeRawValue: Int
    /// Path relative to the library bundle.
    package var path: String
    package var originalFilename: String
    package var uniformTypeIdentifier: String
    package var fileSize: Int64
    package var sha256: String
    package var pixelWidth: Int
    package var pixelHeight: Int
}

/// A collection as PhotoKit sees it: a stored album, folder or smart album, or a computed moment or moment list.
package struct CollectionRecord: Sendable, Hashable {
    package var id: Int64?
    package var localIdentifier: String
    package var kind: CollectionKind
    package var type: Int
    package var subtype: Int
    package var title: String?
    package var parentID: Int64?
    package var startDate: Date?
    package var endDate: Date?
    /// Number of assets for albums and moments; nil when not quickly available (smart albums).
    package var assetCount: Int?
    /// For moments: the local day and place cell they group; for moment lists: the year or month.
    package var momentKey: MomentKey?
    package var locationNames: [String]
    package var approximateLocation: LocationRecord?

    package var isSmartAlbum: Bool { kind == .assetCollection && type == 2 }
    package var isUserAlbum: Bool { kind == .assetCollection && type == 1 }
    package var isFolder: Bool { kind == .collectionList && type == 2 }
    package var isMoment: Bool { kind == .assetCollection && type == 3 }
    package var isMomentList: Bool { kind == .collectionList && type == 1 }

    static let selection = """
        c.id, c.local_id, c.kind, c.type, c.subtype, c.title, c.parent_id, c.start_date, c.end_date, c.asset_count
        """

    init(row: some SQLRow) {
        id = row[0]
        localIdentifier = row[1]
        kind = CollectionKind(rawValue: row[2]) ?? .assetCollection
        type = row[3]
        subtype = row[4]
        title = row[5]
        parentID = row[6]
        startDate = (row[7] as Double?).map(Date.init(timeIntervalSince1970:))
        endDate = (row[8] as Double?).map(Date.init(timeIntervalSince1970:))
        assetCount = row[9]
        momentKey = nil
        locationNames = []
        approximateLocation = nil
    }

    package init(
        localIdentifier: String, kind: CollectionKind, type: Int, subtype: Int, title: String?, startDate: Date?,
        endDate: Date?, assetCount: Int?, momentKey: MomentKey?, approximateLocation: LocationRecord? = nil
    ) {
        self.id = nil
        self.localIdentifier = localIdentifier
        self.kind = kind
        self.type = type
        self.subtype = subtype
        self.title = title
        self.parentID = nil
        self.startDate = startDate
        self.endDate = endDate
        self.assetCount = assetCount
        self.momentKey = momentKey
        self.locationNames = []
        self.approximateLocation = approximateLocation
    }
}

extension AssetRecord {
    /// Stands in for an asset whose row was purged after a fetch result captured its id.
    package static func deletedPlaceholder(id: Int64) -> AssetRecord {
        AssetRecord(
            id: id, localIdentifier: "", mediaType: .unknown, mediaSubtypes: 0, playbackStyle: 0, playbackVariation: 0, pixelWidth: 0,
            pixelHeight: 0, creationDate: nil, creationTimeZoneOffset: nil, modificationDate: Date(), addedDate: Date(),
            location: nil, duration: 0, isFavorite: false, isHidden: false, burstIdentifier: nil, burstSelectionTypes: 0,
            representsBurst: false, sourceType: 1, hasAdjustments: false, adjustmentFormatIdentifier: nil, trashedDate: Date(),
            adjustmentTimestamp: nil, contentVersion: 1, rating: 0, livePlaybackOff: false)
    }
}
