import Foundation
import Synchronization

extension LibraryEngine {
    /// The access context of a client of this library.
    package func accessContext(clientID: String?) -> AccessContext {
        guard let clientID else { return AccessContext(clientID: nil, grant: nil, libraryIsReadOnly: isReadOnly) }
        let grant = try? read { db in
            try Int.fetchOne(db, sql: "SELECT grant_kind FROM client_grant WHERE client_id = ?", arguments: [clientID], cached: true)
        }
        return AccessContext(clientID: clientID, grant: (grant ?? nil).flatMap(ClientGrant.init(rawValue:)), libraryIsReadOnly: isReadOnly)
    }

    /// Records what a client may do (the library owner's decision; Linux has no system prompt).
    package func setGrant(_ grant: ClientGrant?, for clientID: String, selection: [String] = []) throws(LibraryError) {
        // A changed selection reaches the limited client's observers as updates of the selected assets.
        _ = try commitTransaction("change access grants", clientID: nil) { db in
            var summary = CommitSummary()
            guard let grant else {
                try db.execute(sql: "DELETE FROM client_grant WHERE client_id = ?", arguments: [clientID])
                return summary
            }
            try db.execute(
                sql:
                    "INSERT INTO client_grant (client_id, grant_kind) VALUES (?, ?) ON CONFLICT(client_id) DO UPDATE SET grant_kind = excluded.grant_kind",
                arguments: [clientID, grant.rawValue])
            if !selection.isEmpty {
                let selected = db.dialect.isIn("local_id", selection.map { .text($0) })
                try db.execute(
                    sql: """
                        INSERT INTO client_selection (client_id, asset_id) SELECT ?, id FROM asset WHERE \(selected.sql) \
                        ON CONFLICT DO NOTHING
                        """,
                    arguments: [clientID] + selected.statementArguments)
                for row in try SQLRecord.fetchAll(
                    db, sql: "SELECT id, local_id FROM asset WHERE \(selected.sql)", arguments: selected.statementArguments)
                {
                    summary.note(.init(id: row[0], localIdentifier: row[1]), .updated)
                }
            }
            return summary
        }
    }

    // MARK: - Assets

    /// The row ids of the assets a fetch matches, in order: the fetch result's fixed membership (8 bytes each).
    package func fetchAssetIDs(scope: AssetScope, options: FetchOptionsSpec, access: AccessContext) throws -> ContiguousArray<Int64> {
        guard access.canRead else { return [] }
        let statement = try FetchPlanner(access: access, dialect: metadata.dialect).assetIDs(scope: scope, options: options)
        return try selectIDs(statement)
    }

    /// The row ids of the assets a fetch matches as they arrive (the first page before this returns, the rest from
    /// the same read transaction in the background), and the newest transaction they reflect.
    package func streamAssetIDs(
        scope: AssetScope, options: FetchOptionsSpec, access: AccessContext, firstPage: Int = 100,
        afterFirstPage: (@Sendable () -> Void)? = nil
    ) throws -> (ids: AssetIDStream, version: Int64) {
        guard access.canRead else { return (AssetIDStream([]), try changeHistoryBounds().current) }
        let planner = FetchPlanner(access: access, dialect: metadata.dialect)
        let statement = try planner.assetIDs(scope: scope, options: options)
        let tally = try planner.tallyCount(scope: scope, options: options)
        let limit = options.fetchLimit
        // The newest transaction and the tallies' count, read in the transaction that steps the ids (the same state).
        let version = Mutex<Int64>(0)
        let stream = try AssetIDStream.stream(
            statement, reader: reader, firstPage: firstPage,
            alongside: { db in
                let current = try Self.historyBounds(db).current
                version.withLock { $0 = current }
                let counted = try tally.flatMap { try Int.fetchOne(db, sql: $0.sql, arguments: $0.statementArguments) }
                return counted.map { limit > 0 ? Swift.min($0, limit) : $0 }
            }, afterFirstPage: afterFirstPage)
        return (stream, version.withLock { $0 })
    }

    /// Runs a statement whose first column is a row id, collecting the ids.
    /// `alongside` runs in the same read transaction (it sees the same state).
    ///
    /// This is the hot loop of every fetch (a million rows for a large library), so it steps the SQLite
    /// statement directly: no per-row decoding layer between SQLite and the id array.
    package func selectIDs(_ statement: SQLFragment, alongside: ((any SQLConnection) throws -> Void)? = nil) throws -> ContiguousArray<Int64> {
        try reader.read { db in
            try alongside?(db)
            var ids = ContiguousArray<Int64>()
            try AssetIDStream.step(statement, in: db) { ids.append(contentsOf: $0) }
            return AssetIDStream.exactSize(ids)
        }
    }

    /// Loads asset records by row id; the result is keyed by id (ids with no row are absent).
    package func loadAssets(_ ids: some Collection<Int64>) throws(LibraryError) -> [Int64: AssetRecord] {
        if ids.isEmpty { return [:] }
        return try read { db in
            var records: [Int64: AssetRecord] = [:]
            records.reserveCapacity(ids.count)
            var remaining = ids[...]
            while !remaining.isEmpty {
                let chunk = remaining.prefix(500)
                remaining = remaining.dropFirst(chunk.count)
                let sql = "SELECT \(AssetRecord.selection) FROM asset a WHERE a.id IN (\(chunk.map(String.init).joined(separator: ",")))"
                for row in try SQLRecord.fetchAll(db, sql: sql) {
                    let record = AssetRecord(row: row)
                    records[record.id] = record
                }
            }
            return records
        }
    }

    /// Asset records by row id that `access` may read — a limited client only its selection — with their extended
    /// metadata when asked: what a served library answers its remote clients' fetch results.
    package func loadAssets(_ ids: [Int64], visibleTo access: AccessContext, extendedMetadata: Bool) throws(LibraryError) -> [AssetWireRecord] {
        guard access.canRead, !ids.isEmpty else { return [] }
        var records = try loadAssets(ids)
        if access.isLimited, let client = access.clientID {
            let inList = metadata.dialect.isIn("asset_id", ids.map { .integer($0) })
            let visible = try read { db in
                Set(
                    try Int64.fetchAll(
                        db, sql: "SELECT asset_id FROM client_selection WHERE client_id = ? AND \(inList.sql)",
                        arguments: SQLArguments([.text(client)] + inList.arguments)))
            }
            records = records.filter { visible.contains($0.key) }
        }
        let extended = extendedMetadata ? try self.extendedMetadata(Array(records.keys)) : [:]
        return ids.compactMap { id in
            records[id].map {
                AssetWireRecord(
                    $0, extended: extendedMetadata ? extended[id] ?? ExtendedMetadataRecord(caption: nil, keywords: [], originalFilename: nil) : nil)
            }
        }
    }

    /// One asset by local identifier, whatever its state (hidden, trashed), or nil.
    package func asset(localIdentifier: String) throws(LibraryError) -> AssetRecord? {
        try read { db in
            try SQLRecord.fetchOne(db, sql: "SELECT \(AssetRecord.selection) FROM asset a WHERE a.local_id = ?", arguments: [localIdentifier])
                .map(AssetRecord.init(row:))
        }
    }

    /// How many of the given assets have a media type.
    package func countAssets(_ ids: ContiguousArray<Int64>, mediaType: Int) throws(LibraryError) -> Int {
        try countAssets(ids, mediaType: mediaType, visibleTo: nil)
    }

    /// How many of the given assets have a media type, among those `access` may read (nil: all; a limited client
    /// only its selection): what a served library answers a remote result's `countOfAssets(with:)`.
    package func countAssets(_ ids: ContiguousArray<Int64>, mediaType: Int, visibleTo access: AccessContext?) throws(LibraryError) -> Int {
        if let access, !access.canRead { return 0 }
        let selection = access.flatMap { $0.isLimited ? $0.clientID : nil }
        return try read { db in
            var total = 0
            var start = 0
            while start < ids.count {
                let end = min(start + 50_000, ids.count)
                let members = db.dialect.isIn("id", ids[start..<end].map { .integer($0) })
                var sql = "SELECT count(*) FROM asset WHERE media_type = ? AND \(members.sql)"
                var arguments: [SQLValue] = [.integer(Int64(mediaType))] + members.arguments
                if let selection {
                    sql += " AND id IN (SELECT asset_id FROM client_selection WHERE client_id = ?)"
                    arguments.append(.text(selection))
                }
                total += try Int.fetchOne(db, sql: sql, arguments: SQLArguments(arguments)) ?? 0
                start = end
            }
            return total
        }
    }

    /// The files of an asset.
    package func resources(assetID: Int64) throws(LibraryError) -> [ResourceRecord] {
        try read { db in
            try SQLRecord.fetchAll(
                db,
                sql: """
                    SELECT r.id, r.asset_id, a.local_id, r.type, r.path, r.original_filename, r.uniform_type_identifier,
                           r.file_size, r.sha256, r.pixel_width, r.pixel_height
                    FROM resource r JOIN asset a ON a.id = r.asset_id WHERE r.asset_id = ? ORDER BY r.type, r.id
                    """, arguments: [assetID]
            ).map(ResourceRecord.init(row:))
        }
    }

    /// The files of several assets in one read, by asset (each asset's as ``resources(assetID:)`` orders them; an
    /// asset without files or unknown has none).
    package func resources(assetIDs: [Int64]) throws(LibraryError) -> [Int64: [ResourceRecord]] {
        guard !assetIDs.isEmpty else { return [:] }
        let records = try read { db in
            let list = db.dialect.isIn("r.asset_id", assetIDs.map { .integer($0) })
            return try SQLRecord.fetchAll(
                db,
                sql: """
                    SELECT r.id, r.asset_id, a.local_id, r.type, r.path, r.original_filename, r.uniform_type_identifier,
                           r.file_size, r.sha256, r.pixel_width, r.pixel_height
                    FROM resource r JOIN asset a ON a.id = r.asset_id WHERE \(list.sql) ORDER BY r.asset_id, r.type, r.id
                    """, arguments: list.statementArguments
            ).map(ResourceRecord.init(row:))
        }
        return Dictionary(grouping: records, by: \.assetID)
    }

    // MARK: - Collections

    /// Stored collections (albums, smart albums, folders).
    package func fetchCollections(
        scope: CollectionScope, entity: FetchEntity, options: FetchOptionsSpec, access: AccessContext
    ) throws -> [CollectionRecord] {
        guard access.canRead else { return [] }
        let statement = try FetchPlanner(access: access, dialect: metadata.dialect).collections(
            scope: scope, table: entity.keyTable, options: options)
        return try reader.read { db in
            try SQLRecord.fetchAll(db, sql: statement.sql, arguments: statement.statementArguments).map(CollectionRecord.init(row:))
        }
    }

    /// Computed moments, optionally restricted (by year, month, identifier or containing asset).
    package func fetchMoments(_ filter: MomentFilter, options: FetchOptionsSpec, access: AccessContext) throws -> [CollectionRecord] {
        guard access.canRead else { return [] }
        let statement = try FetchPlanner(access: access, dialect: metadata.dialect).moments(filter: filter, options: options)
        return try reader.read { db in
            try SQLRecord.fetchAll(db, sql: statement.sql, arguments: statement.statementArguments).map { row in
                let day: String = row[1]
                let place: String = row[2]
                let lat: Double? = row[6]
                let lon: Double? = row[7]
                return CollectionRecord(
                    localIdentifier: row[0], kind: .assetCollection, type: 3, subtype: 2, title: nil,
                    startDate: (row[4] as Double?).map(Date.init(timeIntervalSince1970:)),
                    endDate: (row[5] as Double?).map(Date.init(timeIntervalSince1970:)),
                    assetCount: row[3], momentKey: .moment(day: day, place: place),
                    approximateLocation: lat.flatMap { la in lon.map { LocationRecord(latitude: la, longitude: $0) } })
            }
        }
    }

    /// Moment lists: years (`momentListYear`, subtype 2) or months (`momentListCluster`, subtype 1), oldest first.
    package func fetchMomentLists(subtype: Int?, access: AccessContext) throws -> [CollectionRecord] {
        let moments = try fetchMoments(.all, options: FetchOptionsSpec(), access: access)
        var lists: [CollectionRecord] = []
        for (listSubtype, length) in [(2, 4), (1, 7)] where subtype == nil || subtype == listSubtype {
            var groups: [(key: String, start: Date?, end: Date?)] = []
            for moment in moments {
                guard case .moment(let day, _) = moment.momentKey else { continue }
                let key = String(day.prefix(length))
                if let last = groups.last, last.key == key {
                    groups[groups.count - 1].end = max(last.end ?? .distantPast, moment.endDate ?? .distantPast)
                } else {
                    groups.append((key, moment.startDate, moment.endDate))
                }
            }
            for group in groups {
                let kind = listSubtype == 2 ? "year" : "cluster"
                lists.append(
                    CollectionRecord(
                        localIdentifier: Moments.localIdentifier(kind: kind, key: group.key), kind: .collectionList, type: 1,
                        subtype: listSubtype, title: group.key, startDate: group.start, endDate: group.end, assetCount: nil,
                        momentKey: listSubtype == 2 ? .year(group.key) : .cluster(group.key)))
            }
        }
        return lists
    }

    /// The row id of a stored collection.
    package func collectionID(localIdentifier: String) throws(LibraryError) -> Int64? {
        try read { db in try Int64.fetchOne(db, sql: "SELECT id FROM collection WHERE local_id = ?", arguments: [localIdentifier]) }
    }

    package func collection(localIdentifier: String) throws(LibraryError) -> CollectionRecord? {
        try read { db in
            try SQLRecord.fetchOne(
                db, sql: "SELECT \(CollectionRecord.selection) FROM collection_info c WHERE c.local_id = ?",
                arguments: [localIdentifier]
            ).map(CollectionRecord.init(row:))
        }
    }

    /// Key assets of a collection: its first asset (by the collection's order).
    package func keyAssetIDs(scope: AssetScope, options: FetchOptionsSpec, access: AccessContext) throws -> ContiguousArray<Int64> {
        var limited = options
        limited.fetchLimit = options.fetchLimit > 0 ? options.fetchLimit : 1
        return try fetchAssetIDs(scope: scope, options: limited, access: access)
    }
}

extension ResourceRecord {
    init(row: some SQLRow) {
        let raw: Int = row[3]
        self.init(
            id: row[0], assetID: row[1], assetLocalIdentifier: row[2], type: ResourceType(rawValue: raw) ?? .unknown, typeRawValue: raw,
            path: row[4], originalFilename: row[5], uniformTypeIdentifier: row[6], fileSize: row[7], sha256: row[8], pixelWidth: row[9],
            pixelHeight: row[10])
    }
}

extension LibraryEngine {
    /// One page of an asset fetch after `cursor` (nil: the first page): the row ids in order and the cursor of the
    /// page after, nil when this is the last page.
    package func fetchAssetPage(
        scope: AssetScope, options: FetchOptionsSpec, access: AccessContext, after cursor: PageCursor?, limit: Int
    ) throws -> (ids: [Int64], next: PageCursor?) {
        guard access.canRead, limit > 0 else { return ([], nil) }
        let planner = FetchPlanner(access: access, dialect: metadata.dialect)
        let dialect = metadata.dialect
        // The plan, the statements in turn, in one read transaction, until one row more than the page (one more row
        // than asked says whether a page follows).
        let (rows, keyCount) = try read { [options] db -> ([SQLRecord], Int) in
            func run(_ statements: [SQLFragment]) throws -> [SQLRecord] {
                var rows: [SQLRecord] = []
                for statement in statements where rows.count <= limit {
                    rows += try SQLRecord.fetchAll(db, sql: statement.sql, arguments: statement.statementArguments)
                }
                return rows
            }
            var options = options
            if let search = options.search, !search.words.isEmpty {
                if dialect.kind == .sqlite {
                    // The search index's own order, when the page is sorted by creation date first (and does not
                    // follow an undated row): it reads the matches to the page's end, however many or few there are.
                    options.search?.window = SearchQuery.DateWindow(documents: 0)
                    let window = try planner.searchWindow(scope: scope, options: options, after: cursor?.key)
                    options.search?.window = window
                    if window != nil {
                        options.search?.plan = .timeline
                        let (statements, keyCount) = try planner.assetPage(scope: scope, options: options, after: cursor?.key, limit: limit + 1)
                        return (try run(statements), keyCount)
                    }
                }
                let plan = try Self.searchPagePlan(search.words, limit: limit + 1, dialect: dialect, db: db)
                options.search?.plan = plan.many ? .orderFirst : .matchesFirst
                options.search?.window = plan.windowSize.map { SearchQuery.DateWindow(documents: $0) }
                // The window's bound first (no bound: it would hold everything).
                let oriented = try planner.searchWindow(scope: scope, options: options, after: cursor?.key)
                options.search?.window = nil
                if var window = oriented {
                    // From the dates' histogram where there is one; counted in the dates' index before the first ANALYZE.
                    let row = try SQLRecord.fetchOne(db, sql: dialect.searchDateHistogram)
                    if let histogram = DateHistogram(bounds: row?[0], nullFraction: row?[1] ?? 0, documents: plan.documents) {
                        window.bound = histogram.bound(of: window)
                    } else {
                        let bound = dialect.dateWindowBound(window)
                        window.bound = try Double.fetchOne(db, sql: bound.sql, arguments: bound.statementArguments)
                    }
                    if window.bound != nil {
                        // Where a window without a cursor starts, to name the buckets of dates it spans.
                        if window.after == nil {
                            window.start = try Double.fetchOne(db, sql: dialect.dateWindowStart(ascending: window.ascending))
                        }
                        options.search?.window = window
                    }
                }
                let windowed = options.search?.window != nil
                options.search?.drivingWord = plan.drivingWord(windowed: windowed)
            }
            let (statements, keyCount) = try planner.assetPage(scope: scope, options: options, after: cursor?.key, limit: limit + 1)
            let rows = try run(statements)
            guard rows.count <= limit, options.search?.window != nil else { return (rows, keyCount) }
            // A window of dates that held less than a page (fewer matches than estimated, or the last page): the page
            // is looked for among every match.
            var unwindowed = options
            unwindowed.search?.window = nil
            unwindowed.search?.drivingWord = nil
            let all = try planner.assetPage(scope: scope, options: unwindowed, after: cursor?.key, limit: limit + 1).statements
            return (all == statements ? rows : try run(all), keyCount)
        }
        let page = rows.prefix(limit)
        let ids = page.map { $0[0] as Int64 }
        guard rows.count > limit, let last = page.last else { return (ids, nil) }
        let next = (1...keyCount).map { index -> SQLValue in
            switch last.value(at: index) {
            case .blob: .null  // no sort key is a blob
            case let value: value
            }
        }
        return (ids, PageCursor(key: next, scope: scope, options: options))
    }

    /// How a page of a search finds its matches (see ``searchPagePlan(_:limit:)``).
    struct SearchPagePlan {
        /// So many matches that the page is found faster by walking the fetch's order.
        var many = false
        /// About how many search documents there are (PostgreSQL's statistics).
        var documents = 0.0
        /// How many documents in date order a window of the matches spans (PostgreSQL).
        var windowSize: Int?
        /// The word of fewest matches by the planner's estimate, when there are several (PostgreSQL).
        var rarest: (index: Int, rows: Double)?

        /// The word the GIN index is asked for alone (see ``SearchQuery/drivingWord``): the rarest, when at most
        /// 5,000 of its matches are to be read (within the window, if the page has one).
        func drivingWord(windowed: Bool) -> Int? {
            guard let rarest, documents > 0 else { return nil }
            let share = windowed ? Double(windowSize ?? 0) / documents : 1
            return rarest.rows * share <= 5_000 ? rarest.index : nil
        }
    }

    /// How a page of a search finds its matches: whether they are so many that it is found faster by walking the
    /// fetch's order (a page of 100 among 2,000 matches or more is near; fewer are found faster from the index and
    /// sorted), and, on PostgreSQL, how many documents in date order a window of the matches spans (see
    /// ``SearchQuery/DateWindow``) and which word has fewest matches. Measured with `photos-bench search`: on SQLite
    /// (a page not sorted by creation date first: the others read the search index in timeline order, see
    /// `fetchAssetPage`) a count up to 2,000. On PostgreSQL, from the planner's estimates: a page looks among three times the documents
    /// that would hold `limit` matches, were they spread evenly (the window's range of dates costs about what 1/25 as
    /// many matches read would: below 4,000 matches of a million, reading them all is cheaper), unless walking the
    /// order costs less by the measured costs below; without a window, 20,000 estimated matches or more walk. The
    /// rarest word alone is asked of the GIN index (see ``SearchQuery/drivingWord``) when at most 5,000 of its matches
    /// are to be read: a row read and checked costs microseconds, while two common words' posting lists, or a prefix
    /// that begins many words, cost tens of milliseconds in the index.
    static func searchPagePlan(_ words: [[String]], limit: Int, dialect: SQLDialect, db: any SQLConnection) throws -> SearchPagePlan {
        let statement = dialect.searchMatchesMany(words, many: dialect.kind == .sqlite ? 2_000 : 20_000)
        var plan = SearchPagePlan()
        switch dialect.kind {
        case .sqlite:
            plan.many = try Bool.fetchOne(db, sql: statement.sql, arguments: statement.statementArguments) ?? false
        case .postgreSQL:
            func estimate(_ statement: SQLFragment) throws -> Double? {
                let plan = try String.fetchOne(db, sql: statement.sql, arguments: statement.statementArguments) ?? ""
                guard let data = plan.data(using: .utf8),
                    let root = (try? JSONSerialization.jsonObject(with: data)) as? [[String: Any]]
                else { return nil }
                return (root.first?["Plan"] as? [String: Any])?["Plan Rows"] as? Double
            }
            guard let rows = try estimate(statement) else { return plan }
            plan.documents = try Double.fetchOne(db, sql: dialect.searchDocumentEstimate) ?? 0
            let size = (Double(limit) * 3 * plan.documents / max(rows, 1)).rounded(.up)
            plan.windowSize = size < plan.documents && size <= rows * 25 ? Int(size) : nil
            guard let window = plan.windowSize.map(Double.init) else {
                plan.many = rows >= 20_000
                return plan
            }
            var postings = 0.0
            if words.count > 1 {
                for index in words.indices {
                    guard let rows = try estimate(dialect.searchWordEstimate(words, index: index)) else { return plan }
                    postings += rows
                    if rows < plan.rarest?.rows ?? .infinity { plan.rarest = (index, rows) }
                }
            } else {
                postings = rows
            }
            // What each costs, in microseconds (`photos-bench search`, a million assets): walking the order reads
            // about limit × documents / rows assets, 17 µs each; the window reads the index's posting lists
            // (0.3 µs an entry: the rarest word's alone when few of its matches fall in the window, see
            // `fetchAssetPage`), the window's dates (0.2 µs each) and the rows it finds (6 µs each).
            let walk = Double(limit) * plan.documents / max(rows, 1) * 17
            let inWindow = window / max(plan.documents, 1)
            let fromIndex: Double
            if let rarest = plan.rarest, plan.drivingWord(windowed: true) != nil {
                fromIndex = rarest.rows * 0.3 + rarest.rows * inWindow * 6
            } else {
                fromIndex = postings * 0.3 + rows * inWindow * 6
            }
            plan.many = walk < fromIndex + window * 0.2
        }
        return plan
    }
}
