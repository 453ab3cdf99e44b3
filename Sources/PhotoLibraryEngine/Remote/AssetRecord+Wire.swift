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

    init(
        id: Int64, localIdentifier: String, mediaType: Int, mediaSubtypes: UInt, playbackStyle: Int, playbackVariation: Int,
        pixelWidth: Int, pixelHeight: Int, creationDate: Double?, creationTimeZoneOffset: Int?, modificationDate: Double,
        addedDate: Double, latitude: Double?, longitude: Double?, altitude: Double?, duration: Double, isFavorite: Bool,
        isHidden: Bool, burstIdentifier: String?, burstSelectionTypes: UInt, representsBurst: Bool, sourceType: UInt,
        hasAdjustments: Bool, adjustmentFormatIdentifier: String?, trashedDate: Double?, adjustmentTimestamp: Double?,
        contentVersion: Int, rating: Int, livePlaybackOff: Bool, originalChoice: Int, caption: String?, keywords: [String]?,
        originalFilename: String?
    ) {
        (self.id, self.localIdentifier, self.mediaType, self.mediaSubtypes) = (id, localIdentifier, mediaType, mediaSubtypes)
        (self.playbackStyle, self.playbackVariation, self.pixelWidth, self.pixelHeight) = (playbackStyle, playbackVariation, pixelWidth, pixelHeight)
        (self.creationDate, self.creationTimeZoneOffset, self.modificationDate, self.addedDate) = (
            creationDate, creationTimeZoneOffset, modificationDate, addedDate
        )
        (self.latitude, self.longitude, self.altitude, self.duration) = (latitude, longitude, altitude, duration)
        (self.isFavorite, self.isHidden, self.burstIdentifier, self.burstSelectionTypes) = (
            isFavorite, isHidden, burstIdentifier, burstSelectionTypes
        )
        (self.representsBurst, self.sourceType, self.hasAdjustments, self.adjustmentFormatIdentifier) = (
            representsBurst, sourceType, hasAdjustments, adjustmentFormatIdentifier
        )
        (self.trashedDate, self.adjustmentTimestamp, self.contentVersion, self.rating) = (trashedDate, adjustmentTimestamp, contentVersion, rating)
        (self.livePlaybackOff, self.originalChoice, self.caption, self.keywords, self.originalFilename) = (
            livePlaybackOff, originalChoice, caption, keywords, originalFilename
        )
    }

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

    /// The body of `POST /v1/assets/records`' answer: `{"columns": {"id": […], "localIdentifier": […], …}}` — one
    /// array per field, the records' values in order (a hundred records decode as 33 arrays, not 3,300 keyed fields:
    /// scrolling a remote result is bound by this decoding).
    package static func encode(_ records: [AssetWireRecord]) throws -> Data {
        try JSONEncoder().encode(["columns": AssetWireColumns(records)])
    }

    package static func decode(_ data: Data) throws -> [AssetWireRecord] {
        guard let columns = try JSONDecoder().decode([String: AssetWireColumns].self, from: data)["columns"] else { return [] }
        return try columns.records()
    }
}

/// ``AssetWireRecord``s as one array per field (the wire form of `POST /v1/assets/records`).
struct AssetWireColumns: Codable {
    var id: [Int64] = []
    var localIdentifier: [String] = []
    var mediaType: [Int] = []
    var mediaSubtypes: [UInt] = []
    var playbackStyle: [Int] = []
    var playbackVariation: [Int] = []
    var pixelWidth: [Int] = []
    var pixelHeight: [Int] = []
    var creationDate: [Double?] = []
    var creationTimeZoneOffset: [Int?] = []
    var modificationDate: [Double] = []
    var addedDate: [Double] = []
    var latitude: [Double?] = []
    var longitude: [Double?] = []
    var altitude: [Double?] = []
    var duration: [Double] = []
    var isFavorite: [Bool] = []
    var isHidden: [Bool] = []
    var burstIdentifier: [String?] = []
    var burstSelectionTypes: [UInt] = []
    var representsBurst: [Bool] = []
    var sourceType: [UInt] = []
    var hasAdjustments: [Bool] = []
    var adjustmentFormatIdentifier: [String?] = []
    var trashedDate: [Double?] = []
    var adjustmentTimestamp: [Double?] = []
    var contentVersion: [Int] = []
    var rating: [Int] = []
    var livePlaybackOff: [Bool] = []
    var originalChoice: [Int] = []
    /// Present when the extended metadata was asked for.
    var caption: [String?]?
    var keywords: [[String]]?
    var originalFilename: [String?]?

    init(_ records: [AssetWireRecord]) {
        for r in records {
            id.append(r.id)
            localIdentifier.append(r.localIdentifier)
            mediaType.append(r.mediaType)
            mediaSubtypes.append(r.mediaSubtypes)
            playbackStyle.append(r.playbackStyle)
            playbackVariation.append(r.playbackVariation)
            pixelWidth.append(r.pixelWidth)
            pixelHeight.append(r.pixelHeight)
            creationDate.append(r.creationDate)
            creationTimeZoneOffset.append(r.creationTimeZoneOffset)
            modificationDate.append(r.modificationDate)
            addedDate.append(r.addedDate)
            latitude.append(r.latitude)
            longitude.append(r.longitude)
            altitude.append(r.altitude)
            duration.append(r.duration)
            isFavorite.append(r.isFavorite)
            isHidden.append(r.isHidden)
            burstIdentifier.append(r.burstIdentifier)
            burstSelectionTypes.append(r.burstSelectionTypes)
            representsBurst.append(r.representsBurst)
            sourceType.append(r.sourceType)
            hasAdjustments.append(r.hasAdjustments)
            adjustmentFormatIdentifier.append(r.adjustmentFormatIdentifier)
            trashedDate.append(r.trashedDate)
            adjustmentTimestamp.append(r.adjustmentTimestamp)
            contentVersion.append(r.contentVersion)
            rating.append(r.rating)
            livePlaybackOff.append(r.livePlaybackOff)
            originalChoice.append(r.originalChoice)
        }
        if let first = records.first, first.keywords != nil {
            caption = records.map(\.caption)
            keywords = records.map { $0.keywords ?? [] }
            originalFilename = records.map(\.originalFilename)
        }
    }

    func records() throws -> [AssetWireRecord] {
        let count = id.count
        var lengths: [Int] = [localIdentifier.count, mediaType.count, mediaSubtypes.count, playbackStyle.count]
        lengths += [playbackVariation.count, pixelWidth.count, pixelHeight.count, creationDate.count, creationTimeZoneOffset.count]
        lengths += [modificationDate.count, addedDate.count, latitude.count, longitude.count, altitude.count, duration.count]
        lengths += [isFavorite.count, isHidden.count, burstIdentifier.count, burstSelectionTypes.count, representsBurst.count]
        lengths += [sourceType.count, hasAdjustments.count, adjustmentFormatIdentifier.count, trashedDate.count]
        lengths += [adjustmentTimestamp.count, contentVersion.count, rating.count, livePlaybackOff.count, originalChoice.count]
        lengths += [caption?.count ?? count, keywords?.count ?? count, originalFilename?.count ?? count]
        guard lengths.allSatisfy({ $0 == count }) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "the columns have different lengths"))
        }
        return (0..<count).map { i in
            AssetWireRecord(
                id: id[i], localIdentifier: localIdentifier[i], mediaType: mediaType[i], mediaSubtypes: mediaSubtypes[i],
                playbackStyle: playbackStyle[i], playbackVariation: playbackVariation[i], pixelWidth: pixelWidth[i],
                pixelHeight: pixelHeight[i], creationDate: creationDate[i], creationTimeZoneOffset: creationTimeZoneOffset[i],
                modificationDate: modificationDate[i], addedDate: addedDate[i], latitude: latitude[i], longitude: longitude[i],
                altitude: altitude[i], duration: duration[i], isFavorite: isFavorite[i], isHidden: isHidden[i],
                burstIdentifier: burstIdentifier[i], burstSelectionTypes: burstSelectionTypes[i], representsBurst: representsBurst[i],
                sourceType: sourceType[i], hasAdjustments: hasAdjustments[i], adjustmentFormatIdentifier: adjustmentFormatIdentifier[i],
                trashedDate: trashedDate[i], adjustmentTimestamp: adjustmentTimestamp[i], contentVersion: contentVersion[i],
                rating: rating[i], livePlaybackOff: livePlaybackOff[i], originalChoice: originalChoice[i], caption: caption?[i],
                keywords: keywords?[i], originalFilename: originalFilename?[i])
        }
    }
}
