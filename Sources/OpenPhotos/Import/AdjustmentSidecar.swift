import Foundation

/// An `.AAE` file: the adjustments Photos on iOS and macOS writes beside an edited photo when it is exported with its
/// original (`IMG_1234.HEIC`, `IMG_1234.AAE`, and the edited rendering `IMG_E1234.HEIC`). A property list of Apple's
/// keys — `adjustmentFormatIdentifier`, `adjustmentFormatVersion`, `adjustmentData`, `adjustmentBaseVersion`,
/// `adjustmentEditorBundleID`, `adjustmentTimestamp`, `adjustmentRenderTypes` — which import keeps as the asset's
/// ``PHAdjustmentData`` and `photos export --version all` writes again.
package struct AdjustmentSidecar: Sendable, Equatable {
    package var formatIdentifier: String
    package var formatVersion: String
    package var data: Data
    package var baseVersion: Int
    package var editorBundleID: String?
    package var timestamp: Date?
    package var renderTypes: Int

    /// The largest `.AAE` file read (Apple's are a few kilobytes; the adjustment data itself is limited to 1 MiB).
    package static let maximumFileSize = 2 << 20

    package init(
        formatIdentifier: String, formatVersion: String, data: Data, baseVersion: Int = 0, editorBundleID: String? = nil,
        timestamp: Date? = nil, renderTypes: Int = 0
    ) {
        self.formatIdentifier = formatIdentifier
        self.formatVersion = formatVersion
        self.data = data
        self.baseVersion = baseVersion
        self.editorBundleID = editorBundleID
        self.timestamp = timestamp
        self.renderTypes = renderTypes
    }

    /// Reads a sidecar; nil when the bytes are not a property list with a format identifier, a version and data.
    package init?(plist bytes: Data) {
        guard bytes.count <= Self.maximumFileSize,
            let object = try? PropertyListSerialization.propertyList(from: bytes, options: [], format: nil) as? [String: Any],
            let identifier = object["adjustmentFormatIdentifier"] as? String, !identifier.isEmpty,
            let data = object["adjustmentData"] as? Data
        else { return nil }
        // The version is a string in Apple's files; a number is read as one too.
        let version = (object["adjustmentFormatVersion"] as? String) ?? (object["adjustmentFormatVersion"] as? NSNumber)?.stringValue
        guard let version else { return nil }
        self.init(
            formatIdentifier: identifier, formatVersion: version, data: data,
            baseVersion: (object["adjustmentBaseVersion"] as? NSNumber)?.intValue ?? 0,
            editorBundleID: object["adjustmentEditorBundleID"] as? String, timestamp: object["adjustmentTimestamp"] as? Date,
            renderTypes: (object["adjustmentRenderTypes"] as? NSNumber)?.intValue ?? 0)
    }

    /// The sidecar as Photos writes it: an XML property list.
    package func plist() throws -> Data {
        var object: [String: Any] = [
            "adjustmentFormatIdentifier": formatIdentifier, "adjustmentFormatVersion": formatVersion, "adjustmentData": data,
            "adjustmentBaseVersion": baseVersion, "adjustmentRenderTypes": renderTypes,
        ]
        if let editorBundleID { object["adjustmentEditorBundleID"] = editorBundleID }
        if let timestamp { object["adjustmentTimestamp"] = timestamp }
        return try PropertyListSerialization.data(fromPropertyList: object, format: .xml, options: 0)
    }

    /// The names Photos gives an original's companions: `IMG_E1234` for the edited rendering (an `E` after the
    /// prefix's underscore), `IMG_1234` or `IMG_O1234` for its `.AAE`. Nil for a name without an underscore.
    package static func editedStem(of stem: String) -> String? {
        guard let underscore = stem.firstIndex(of: "_") else { return nil }
        return String(stem[...underscore]) + "E" + String(stem[stem.index(after: underscore)...])
    }

    /// The original's stem of an edited rendering's (`IMG_E1234` → `IMG_1234`), nil when the name is not one.
    package static func originalStem(ofEdited stem: String) -> String? {
        guard let underscore = stem.firstIndex(of: "_"), stem.index(after: underscore) < stem.endIndex,
            stem[stem.index(after: underscore)] == "E"
        else { return nil }
        let rest = stem[stem.index(underscore, offsetBy: 2)...]
        guard !rest.isEmpty else { return nil }
        return String(stem[...underscore]) + rest
    }

    /// The stems an original's `.AAE` may have: its own, and with an `O` after the prefix's underscore.
    package static func sidecarStems(of stem: String) -> [String] {
        guard let underscore = stem.firstIndex(of: "_") else { return [stem] }
        return [stem, String(stem[...underscore]) + "O" + String(stem[stem.index(after: underscore)...])]
    }
}
