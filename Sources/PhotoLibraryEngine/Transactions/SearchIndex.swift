import Foundation

/// The search index of a library: one document per asset (``SearchQuery/document(caption:keywords:filenames:)``),
/// written in the transaction that changes what it is made of — the asset's creation, its caption, its keywords —
/// and removed with the asset. Each store keeps it in its own way (SQLite: an FTS5 table; PostgreSQL: a `tsvector`
/// with a GIN index): it is derived data, never copied with a library, rebuilt from the rows instead.
package enum SearchIndex {
    /// The resource types whose file names find an asset: its originals (photo, video, audio, RAW alternate).
    static let namedResourceTypes = "1, 2, 3, 4"

    /// Writes the documents of assets from what their rows say now.
    package static func refresh(_ ids: some Collection<Int64>, db: any SQLConnection) throws {
        let documents = try self.documents(ids, db: db)
        let ordered = ids.compactMap { id in documents[id].map { (assetID: id, tokens: $0) } }
        var remaining = ordered[...]
        while !remaining.isEmpty {
            let chunk = remaining.prefix(500)
            remaining = remaining.dropFirst(chunk.count)
            for statement in db.dialect.setSearchDocuments(Array(chunk)) {
                try db.execute(sql: statement.sql, arguments: statement.statementArguments, cached: chunk.count == 1)
            }
        }
    }

    /// What the documents of assets are made of now, by row id (ids with no row are absent).
    static func documents(_ ids: some Collection<Int64>, db: any SQLConnection) throws -> [Int64: String] {
        var documents: [Int64: String] = [:]
        var remaining = ids[...]
        while !remaining.isEmpty {
            let chunk = remaining.prefix(500)
            remaining = remaining.dropFirst(chunk.count)
            // One asset (created or changed alone, the common case) in statements of fixed text, which stay prepared.
            let single = chunk.count == 1
            let (among, arguments): (String, SQLArguments) =
                single ? ("= ?", [chunk[chunk.startIndex]]) : ("IN (\(chunk.map(String.init).joined(separator: ",")))", [])
            var captions: [Int64: String?] = [:]
            for row in try SQLRecord.fetchAll(db, sql: "SELECT id, caption FROM asset WHERE id \(among)", arguments: arguments, cached: single) {
                let id: Int64 = row[0]
                captions[id] = .some(row[1])
            }
            var keywords: [Int64: [String]] = [:]
            for row in try SQLRecord.fetchAll(
                db, sql: "SELECT asset_id, keyword FROM asset_keyword WHERE asset_id \(among) ORDER BY asset_id, position", arguments: arguments,
                cached: single)
            {
                keywords[row[0], default: []].append(row[1])
            }
            var names: [Int64: [String]] = [:]
            for row in try SQLRecord.fetchAll(
                db,
                sql: """
                    SELECT asset_id, original_filename FROM resource WHERE asset_id \(among)
                    AND type IN (\(namedResourceTypes)) ORDER BY asset_id, type
                    """, arguments: arguments, cached: single)
            {
                names[row[0], default: []].append(row[1])
            }
            for id in chunk {
                guard let caption = captions[id] else { continue }
                documents[id] = SearchQuery.document(caption: caption, keywords: keywords[id] ?? [], filenames: names[id] ?? [])
            }
        }
        return documents
    }

    /// Indexes every asset (a migration, or a copy of a library): in batches, in the caller's transaction.
    package static func rebuild(_ db: any SQLConnection) throws {
        var after: Int64 = 0
        while true {
            let ids = try Int64.fetchAll(db, sql: "SELECT id FROM asset WHERE id > ? ORDER BY id LIMIT 2000", arguments: [after])
            guard let last = ids.last else { return }
            try refresh(ids, db: db)
            after = last
        }
    }
}
