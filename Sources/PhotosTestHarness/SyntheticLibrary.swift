import Foundation
import PhotosTesting
import PhotoLibraryEngine

/// One synthetic asset row (what the library stores for an image or video, without files).
public struct SyntheticAssetRow: Sendable {
    public var localIdentifier: String
    public var mediaType: Int
    public var creationDate: Double
    public var localDay: String
    public var duration: Double
    public var isFavorite: Bool
    public var isHidden: Bool

    /// `count` deterministic rows: 10% videos, 1 in 7 favorites, 1 in 50 hidden, dates over ten years.
    public static func rows(count: Int, startingAt start: Int = 0, seed: UInt64 = 42) -> [SyntheticAssetRow] {
        var generator = SplitMix64(seed: seed &+ UInt64(start))
        return (start..<(start + count)).map { sequence in
            let r = generator.next()
            let isVideo = r % 10 == 0
            let created = 1_500_000_000.0 + Double((r >> 8) % 300_000_000)
            let hex = String(r >> 32, radix: 16, uppercase: true)
            let serial = String(sequence, radix: 16, uppercase: true)
            return SyntheticAssetRow(
                localIdentifier: String(repeating: "0", count: 8 - hex.count) + hex + "-0000-4000-8000-"
                    + String(repeating: "0", count: max(0, 12 - serial.count)) + serial + "/L0/001",
                mediaType: isVideo ? 2 : 1,
                creationDate: created,
                localDay: Moments.localDay(of: Date(timeIntervalSince1970: created), offsetSeconds: 0) ?? "",
                duration: isVideo ? 12.5 : 0,
                isFavorite: (r >> 4) % 7 == 0,
                isHidden: (r >> 5) % 50 == 0)
        }
    }

    /// The columns a synthetic row fills, in ``values``' order.
    public static let columns = [
        "local_id", "media_type", "pixel_width", "pixel_height", "creation_date", "local_day", "modification_date", "added_date",
        "duration", "is_favorite", "is_hidden",
    ]

    /// The row's values for ``columns``.
    var values: [SQLValue] {
        [
            .text(localIdentifier), .integer(Int64(mediaType)), .integer(4032), .integer(3024), .real(creationDate), .text(localDay),
            .real(creationDate), .real(creationDate), .real(duration), .integer(isFavorite ? 1 : 0), .integer(isHidden ? 1 : 0),
        ]
    }

    /// One row's values as CSV (the PostgreSQL baseline's `COPY`).
    public var csvLine: String {
        "\(localIdentifier),\(mediaType),4032,3024,\(creationDate),\(localDay),\(creationDate),\(creationDate),\(duration),\(isFavorite ? 1 : 0),\(isHidden ? 1 : 0)\n"
    }

    static let insertSQL = """
        INSERT INTO asset (local_id, media_type, pixel_width, pixel_height, creation_date, local_day,
            modification_date, added_date, duration, is_favorite, is_hidden)
        VALUES (?, ?, 4032, 3024, ?, ?, ?, ?, ?, ?, ?)
        """
}

/// Fills a library with synthetic asset rows (no files) for benchmarks, through the library's own store
/// connection. Not a substitute for real imports in tests.
public enum SyntheticLibrary {
    /// Inserts `count` synthetic assets in transactions of `batch` rows; returns the seconds spent writing
    /// (row generation excluded, as for the raw baseline).
    @discardableResult
    public static func insertAssets(into libraryURL: URL, count: Int, batch: Int = 20_000, seed: UInt64 = 42) throws -> TimeInterval {
        let engine = try LibraryEngine.open(at: libraryURL)
        var elapsed: TimeInterval = 0
        var inserted = 0
        while inserted < count {
            let rows = SyntheticAssetRow.rows(count: min(batch, count - inserted), startingAt: inserted, seed: seed)
            let start = Date()
            // The store's bulk path: a prepared statement per row on SQLite, one statement per batch on PostgreSQL.
            try engine.metadata.write { db in
                try db.insertRows(into: "asset", columns: SyntheticAssetRow.columns, rows: rows.map(\.values))
            }
            elapsed += Date().timeIntervalSince(start)
            inserted += rows.count
        }
        return elapsed
    }
}
