import PhotoLibraryEngine
import Testing

/// A window's bound from PostgreSQL's histogram of the documents' dates: positions interpolated within buckets of
/// equal counts, both ways, nil when the window reaches past either end.
@Suite("Date histogram")
struct DateHistogramTests {
    @Test func boundsAreInterpolatedWithinBuckets() throws {
        // 300 dated documents: 100 in each of [0, 10), [10, 20) and [20, 40].
        let histogram = try #require(DateHistogram(bounds: "{0,10,20,40}", nullFraction: 0, documents: 300))
        func bound(_ documents: Int, after: Double? = nil, ascending: Bool = true) -> Double? {
            histogram.bound(of: SearchQuery.DateWindow(documents: documents, ascending: ascending, after: after))
        }
        #expect(bound(150) == 15)
        #expect(bound(100, after: 5) == 15)
        #expect(bound(100, after: -3) == 10)
        #expect(bound(260, after: 5) == nil)
        #expect(bound(100, ascending: false) == 20)
        #expect(bound(150, after: 30, ascending: false) == 10)
        #expect(bound(300, after: 30, ascending: false) == nil)
        #expect(bound(0, after: 30) == 30)
        // Half the documents undated: 50 dated ones a bucket.
        let half = try #require(DateHistogram(bounds: "{0,10,20,40}", nullFraction: 0.5, documents: 300))
        #expect(half.bound(of: SearchQuery.DateWindow(documents: 75)) == 15)
        // No histogram (never analyzed), no documents, or bounds that are not one.
        #expect(DateHistogram(bounds: nil, nullFraction: 0, documents: 300) == nil)
        #expect(DateHistogram(bounds: "{}", nullFraction: 0, documents: 300) == nil)
        #expect(DateHistogram(bounds: "{5}", nullFraction: 0, documents: 300) == nil)
        #expect(DateHistogram(bounds: "{5,3}", nullFraction: 0, documents: 300) == nil)
        #expect(DateHistogram(bounds: "{0,10}", nullFraction: 0, documents: 0) == nil)
    }
}
