import Foundation

/// PhotoKit's versions of an asset, by `PHImageRequestOptionsVersion`'s raw values.
package enum AssetVersion: Int, Sendable, CaseIterable {
    /// The edit's rendering, or the original when unedited.
    case current = 0
    /// The asset without adjustments: its original photo or video.
    case unadjusted = 1
    /// The original, highest-fidelity version.
    case original = 2
}

/// Which part of an asset a version is asked of.
package enum AssetPart: Sendable {
    /// The asset's own photo or video.
    case primary
    /// A Live Photo's paired video.
    case pairedVideo
}

/// The one answer to "which stored file is this version of this asset": image requests, resources' version files,
/// the server's validators, exports and editing inputs all ask here, so an ETag always names the bytes it stands for.
package enum VersionResolver {
    /// The resource of `version` of `part` among an asset's resources (`type` gives a resource's stored type);
    /// nil when the asset has none (a Live Photo's video of a plain photo).
    ///
    /// - `current`: the rendering of the last edit (full-size photo or video, or the paired video's), else as
    ///   `unadjusted`.
    /// - `unadjusted` and `original`: the original photo or video (the paired video) — of a RAW + JPEG pair whose
    ///   RAW is the chosen original (`rawChosen`), the RAW (the alternate photo). An adjustment base — the rendering
    ///   a stacked edit was made on — is never a version: it is an editor's input only.
    package static func resource<R>(
        _ version: AssetVersion, _ part: AssetPart = .primary, of resources: [R], rawChosen: Bool = false, type: (R) -> ResourceType
    ) -> R? {
        switch part {
        case .primary:
            if version == .current,
                let rendering = resources.first(where: { [.fullSizePhoto, .fullSizeVideo].contains(type($0)) })
            {
                return rendering
            }
            if rawChosen, let raw = resources.first(where: { type($0) == ResourceType.alternatePhoto }) { return raw }
            return resources.first { type($0) == ResourceType.photo || type($0) == ResourceType.video }
                ?? resources.first { !ResourceType.edit.contains(type($0)) }
        case .pairedVideo:
            if version == .current, let rendering = resources.first(where: { type($0) == ResourceType.fullSizePairedVideo }) {
                return rendering
            }
            return resources.first { type($0) == ResourceType.pairedVideo }
        }
    }

    /// The same, over the engine's records.
    package static func resource(
        _ version: AssetVersion, _ part: AssetPart = .primary, of resources: [ResourceRecord], rawChosen: Bool = false
    ) -> ResourceRecord? {
        resource(version, part, of: resources, rawChosen: rawChosen, type: \.type)
    }
}
