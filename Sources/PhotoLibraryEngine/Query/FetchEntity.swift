import Foundation

/// The kind of object a fetch returns, which decides the keys its predicate and sort descriptors may name
/// (PhotoKit's table, spec §17). The store maps each to its own columns (``KeyTable`` for the SQL stores).
package enum FetchEntity: Sendable, CaseIterable {
    case asset, assetCollection, collectionList, collection

    /// The keys of this entity and the SQL expressions they stand for.
    var keyTable: KeyTable {
        switch self {
        case .asset: .asset
        case .assetCollection: .assetCollection
        case .collectionList: .collectionList
        case .collection: .collection
        }
    }
}

/// Which of the computed moments a fetch returns.
package enum MomentFilter: Sendable, Equatable {
    /// Every moment.
    case all
    /// The moments of a year (`yyyy`: a `momentListYear`).
    case year(String)
    /// The moments of a month (`yyyy-MM`: a `momentListCluster`).
    case month(String)
    /// The moment an asset belongs to.
    case containingAsset(Int64)
}

extension FetchOptionsSpec {
    /// Checks that the predicate and sort keys can be used to fetch `entity`, without running anything.
    package func validate(for entity: FetchEntity) throws(FetchPredicateError) {
        // Which keys and values a fetch takes is the same in every dialect (only how lists are bound differs).
        let compiler = PredicateCompiler(table: entity.keyTable, dialect: .sqlite)
        if let predicate { _ = try compiler.compile(predicate) }
        _ = try compiler.orderBy(sortKeys)
    }
}
