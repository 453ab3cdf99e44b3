import Foundation
import GRDB
import PhotoLibraryEngine

/// Fills a library with synthetic asset rows (no files) for benchmarks: the same rows the library writes, at
/// database speed. Not a substitute for real imports in tests.
public enum SyntheticLibrary {
    /// Inserts `count` synthetic assets in transactions of `batch` rows; returns the seconds spent.
    @discardableResult
    public static func insertAssets(into libraryURL: URL, count: Int, batch: Int = 20_000, seed: UInt64 = 42) throws -> TimeInterval {
        let engine = try LibraryEngine.open(at: libraryURL)
        var generator = SplitMix64(seed: seed)
        let start = Date()
        var inserted = 0
        let base = 1_500_000_000.0
        while inserted < count {
            let n = min(batch, count - inserted)
            try engine.database.write { db in
                let statement = try db.makeStatement(
                    sql: """
                        INSERT INTO asset (local_id, media_type, pixel_width, pixel_height, creation_date, local_day,
                            modification_date, added_date, duration, is_favorite, is_hidden)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """)
                for i in 0..<n {
                    let r = generator.next()
                    let isVideo = r % 10 == 0
                    let created = base + Double((r >> 8) % 300_000_000)
                    let day = Moments.localDay(of: Date(timeIntervalSince1970: created), offsetSeconds: 0)
                    try statement.execute(arguments: [
                        syntheticIdentifier(r, inserted + i),
                        isVideo ? 2 : 1, 4032, 3024, created, day, created, created, isVideo ? 12.5 : 0,
                        (r >> 4) % 7 == 0, (r >> 5) % 50 == 0,
                    ])
                }
            }
            inserted += n
        }
        return Date().timeIntervalSince(start)
    }
}

/// A UUID-shaped local identifier from a random value and a sequence number.
private func syntheticIdentifier(_ random: UInt64, _ sequence: Int) -> String {
    let hex = String(random >> 32, radix: 16, uppercase: true)
    let serial = String(sequence, radix: 16, uppercase: true)
    return String(repeating: "0", count: 8 - hex.count) + hex + "-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - serial.count)) + serial
        + "/L0/001"
}

/// A small deterministic random generator.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
