import Foundation

/// The kind of value a predicate key holds, which decides how arguments are bound.
package enum KeyKind: Sendable {
    case integer, real, bool, string, date, identifier
}

/// The keys a fetch of one kind of object accepts (PhotoKit's table, spec §17), mapped to SQL expressions.
package struct KeyTable: Sendable {
    package struct Column: Sendable {
        package var sql: String
        package var kind: KeyKind
        /// Whether the column can be NULL (a nil value in PhotoKit), which changes how `!=` and `NOT` compile.
        package var nullable = false
    }

    /// The PhotoKit class the table describes, for messages.
    package var entity: String
    /// Keys in the order they are documented (aliases follow their key).
    package var keyOrder: [String]
    package var columns: [String: Column]

    package func column(for key: String) throws(FetchPredicateError) -> Column {
        guard let column = columns[key] else {
            throw .unsupportedKey(key: key, entity: entity, supportedKeys: keyOrder)
        }
        return column
    }

    /// `PHAsset` fetches (alias `a` for the asset table).
    package static let asset = KeyTable(
        entity: "PHAsset",
        keyOrder: [
            "SELF", "localIdentifier", "creationDate", "modificationDate", "mediaType", "mediaSubtypes", "duration",
            "pixelWidth", "pixelHeight", "favorite", "isFavorite", "hidden", "isHidden", "burstIdentifier", "rating",
        ],
        columns: [
            "SELF": Column(sql: "a.local_id", kind: .identifier),
            "localIdentifier": Column(sql: "a.local_id", kind: .identifier),
            "creationDate": Column(sql: "a.creation_date", kind: .date, nullable: true),
            "modificationDate": Column(sql: "a.modification_date", kind: .date),
            "mediaType": Column(sql: "a.media_type", kind: .integer),
            "mediaSubtypes": Column(sql: "a.media_subtypes", kind: .integer),
            "duration": Column(sql: "a.duration", kind: .real),
            "pixelWidth": Column(sql: "a.pixel_width", kind: .integer),
            "pixelHeight": Column(sql: "a.pixel_height", kind: .integer),
            "favorite": Column(sql: "a.is_favorite", kind: .bool),
            "isFavorite": Column(sql: "a.is_favorite", kind: .bool),
            "hidden": Column(sql: "a.is_hidden", kind: .bool),
            "isHidden": Column(sql: "a.is_hidden", kind: .bool),
            "burstIdentifier": Column(sql: "a.burst_identifier", kind: .string, nullable: true),
            "rating": Column(sql: "a.rating", kind: .integer),
        ]
    )

    /// Keys shared by collection fetches; `alias` names the collection row source.
    private static func collectionColumns(_ alias: String, counts: Bool) -> [String: Column] {
        var columns: [String: Column] = [
            "SELF": Column(sql: "\(alias).local_id", kind: .identifier),
            "localIdentifier": Column(sql: "\(alias).local_id", kind: .identifier),
            "localizedTitle": Column(sql: "\(alias).title", kind: .string, nullable: true),
            "title": Column(sql: "\(alias).title", kind: .string, nullable: true),
            "startDate": Column(sql: "\(alias).start_date", kind: .date, nullable: true),
            "endDate": Column(sql: "\(alias).end_date", kind: .date, nullable: true),
        ]
        if counts { columns["estimatedAssetCount"] = Column(sql: "\(alias).asset_count", kind: .integer) }
        return columns
    }

    /// `PHAssetCollection` fetches (alias `c` for the collection view).
    package static let assetCollection = KeyTable(
        entity: "PHAssetCollection",
        keyOrder: ["SELF", "localIdentifier", "localizedTitle", "title", "startDate", "endDate", "estimatedAssetCount"],
        columns: collectionColumns("c", counts: true)
    )

    /// `PHCollectionList` fetches.
    package static let collectionList = KeyTable(
        entity: "PHCollectionList",
        keyOrder: ["SELF", "localIdentifier", "localizedTitle", "title", "startDate", "endDate"],
        columns: collectionColumns("c", counts: false)
    )

    /// `PHCollection` fetches (albums and folders mixed).
    package static let collection = KeyTable(
        entity: "PHCollection",
        keyOrder: ["SELF", "localIdentifier", "localizedTitle", "title", "startDate", "endDate"],
        columns: collectionColumns("c", counts: false)
    )
}
