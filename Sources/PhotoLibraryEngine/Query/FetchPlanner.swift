import Foundation

/// `PHFetchOptions` in engine terms: Sendable, with the predicate already parsed.
package struct FetchOptionsSpec: Sendable, Hashable {
    package var predicate: FetchPredicate?
    package var sortKeys: [SortKey] = []
    package var includeHiddenAssets = false
    package var includeAllBurstAssets = false
    /// `PHAssetSourceType` bits; 0 means "inferred" (the user library).
    package var includeAssetSourceTypes: UInt = 0
    package var fetchLimit = 0
    /// Full-text search (OpenPhotoKit's): the assets whose caption, keywords, file names and date match.
    package var search: SearchQuery?

    package init() {}
}

/// Which assets a fetch draws from, before options apply.
package enum AssetScope: Sendable, Hashable {
    /// `fetchAssets(with:)`.
    case library
    /// `fetchAssets(with: mediaType, options:)`.
    case mediaType(Int)
    /// `fetchAssets(withLocalIdentifiers:options:)`: hidden assets included by default.
    case localIdentifiers([String])
    /// `fetchAssets(withBurstIdentifier:options:)`.
    case burst(String)
    /// Members of a stored album (in album order).
    case album(Int64)
    /// Members of a smart album (a live query).
    case smartAlbum(subtype: Int)
    /// Members of a computed moment.
    case moment(day: String, place: String)
    /// Members of a transient collection, in the given order.
    case ordered([String])
}

/// Which collections a fetch draws from.
package enum CollectionScope: Sendable, Hashable {
    /// `fetchAssetCollections(with:subtype:)` for albums and smart albums (`subtype` nil: any).
    case assetCollections(type: Int, subtype: Int?)
    /// `fetchCollectionLists(with:subtype:)` for folders (`subtype` nil: any).
    case collectionLists(type: Int, subtype: Int?)
    /// By identifier, of one kind.
    case localIdentifiers([String], kind: CollectionKind?)
    /// Children of a folder, or the top level of user collections (nil).
    case children(of: Int64?)
    /// Albums containing an asset.
    case albumsContaining(assetID: Int64)
    /// The folder holding a collection.
    case parent(ofCollectionID: Int64)
}

/// A planned asset fetch, in parts.
package struct AssetQuery: Sendable {
    package struct SortTerm: Sendable, Hashable {
        package var expression: String
        package var ascending: Bool
    }

    /// The whole statement (`SELECT a.id FROM … WHERE … ORDER BY … [LIMIT ?]`).
    package var statement: SQLFragment
    package var from: String
    package var fromArguments: [SQLValue]
    package var whereClause: SQLFragment
    /// The ORDER BY terms; the last one is always the row id, so the order is total.
    package var order: [SortTerm]
    package var limit: Int

    /// Whether membership and order depend on nothing but each asset's own row: then a transaction's effect on
    /// the result can be found by re-reading only the rows it touched.
    package var isRowLocal: Bool {
        from == "asset a" && limit == 0 && !order.isEmpty
            && order.allSatisfy { term in
                term.expression.hasPrefix("a.") && term.expression.dropFirst(2).allSatisfy { $0 == "_" || $0.isLetter }
            }
    }
}

/// A planned statement and the table it reads.
package struct FetchPlan: Sendable, Hashable {
    package var statement: SQLFragment
}

/// Turns a fetch (scope + options + access) into one parameterized SQL statement.
package struct FetchPlanner: Sendable {
    package var access: AccessContext
    package var now: Date
    package var dialect: SQLDialect
    /// Whether conditions are written for `asset_tally a` (see ``tallyCount(scope:options:)``), whose `trashed` is a
    /// flag where `asset` has `trashed_date`.
    var overTallies = false

    package init(access: AccessContext, dialect: SQLDialect, now: Date = Date()) {
        self.access = access
        self.dialect = dialect
        self.now = now
    }

    // MARK: Assets

    /// The statement that selects the row ids of the matching assets, in result order.
    package func assetIDs(scope: AssetScope, options: FetchOptionsSpec) throws(FetchPredicateError) -> SQLFragment {
        try assetQuery(scope: scope, options: options).statement
    }

    /// The parts of an asset fetch: what change details re-evaluate for the assets a transaction touched.
    package func assetQuery(scope: AssetScope, options: FetchOptionsSpec) throws(FetchPredicateError) -> AssetQuery {
        var from = "asset a"
        var conditions: [SQLFragment] = []
        var defaultOrder = ["a.creation_date ASC", "a.id ASC"]
        var includeHidden = options.includeHiddenAssets
        var includeAllBurst = options.includeAllBurstAssets
        var trashed = false

        switch scope {
        case .library:
            break
        case .mediaType(let type):
            conditions.append(SQLFragment("a.media_type = ?", [.integer(Int64(type))]))
        case .localIdentifiers(let ids):
            includeHidden = true
            includeAllBurst = true
            conditions.append(membership("a.local_id", ids))
        case .burst(let identifier):
            conditions.append(SQLFragment("a.burst_identifier = ?", [.text(identifier)]))
        case .album(let id):
            from = "collection_asset ca JOIN asset a ON a.id = ca.asset_id"
            conditions.append(SQLFragment("ca.collection_id = ?", [.integer(id)]))
            defaultOrder = ["ca.position ASC"]
            includeHidden = true
            includeAllBurst = true
        case .smartAlbum(let subtype):
            if subtype == SmartAlbums.recentlyDeletedSubtype { trashed = true }
            if subtype == 205 { includeHidden = true }
            if let condition = smartAlbumCondition(subtype) { conditions.append(condition) }
        case .moment(let day, let place):
            conditions.append(SQLFragment("a.local_day = ? AND a.place_cell = ?", [.text(day), .text(place)]))
        case .ordered(let ids):
            includeHidden = true
            includeAllBurst = true
            let list = dialect.list(ids.map { .text($0) }, as: "t")
            from = "\(list.sql) JOIN asset a ON a.local_id = t.value"
            conditions.insert(SQLFragment("TRUE", []), at: 0)
            defaultOrder = ["t.key ASC"]
            return try finish(
                from: from, fromArguments: list.arguments, conditions: conditions, trashed: false,
                includeHidden: includeHidden, includeAllBurst: includeAllBurst, options: options, defaultOrder: defaultOrder)
        }
        return try finish(
            from: from, fromArguments: [], conditions: conditions, trashed: trashed, includeHidden: includeHidden,
            includeAllBurst: includeAllBurst, options: options, defaultOrder: defaultOrder)
    }

    private func finish(
        from: String, fromArguments: [SQLValue], conditions scopeConditions: [SQLFragment], trashed: Bool,
        includeHidden: Bool, includeAllBurst: Bool, options: FetchOptionsSpec, defaultOrder: [String]
    ) throws(FetchPredicateError) -> AssetQuery {
        let trashedCondition =
            overTallies ? (trashed ? "a.trashed = 1" : "a.trashed = 0") : (trashed ? "a.trashed_date IS NOT NULL" : "a.trashed_date IS NULL")
        var conditions: [SQLFragment] = [SQLFragment(trashedCondition)]
        if !includeHidden { conditions.append(SQLFragment("a.is_hidden = 0")) }
        if !includeAllBurst { conditions.append(SQLFragment("a.burst_hidden = 0")) }
        let sources = options.includeAssetSourceTypes == 0 ? 1 : options.includeAssetSourceTypes
        if sources & 7 != 7 { conditions.append(SQLFragment("(a.source_type & ?) != 0", [.integer(Int64(sources))])) }
        conditions += scopeConditions.filter { $0.sql != "TRUE" }
        if let predicate = options.predicate {
            let compiled = try PredicateCompiler(table: .asset, dialect: dialect).compile(predicate)
            conditions.append(compiled)
        }
        if let search = options.search { conditions += searchConditions(search) }
        if let access = accessCondition() { conditions.append(access) }
        let compiler = PredicateCompiler(table: .asset, dialect: dialect)
        var order = try compiler.orderBy(options.sortKeys)
        if order.isEmpty {
            order = defaultOrder
        } else {
            order.append("a.id \(options.sortKeys.last?.ascending == false ? "DESC" : "ASC")")
        }
        let whereClause = SQLFragment.joined(conditions, separator: " AND ")
        var sql = "SELECT a.id FROM \(from) WHERE \(whereClause.sql) ORDER BY \(order.map(dialect.orderTerm).joined(separator: ", "))"
        var arguments = fromArguments + whereClause.arguments
        if options.fetchLimit > 0 {
            sql += " LIMIT ?"
            arguments.append(.integer(Int64(options.fetchLimit)))
        }
        return AssetQuery(
            statement: SQLFragment(sql, arguments), from: from, fromArguments: fromArguments, whereClause: whereClause,
            order: order.map { term in
                term.hasSuffix(" DESC") ? (String(term.dropLast(5)), false) : (term.hasSuffix(" ASC") ? String(term.dropLast(4)) : term, true)
            }.map { AssetQuery.SortTerm(expression: $0.0, ascending: $0.1) }, limit: options.fetchLimit)
    }

    /// A search's conditions: its words against the search index, its dates against the local day.
    private func searchConditions(_ search: SearchQuery) -> [SQLFragment] {
        var conditions: [SQLFragment] = []
        if search.matchesNothing { return [SQLFragment("1 = 0")] }
        if !search.words.isEmpty {
            conditions.append(dialect.searchCondition(search.words, plan: search.plan, window: search.window, drivingWord: search.drivingWord))
        }
        for prefix in search.dayPrefixes {
            conditions.append(SQLFragment("a.local_day LIKE ?", [.text(prefix + "%")]))
        }
        for month in search.months {
            conditions.append(SQLFragment("substr(a.local_day, 6, 2) = ?", [.text(String(format: "%02d", month))]))
        }
        return conditions
    }

    /// Limited clients see only their selection (which includes what they added).
    func accessCondition() -> SQLFragment? {
        guard access.isLimited, let client = access.clientID else { return nil }
        return SQLFragment("a.id IN (SELECT asset_id FROM client_selection WHERE client_id = ?)", [.text(client)])
    }

    /// The live query of a smart album (spec §18 subtypes).
    package func smartAlbumCondition(_ subtype: Int) -> SQLFragment? {
        func subtypeBit(_ bit: Int64) -> SQLFragment { SQLFragment("(a.media_subtypes & ?) != 0", [.integer(bit)]) }
        switch subtype {
        case 209, SmartAlbums.recentlyDeletedSubtype: return nil
        case 203: return SQLFragment("a.is_favorite = 1")
        case 202: return SQLFragment("a.media_type = 2")
        case 201: return subtypeBit(1)
        case 211: return subtypeBit(4)
        case 213: return subtypeBit(8)
        case 212: return subtypeBit(16)
        case 214: return SQLFragment("a.playback_style = 2")
        case 219: return subtypeBit(1024)
        case 208: return subtypeBit(131_072)
        case 204: return subtypeBit(262_144)
        case 220: return subtypeBit(524_288)
        case 218: return subtypeBit(2_097_152)
        case 210: return SQLFragment("a.is_selfie = 1")
        case 207: return SQLFragment("a.burst_identifier IS NOT NULL AND a.represents_burst = 1")
        case 215: return SQLFragment("a.playback_variation = 3")
        case 217: return SQLFragment("a.is_raw = 1")
        case 205: return SQLFragment("a.is_hidden = 1")
        case 206:
            return SQLFragment("a.added_date >= ?", [.real(now.timeIntervalSince1970 - 30 * 86_400)])
        default: return SQLFragment("FALSE")
        }
    }

    // MARK: Collections

    /// The statement that selects stored collections (albums, smart albums, folders) from `collection_info c`.
    package func collections(scope: CollectionScope, table: KeyTable, options: FetchOptionsSpec) throws(FetchPredicateError) -> SQLFragment {
        var conditions: [SQLFragment] = []
        var order = ["c.position ASC", "c.id ASC"]
        switch scope {
        case .assetCollections(let type, let subtype):
            conditions.append(SQLFragment("c.kind = 1 AND c.type = ?", [.integer(Int64(type))]))
            if let subtype { conditions.append(SQLFragment("c.subtype = ?", [.integer(Int64(subtype))])) }
        case .collectionLists(let type, let subtype):
            conditions.append(SQLFragment("c.kind = 2 AND c.type = ?", [.integer(Int64(type))]))
            if let subtype { conditions.append(SQLFragment("c.subtype = ?", [.integer(Int64(subtype))])) }
        case .localIdentifiers(let ids, let kind):
            if let kind { conditions.append(SQLFragment("c.kind = ?", [.integer(Int64(kind.rawValue))])) }
            conditions.append(membership("c.local_id", ids))
        case .children(let parent):
            if let parent {
                conditions.append(SQLFragment("c.parent_id = ?", [.integer(parent)]))
            } else {
                // Top level: user albums (kind 1, type 1) and folders (kind 2, type 2).
                conditions.append(
                    SQLFragment("c.parent_id IS NULL AND ((c.kind = 1 AND c.type = 1) OR (c.kind = 2 AND c.type = 2))"))
            }
        case .albumsContaining(let assetID):
            conditions.append(
                SQLFragment(
                    "c.kind = 1 AND c.type = 1 AND c.id IN (SELECT collection_id FROM collection_asset WHERE asset_id = ?)",
                    [.integer(assetID)]))
            order = ["c.id ASC"]
        case .parent(let childID):
            conditions.append(SQLFragment("c.id = (SELECT parent_id FROM collection WHERE id = ?)", [.integer(childID)]))
        }
        if !access.canManageCollections {
            // Limited clients cannot fetch user albums or folders; smart albums stay visible.
            conditions.append(SQLFragment("c.kind = 1 AND c.type = 2"))
        }
        if let predicate = options.predicate {
            conditions.append(try PredicateCompiler(table: table, dialect: dialect).compile(predicate))
        }
        let sorts = try PredicateCompiler(table: table, dialect: dialect).orderBy(options.sortKeys)
        if !sorts.isEmpty { order = sorts + ["c.id ASC"] }
        let whereClause = SQLFragment.joined(conditions, separator: " AND ")
        var sql =
            "SELECT \(CollectionRecord.selection) FROM collection_info c WHERE \(whereClause.sql) ORDER BY \(order.map(dialect.orderTerm).joined(separator: ", "))"
        var arguments = whereClause.arguments
        if options.fetchLimit > 0 {
            sql += " LIMIT ?"
            arguments.append(.integer(Int64(options.fetchLimit)))
        }
        return SQLFragment(sql, arguments)
    }

    /// Moments computed from assets: one row per (local day, place cell), oldest first.
    package func moments(filter: MomentFilter, options: FetchOptionsSpec) throws(FetchPredicateError) -> SQLFragment {
        var assetConditions = [SQLFragment("a.trashed_date IS NULL AND a.is_hidden = 0 AND a.local_day IS NOT NULL")]
        if let access = accessCondition() { assetConditions.append(access) }
        let assetWhere = SQLFragment.joined(assetConditions, separator: " AND ")
        let inner = """
            SELECT ph_moment_id('moment', a.local_day || '|' || a.place_cell) AS local_id, a.local_day AS day, \
            a.place_cell AS place, count(*) AS asset_count, min(a.creation_date) AS start_date, \
            max(a.creation_date) AS end_date, avg(a.latitude) AS latitude, avg(a.longitude) AS longitude, \
            NULL AS title FROM asset a WHERE \(assetWhere.sql) GROUP BY a.local_day, a.place_cell
            """
        var conditions: [SQLFragment] = []
        switch filter {
        case .all: break
        case .year(let year): conditions.append(SQLFragment("substr(c.day, 1, 4) = ?", [.text(year)]))
        case .month(let month): conditions.append(SQLFragment("substr(c.day, 1, 7) = ?", [.text(month)]))
        case .containingAsset(let id):
            conditions.append(SQLFragment("(c.day, c.place) = (SELECT local_day, place_cell FROM asset WHERE id = ?)", [.integer(id)]))
        }
        if let predicate = options.predicate {
            conditions.append(try PredicateCompiler(table: .assetCollection, dialect: dialect).compile(predicate))
        }
        var order = try PredicateCompiler(table: .assetCollection, dialect: dialect).orderBy(options.sortKeys)
        order += ["c.start_date ASC", "c.local_id ASC"]
        let whereClause = SQLFragment.joined(conditions, separator: " AND ")
        var sql = "SELECT c.local_id, c.day, c.place, c.asset_count, c.start_date, c.end_date, c.latitude, c.longitude FROM (\(inner)) c"
        if !conditions.isEmpty { sql += " WHERE \(whereClause.sql)" }
        sql += " ORDER BY \(order.map(dialect.orderTerm).joined(separator: ", "))"
        var arguments = assetWhere.arguments + whereClause.arguments
        if options.fetchLimit > 0 {
            sql += " LIMIT ?"
            arguments.append(.integer(Int64(options.fetchLimit)))
        }
        return SQLFragment(sql, arguments)
    }

    // MARK: Helpers

    func membership(_ column: String, _ ids: [String]) -> SQLFragment {
        if ids.isEmpty { return SQLFragment("FALSE") }
        if ids.count <= 64 {
            return SQLFragment("\(column) IN (\(Array(repeating: "?", count: ids.count).joined(separator: ", ")))", ids.map { .text($0) })
        }
        return dialect.isIn(column, ids.map { .text($0) })
    }
}
