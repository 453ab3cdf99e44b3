import Foundation
import PhotoMedia

/// What iOS 27's `PHAssetExtendedMetadata` reads: the caption, the keywords in the order they were added, and the
/// original's file name. Not part of ``AssetRecord``: PhotoKit loads it only when asked (or prefetched), so a fetch
/// of a million assets never reads a keyword.
package struct ExtendedMetadataRecord: Sendable, Hashable {
    package var caption: String?
    package var keywords: [String]
    package var originalFilename: String?

    package init(caption: String?, keywords: [String], originalFilename: String?) {
        self.caption = caption
        self.keywords = keywords
        self.originalFilename = originalFilename
    }
}

extension LibraryEngine {
    /// The extended metadata of assets by row id (ids with no row are absent): two reads for any number of assets.
    package func extendedMetadata(_ ids: some Collection<Int64>) throws(LibraryError) -> [Int64: ExtendedMetadataRecord] {
        if ids.isEmpty { return [:] }
        return try read { db in
            var records: [Int64: ExtendedMetadataRecord] = [:]
            var remaining = ids[...]
            while !remaining.isEmpty {
                let chunk = remaining.prefix(500)
                remaining = remaining.dropFirst(chunk.count)
                let list = chunk.map(String.init).joined(separator: ",")
                // The original's name: the photo or video resource (types 1 and 2) the asset was created with.
                for row in try SQLRecord.fetchAll(
                    db,
                    sql: """
                        SELECT a.id, a.caption, (SELECT r.original_filename FROM resource r WHERE r.asset_id = a.id
                            AND r.type IN (1, 2) ORDER BY r.type LIMIT 1)
                        FROM asset a WHERE a.id IN (\(list))
                        """)
                {
                    let id: Int64 = row[0]
                    records[id] = ExtendedMetadataRecord(caption: row[1], keywords: [], originalFilename: row[2])
                }
                for row in try SQLRecord.fetchAll(
                    db, sql: "SELECT asset_id, keyword FROM asset_keyword WHERE asset_id IN (\(list)) ORDER BY asset_id, position")
                {
                    let id: Int64 = row[0]
                    records[id]?.keywords.append(row[1])
                }
            }
            return records
        }
    }

    /// Writes the rating, caption and keywords a creation or change request set (keywords edited against what the
    /// asset has now).
    /// `creating`: keywords past the limit are dropped rather than refused (a file and its sidecar may hold more
    /// than an asset keeps; the photo is imported).
    func writeExtendedMetadata(_ changes: AssetPropertyChanges, assetID: Int64, db: any SQLConnection, creating: Bool = false) throws {
        if let rating = changes.rating {
            guard (0...5).contains(rating) else { throw LibraryError.invalidResource("a rating is 0 (unset) to 5, not \(rating)") }
            try db.execute(sql: "UPDATE asset SET rating = ? WHERE id = ?", arguments: [rating, assetID])
        }
        if let caption = changes.caption {
            let stored = caption.flatMap { DescriptiveMetadata.caption($0, limit: .max, trimming: false) }
            if let stored, stored.utf8.count > DescriptiveMetadata.captionBytes {
                throw LibraryError.invalidResource(
                    "a caption holds at most \(DescriptiveMetadata.captionBytes) bytes of UTF-8, not \(stored.utf8.count)")
            }
            try db.execute(sql: "UPDATE asset SET caption = ? WHERE id = ?", arguments: [stored, assetID])
        }
        if !changes.keywordEdits.isEmpty {
            try applyKeywordEdits(changes.keywordEdits, assetID: assetID, db: db, truncating: creating)
        }
    }

    /// Adds and removes keywords: an added keyword the asset has is left where it is; a removed one it lacks is no
    /// error (as a set's insert and remove).
    func applyKeywordEdits(_ edits: [KeywordEdit], assetID: Int64, db: any SQLConnection, truncating: Bool = false) throws {
        var keywords = try String.fetchAll(
            db, sql: "SELECT keyword FROM asset_keyword WHERE asset_id = ? ORDER BY position", arguments: [assetID])
        let before = keywords
        for edit in edits {
            switch edit {
            case .add(let keyword):
                guard let keyword = DescriptiveMetadata.keyword(keyword) else {
                    throw LibraryError.invalidResource("a keyword cannot be empty")
                }
                guard keyword.utf8.count <= DescriptiveMetadata.keywordBytes else {
                    throw LibraryError.invalidResource(
                        "a keyword holds at most \(DescriptiveMetadata.keywordBytes) bytes of UTF-8, not \(keyword.utf8.count)")
                }
                if !keywords.contains(keyword) { keywords.append(keyword) }
            case .remove(let keyword):
                let keyword = DescriptiveMetadata.keyword(keyword) ?? keyword
                keywords.removeAll { $0 == keyword }
            }
        }
        if truncating { keywords = Array(keywords.prefix(DescriptiveMetadata.keywordLimit)) }
        guard keywords.count <= DescriptiveMetadata.keywordLimit else {
            throw LibraryError.invalidResource("an asset holds at most \(DescriptiveMetadata.keywordLimit) keywords")
        }
        if keywords == before { return }
        try db.execute(sql: "DELETE FROM asset_keyword WHERE asset_id = ?", arguments: [assetID])
        for (position, keyword) in keywords.enumerated() {
            try db.execute(
                sql: "INSERT INTO asset_keyword (asset_id, keyword, position) VALUES (?, ?, ?)", arguments: [assetID, keyword, position])
        }
    }

    /// Turns a Live Photo's video on or off (iOS 27.3). Only a Live Photo's, and not one whose video an edit without a
    /// paired video hid (it cannot come back without discarding the edit): `changeNotSupported`.
    func setLivePhotoVideoPlayback(_ enabled: Bool, assetID: Int64, identifier: String, db: any SQLConnection) throws {
        guard
            let row = try SQLRecord.fetchOne(
                db,
                sql: """
                    SELECT a.media_subtypes, a.has_adjustments,
                        EXISTS (SELECT 1 FROM resource r WHERE r.asset_id = a.id AND r.type = 9),
                        EXISTS (SELECT 1 FROM resource r WHERE r.asset_id = a.id AND r.type = 10)
                    FROM asset a WHERE a.id = ?
                    """,
                arguments: [assetID])
        else { throw LibraryError.identifierNotFound("no asset \(identifier)") }
        let subtypes: Int64 = row[0]
        let edited: Bool = row[1]
        let hasVideo: Bool = row[2]
        let hasEditedVideo: Bool = row[3]
        guard subtypes & 8 != 0, hasVideo else {
            throw LibraryError.changeNotSupported("\(identifier) is not a Live Photo: it has no video to turn on or off")
        }
        guard !edited || hasEditedVideo else {
            throw LibraryError.changeNotSupported(
                "\(identifier) was edited without its video: revert the edit to turn the Live Photo's video on or off")
        }
        try db.execute(sql: "UPDATE asset SET live_playback_off = ? WHERE id = ?", arguments: [!enabled, assetID])
    }
}
