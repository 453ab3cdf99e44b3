import Foundation
import HTTPTypes
import Hummingbird
import OpenPhotos

/// A `PHAsset` as the API gives it: PhotoKit's property names and raw values, with names beside the raw values.
struct AssetJSON: ResponseEncodable, Equatable {
    var id: String
    var localIdentifier: String
    var mediaType: String
    var mediaSubtypes: [String]
    var pixelWidth: Int
    var pixelHeight: Int
    var creationDate: Date?
    /// Seconds east of UTC of the wall clock the asset was captured at, when known.
    var creationTimeZoneOffset: Int?
    var modificationDate: Date?
    var location: LocationJSON?
    var duration: Double
    var isFavorite: Bool
    var isHidden: Bool
    /// 0 (unset) to 5 stars.
    var rating: Int
    /// The extended metadata (iOS 27): given with lists and single assets.
    var caption: String?
    var keywords: [String]
    var burstIdentifier: String?
    var representsBurst: Bool
    var playbackStyle: String
    var hasAdjustments: Bool
    var adjustmentFormatIdentifier: String?
    var adjustmentTimestamp: Date?
    /// The uniform type of the current version (given with the resources: reading it costs a query per asset).
    var contentType: String?
    /// Of a RAW + JPEG pair (given with the resources): which original it shows, `raw` or `compressed`.
    var originalResourceChoice: String?
    var trashedDate: Date?
    /// The current version's content hash: what image ETags derive from, so a client can cache by it.
    var version: String?
    var resources: [ResourceJSON]?

    struct LocationJSON: Codable, Equatable {
        var latitude: Double
        var longitude: Double
        var altitude: Double?
    }

    init(_ asset: PHAsset, resources: [PHAssetResource]? = nil) {
        id = ObjectID.urlForm(asset.localIdentifier)
        localIdentifier = asset.localIdentifier
        mediaType = asset.mediaType.apiName
        mediaSubtypes = asset.mediaSubtypes.apiNames
        pixelWidth = asset.pixelWidth
        pixelHeight = asset.pixelHeight
        creationDate = asset.creationDate
        creationTimeZoneOffset = asset.creationTimeZone?.secondsFromGMT()
        modificationDate = asset.modificationDate
        location = asset.location.map {
            LocationJSON(latitude: $0.coordinate.latitude, longitude: $0.coordinate.longitude, altitude: $0.verticalAccuracy < 0 ? nil : $0.altitude)
        }
        duration = asset.duration
        isFavorite = asset.isFavorite
        isHidden = asset.isHidden
        rating = asset.rating.rawValue
        let extended = asset.extendedMetadata
        caption = extended.caption
        keywords = extended.keywords
        burstIdentifier = asset.burstIdentifier
        representsBurst = asset.representsBurst
        playbackStyle = asset.playbackStyle.apiName
        hasAdjustments = asset.hasAdjustments
        adjustmentFormatIdentifier = asset.adjustmentFormatIdentifier
        adjustmentTimestamp = asset.adjustmentTimestamp
        trashedDate = asset.trashedDate
        if let resources {
            version = VersionHash.current(of: resources, rawChosen: asset.originalResourceChoice == .raw)
            contentType =
                PHAssetResource.resource(among: resources, version: .current, rawChosen: asset.originalResourceChoice == .raw)?
                .uniformTypeIdentifier
            if resources.contains(where: { $0.type == .alternatePhoto }) {
                originalResourceChoice = asset.originalResourceChoice == .raw ? "raw" : "compressed"
            }
            self.resources = resources.map { ResourceJSON($0, asset: asset) }
        }
    }
}

extension AssetJSON {
    /// The asset as ``JSONWriter`` writes it: the bytes `JSONEncoder` makes of it, keys in sorted order.
    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.field("adjustmentFormatIdentifier", adjustmentFormatIdentifier)
        json.field("adjustmentTimestamp", adjustmentTimestamp)
        json.field("burstIdentifier", burstIdentifier)
        json.field("caption", caption)
        json.field("contentType", contentType)
        json.field("creationDate", creationDate)
        if let creationTimeZoneOffset {
            json.key("creationTimeZoneOffset")
            json.integer(creationTimeZoneOffset)
        }
        json.key("duration")
        json.double(duration)
        json.key("hasAdjustments")
        json.bool(hasAdjustments)
        json.key("id")
        json.string(id)
        json.key("isFavorite")
        json.bool(isFavorite)
        json.key("isHidden")
        json.bool(isHidden)
        json.key("keywords")
        json.beginArray()
        for keyword in keywords { json.string(keyword) }
        json.endArray()
        json.key("localIdentifier")
        json.string(localIdentifier)
        if let location {
            json.key("location")
            json.beginObject()
            if let altitude = location.altitude {
                json.key("altitude")
                json.double(altitude)
            }
            json.key("latitude")
            json.double(location.latitude)
            json.key("longitude")
            json.double(location.longitude)
            json.endObject()
        }
        json.key("mediaSubtypes")
        json.beginArray()
        for subtype in mediaSubtypes { json.string(subtype) }
        json.endArray()
        json.key("mediaType")
        json.string(mediaType)
        json.field("modificationDate", modificationDate)
        json.field("originalResourceChoice", originalResourceChoice)
        json.key("pixelHeight")
        json.integer(pixelHeight)
        json.key("pixelWidth")
        json.integer(pixelWidth)
        json.key("playbackStyle")
        json.string(playbackStyle)
        json.key("rating")
        json.integer(rating)
        json.key("representsBurst")
        json.bool(representsBurst)
        if let resources {
            json.key("resources")
            json.beginArray()
            for resource in resources { resource.write(to: &json) }
            json.endArray()
        }
        json.field("trashedDate", trashedDate)
        json.field("version", version)
        json.endObject()
    }
}

extension ResourceJSON {
    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("fileSize")
        json.integer(fileSize)
        json.key("originalFilename")
        json.string(originalFilename)
        json.key("pixelHeight")
        json.integer(pixelHeight)
        json.key("pixelWidth")
        json.integer(pixelWidth)
        json.key("sha256")
        json.string(sha256)
        json.key("type")
        json.string(type)
        json.key("uniformTypeIdentifier")
        json.string(uniformTypeIdentifier)
        json.key("url")
        json.string(url)
        json.endObject()
    }
}

/// A `PHAssetResource`: its type, file facts and where to download it (byte ranges supported).
struct ResourceJSON: Codable, Equatable {
    var type: String
    var uniformTypeIdentifier: String
    var originalFilename: String
    var fileSize: Int64
    var sha256: String
    var pixelWidth: Int
    var pixelHeight: Int
    var url: String

    init(_ resource: PHAssetResource, asset: PHAsset) {
        type = resource.type.apiName
        uniformTypeIdentifier = resource.uniformTypeIdentifier
        originalFilename = resource.originalFilename
        fileSize = resource.fileSize
        sha256 = resource.sha256
        pixelWidth = resource.pixelWidth
        pixelHeight = resource.pixelHeight
        url = "/v1/assets/\(ObjectID.urlForm(asset.localIdentifier))/resources/\(type)"
    }
}

/// Which file's hash stands for a version of an asset: the hash of the file that version renders, as the library's
/// one resolver picks it (``PHAssetResource/resource(of:version:pairedVideo:)``), so a validator names its bytes.
enum VersionHash {
    /// The rendering of the current version, else the original.
    static func current(of resources: [PHAssetResource], rawChosen: Bool = false) -> String? {
        version(.current, of: resources, rawChosen: rawChosen)
    }

    static func version(_ version: PHImageRequestOptionsVersion, of resources: [PHAssetResource], rawChosen: Bool = false) -> String? {
        PHAssetResource.resource(among: resources, version: version, rawChosen: rawChosen)?.sha256
    }
}

extension PHAssetMediaType {
    var apiName: String {
        switch self {
        case .image: "image"
        case .video: "video"
        case .audio: "audio"
        case .unknown: "unknown"
        }
    }
}

extension PHAssetMediaSubtype {
    static let apiNames: [(PHAssetMediaSubtype, String)] = [
        (.photoPanorama, "photoPanorama"), (.photoHDR, "photoHDR"), (.photoScreenshot, "photoScreenshot"), (.photoLive, "photoLive"),
        (.photoDepthEffect, "photoDepthEffect"), (.photoAnimation, "photoAnimation"), (.spatialMedia, "spatialMedia"),
        (.videoStreamed, "videoStreamed"),
        (.videoHighFrameRate, "videoHighFrameRate"), (.videoTimelapse, "videoTimelapse"), (.videoScreenRecording, "videoScreenRecording"),
        (.videoCinematic, "videoCinematic"),
    ]

    var apiNames: [String] { Self.apiNames.filter { contains($0.0) }.map(\.1) }
}

extension PHAsset.PlaybackStyle {
    var apiName: String {
        switch self {
        case .image: "image"
        case .imageAnimated: "imageAnimated"
        case .livePhoto: "livePhoto"
        case .video: "video"
        case .videoLooping: "videoLooping"
        case .unsupported: "unsupported"
        }
    }
}

extension PHAssetResourceType {
    static let apiNames: [(PHAssetResourceType, String)] = [
        (.photo, "photo"), (.video, "video"), (.audio, "audio"), (.alternatePhoto, "alternatePhoto"), (.fullSizePhoto, "fullSizePhoto"),
        (.fullSizeVideo, "fullSizeVideo"), (.adjustmentData, "adjustmentData"), (.adjustmentBasePhoto, "adjustmentBasePhoto"),
        (.pairedVideo, "pairedVideo"), (.fullSizePairedVideo, "fullSizePairedVideo"), (.adjustmentBasePairedVideo, "adjustmentBasePairedVideo"),
        (.adjustmentBaseVideo, "adjustmentBaseVideo"), (.photoProxy, "photoProxy"),
    ]

    var apiName: String { Self.apiNames.first { $0.0 == self }?.1 ?? "type\(rawValue)" }

    init?(apiName: String) {
        guard let found = Self.apiNames.first(where: { $0.1 == apiName }) else { return nil }
        self = found.0
    }
}
