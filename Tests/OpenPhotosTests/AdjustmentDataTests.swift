import OpenPhotos
import Foundation
import Testing

/// PHAdjustmentData as Apple documents it: three read-only properties, secure coding, value equality.
@Suite struct AdjustmentDataTests {
    static let recipe = Data(#"{"exposure":0.5}"#.utf8)

    @Test func keepsWhatItWasMadeWith() {
        let adjustment = PHAdjustmentData(formatIdentifier: "com.example.filters", formatVersion: "1.2", data: Self.recipe)
        #expect(adjustment.formatIdentifier == "com.example.filters")
        #expect(adjustment.formatVersion == "1.2")
        #expect(adjustment.data == Self.recipe)
        #expect(adjustment == PHAdjustmentData(formatIdentifier: "com.example.filters", formatVersion: "1.2", data: Self.recipe))
        #expect(adjustment != PHAdjustmentData(formatIdentifier: "com.example.filters", formatVersion: "2.0", data: Self.recipe))
    }

    @Test func archivesWithSecureCoding() throws {
        let adjustment = PHAdjustmentData(formatIdentifier: "com.example.filters", formatVersion: "1.2", data: Self.recipe)
        let archive = try NSKeyedArchiver.archivedData(withRootObject: adjustment, requiringSecureCoding: true)
        let restored = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: PHAdjustmentData.self, from: archive))
        #expect(restored == adjustment)
        #expect(PHAdjustmentData.supportsSecureCoding)
    }
}

/// The editing-input options as Apple documents them.
@Suite struct ContentEditingInputRequestOptionsTests {
    @Test func defaultsAndCopies() throws {
        let options = PHContentEditingInputRequestOptions()
        #expect(options.canHandleAdjustmentData == nil && !options.isNetworkAccessAllowed && options.progressHandler == nil)
        options.canHandleAdjustmentData = { $0.formatIdentifier == "com.example.filters" && $0.formatVersion.hasPrefix("1.") }
        options.isNetworkAccessAllowed = true
        let copy = try #require(options.copy() as? PHContentEditingInputRequestOptions)
        #expect(copy.isNetworkAccessAllowed)
        let handles = try #require(copy.canHandleAdjustmentData)
        #expect(handles(PHAdjustmentData(formatIdentifier: "com.example.filters", formatVersion: "1.3", data: Data([1]))))
        #expect(!handles(PHAdjustmentData(formatIdentifier: "com.example.filters", formatVersion: "2.0", data: Data([1]))))
    }
}
