import Foundation

/// An asset record as a served library sends it to a remote PhotoKit client (`POST /v1/assets/records`): every
/// field of ``AssetRecord`` with its stored raw value, dates as seconds since 1970 as the stores keep them, so that
/// a `PHAsset` made from it on the client equals the server's own. One codec for both sides.
package struct AssetWireRecord: Codable, Sendable, Hashable {
    var id: Int64
    var localIdentifier: String
    var mediaType: Int
    var mediaSubtypes: UInt
    var playbackStyle: Int
    var playbackVariation: Int
    var pixelWidth: Int
    var pixelHeight: Int
    var creationDate: Double?
    var creationTimeZoneOffset: Int?
    var modificationDate: Double
    var addedDate: Double
    var latitude: Double?
    var longitude: Double?
    var altitude: Double?
    var duration: Double
    var isFavorite: Bool
    var isHidden: Bool
    var burstIdentifier: String?
    var burstSelectionTypes: UInt
    var representsBurst: Bool
    var sourceType: UInt
    var hasAdjustments: Bool
    var adjustmentFormatIdentifier: String?
    var trashedDate: Double?
    var adjustmentTimestamp: Double?
    var contentVersion: Int
    var rating: Int
    var livePlaybackOff: Bool
    var originalChoice: Int
    /// The extended metadata, when asked for.
    var caption: String?
    var keywords: [String]?
    var originalFilename: String?

    package init(_ record: AssetRecord, extended: ExtendedMetadataRecord?) {
        id = record.id
        localIdentifier = record.localIdentifier
        mediaType = record.mediaType.rawValue
        mediaSubtypes = record.mediaSubtypes
        playbackStyle = record.playbackStyle
        playbackVariation = record.playbackVariation
        pixelWidth = record.pixelWidth
        pixelHeight = record.pixelHeight
        creationDate = record.creationDate?.timeIntervalSince1970
        creationTimeZoneOffset = record.creationTimeZoneOffset
        modificationDate = record.modificationDate.timeIntervalSince1970
        addedDate = record.addedDate.timeIntervalSince1970
        latitude = record.location?.latitude
        longitude = record.location?.longitude
        altitude = record.location?.altitude
        duration = record.duration
        isFavorite = record.isFavorite
        isHidden = record.isHidden
        burstIdentifier = record.burstIdentifier
        burstSelectionTypes = record.burstSelectionTypes
        representsBurst = record.representsBurst
        sourceType = record.sourceType
        hasAdjustments = record.hasAdjustments
        adjustmentFormatIdentifier = record.adjustmentFormatIdentifier
        trashedDate = record.trashedDate?.timeIntervalSince1970
        adjustmentTimestamp = record.adjustmentTimestamp?.timeIntervalSince1970
        contentVersion = record.contentVersion
        rating = record.rating
        livePlaybackOff = record.livePlaybackOff
        originalChoice = record.originalChoice
        caption = extended?.caption
        keywords = extended?.keywords
        originalFilename = extended?.originalFilename
    }

    /// The record (a media type this version does not know reads as unknown).
    package var record: AssetRecord {
        AssetRecord(
            id: id, localIdentifier: localIdentifier, mediaType: MediaType(rawValue: mediaType) ?? .unknown, mediaSubtypes: mediaSubtypes,
            playbackStyle: playbackStyle, playbackVariation: playbackVariation, pixelWidth: pixelWidth, pixelHeight: pixelHeight,
            creationDate: creationDate.map(Date.init(timeIntervalSince1970:)), creationTimeZoneOffset: creationTimeZoneOffset,
            modificationDate: Date(timeIntervalSince1970: modificationDate), addedDate: Date(timeIntervalSince1970: addedDate),
            location: latitude.flatMap { latitude in
                longitude.map { LocationRecord(latitude: latitude, longitude: $0, altitude: altitude) }
            },
            duration: duration, isFavorite: isFavorite, isHidden: isHidden, burstIdentifier: burstIdentifier,
            burstSelectionTypes: burstSelectionTypes, representsBurst: representsBurst, sourceType: sourceType,
            hasAdjustments: hasAdjustments, adjustmentFormatIdentifier: adjustmentFormatIdentifier,
            trashedDate: trashedDate.map(Date.init(timeIntervalSince1970:)),
            adjustmentTimestamp: adjustmentTimestamp.map(Date.init(timeIntervalSince1970:)), contentVersion: contentVersion,
            rating: rating, livePlaybackOff: livePlaybackOff, originalChoice: originalChoice)
    }

    /// The extended metadata, when it was sent.
    package var extended: ExtendedMetadataRecord? {
        keywords.map { ExtendedMetadataRecord(caption: caption, keywords: $0, originalFilename: originalFilename) }
    }

    /// The body of `POST /v1/assets/records`' answer: `{"records": […]}`.
    package static func encode(_ records: [AssetWireRecord]) throws -> Data {
        try JSONEncoder().encode(["records": records])
    }

    package static func decode(_ data: Data) throws -> [AssetWireRecord] {
        try JSONDecoder().decode([String: [AssetWireRecord]].self, from: data)["records"] ?? []
    }
}
