import CommandLineSupport
import Foundation
import OpenPhotos

/// Renders PhotoKit objects as JSON (PhotoKit property names, enums by case name) or text.
enum Output {
    static func isoDate(_ date: Date?, timeZone: TimeZone? = nil) -> Any {
        guard let date else { return NSNull() }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = timeZone ?? TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    static func subtypeNames(_ subtypes: PHAssetMediaSubtype) -> [String] {
        let names: [(PHAssetMediaSubtype, String)] = [
            (.photoPanorama, "photoPanorama"), (.photoHDR, "photoHDR"), (.photoScreenshot, "photoScreenshot"),
            (.photoLive, "photoLive"), (.photoDepthEffect, "photoDepthEffect"), (.photoAnimation, "photoAnimation"),
            (.spatialMedia, "spatialMedia"), (.videoStreamed, "videoStreamed"), (.videoHighFrameRate, "videoHighFrameRate"),
            (.videoTimelapse, "videoTimelapse"), (.videoScreenRecording, "videoScreenRecording"), (.videoCinematic, "videoCinematic"),
        ]
        return names.filter { subtypes.contains($0.0) }.map(\.1)
    }

    static func sourceTypeNames(_ types: PHAssetSourceType) -> [String] {
        [(PHAssetSourceType.typeUserLibrary, "typeUserLibrary"), (.typeCloudShared, "typeCloudShared"), (.typeiTunesSynced, "typeiTunesSynced")]
            .filter { types.contains($0.0) }.map(\.1)
    }

    static func asset(_ asset: PHAsset, resources: Bool = false) -> [String: Any] {
        var object: [String: Any] = [
            "localIdentifier": asset.localIdentifier,
            "mediaType": "\(asset.mediaType)",
            "mediaSubtypes": subtypeNames(asset.mediaSubtypes),
            "playbackStyle": "\(asset.playbackStyle)",
            "pixelWidth": asset.pixelWidth,
            "pixelHeight": asset.pixelHeight,
            "creationDate": isoDate(asset.creationDate, timeZone: asset.creationTimeZone),
            "modificationDate": isoDate(asset.modificationDate),
            "addedDate": isoDate(asset.addedDate),
            "duration": asset.duration,
            "isFavorite": asset.isFavorite,
            "isHidden": asset.isHidden,
            "burstIdentifier": asset.burstIdentifier ?? NSNull(),
            "representsBurst": asset.representsBurst,
            "sourceType": sourceTypeNames(asset.sourceType),
            "hasAdjustments": asset.hasAdjustments,
            "rating": asset.rating.rawValue,
        ]
        let extended = asset.extendedMetadata
        object["caption"] = extended.caption ?? NSNull()
        object["keywords"] = extended.keywords
        if let location = asset.location {
            object["location"] = [
                "latitude": location.coordinate.latitude, "longitude": location.coordinate.longitude, "altitude": location.altitude,
            ]
        } else {
            object["location"] = NSNull()
        }
        if let trashed = asset.trashedDate { object["trashedDate"] = isoDate(trashed) }
        if resources {
            object["resources"] = PHAssetResource.assetResources(for: asset).map { resource -> [String: Any] in
                [
                    "type": "\(resource.type)", "originalFilename": resource.originalFilename,
                    "uniformTypeIdentifier": resource.uniformTypeIdentifier, "pixelWidth": resource.pixelWidth,
                    "pixelHeight": resource.pixelHeight, "fileSize": resource.fileSize, "sha256": resource.sha256,
                ]
            }
        }
        return object
    }

    static func collection(_ collection: PHCollection) -> [String: Any] {
        var object: [String: Any] = [
            "localIdentifier": collection.localIdentifier,
            "localizedTitle": collection.localizedTitle ?? NSNull(),
        ]
        if let album = collection as? PHAssetCollection {
            object["assetCollectionType"] = "\(album.assetCollectionType)"
            object["assetCollectionSubtype"] = "\(album.assetCollectionSubtype)"
            object["estimatedAssetCount"] = album.estimatedAssetCount == NSNotFound ? NSNull() : album.estimatedAssetCount
            object["startDate"] = isoDate(album.startDate)
            object["endDate"] = isoDate(album.endDate)
        } else if let list = collection as? PHCollectionList {
            object["collectionListType"] = "\(list.collectionListType)"
            object["collectionListSubtype"] = "\(list.collectionListSubtype)"
            object["startDate"] = isoDate(list.startDate)
            object["endDate"] = isoDate(list.endDate)
        }
        return object
    }

    /// Text from files and the database made safe for a terminal line (see CommandLineSupport's `printable`).
    static func printable(_ text: String) -> String { CommandLineSupport.printable(text) }

    static func printJSON(_ value: Any) {
        let data =
            (try? JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]))
            ?? Data("null".utf8)
        print(String(decoding: data, as: UTF8.self))
    }

    static func assetLine(_ asset: PHAsset) -> String {
        let date = (isoDate(asset.creationDate, timeZone: asset.creationTimeZone) as? String) ?? "-"
        var flags = ""
        if asset.isFavorite { flags += "♥" }
        if asset.isHidden { flags += "hidden " }
        if asset.trashedDate != nil { flags += "deleted " }
        let name = printable(PHAssetResource.assetResources(for: asset).first?.originalFilename ?? "")
        let subtypes = subtypeNames(asset.mediaSubtypes)
        return [
            asset.localIdentifier, "\(asset.mediaType)", "\(asset.pixelWidth)x\(asset.pixelHeight)", date,
            asset.duration > 0 ? String(format: "%.1fs", asset.duration) : "", subtypes.joined(separator: ","), flags, name,
        ].filter { !$0.isEmpty }.joined(separator: "  ")
    }

    static func collectionLine(_ collection: PHCollection, depth: Int = 0) -> String {
        let indent = String(repeating: "  ", count: depth)
        if let album = collection as? PHAssetCollection {
            let count =
                album.estimatedAssetCount == NSNotFound
                ? PHAsset.fetchAssets(in: album, options: nil).count : album.estimatedAssetCount
            return "\(indent)\(album.localIdentifier)  \(printable(album.localizedTitle ?? "(untitled)"))  \(count) assets"
        }
        return "\(indent)\(collection.localIdentifier)  \(printable(collection.localizedTitle ?? "(untitled)"))/"
    }
}
