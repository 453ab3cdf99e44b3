// A photo editing extension: hides a region of a photo — pixellated or blurred — before it is shared. It asks for a
// confirmation before a cancel (a half-made redaction is worth a second thought). A template: see the
// WritingAPhotoEditingExtension article.
import CoreImage
import PhotoEditingExtension
import PhotosUI

final class RedactController: NSObject, PHContentEditingController {
    static let formatIdentifier = "org.openphotokit.example.redact"
    private var input: PHContentEditingInput?

    struct Recipe: Codable {
        var region: [Double]
        var style: String
        var scale: Double
    }

    func canHandle(_ adjustmentData: PHAdjustmentData) -> Bool {
        // A redaction is never reopened to be undone by this editor: it always works on the current version, so a
        // previous redaction stays under a new one.
        false
    }

    func startContentEditing(with contentEditingInput: PHContentEditingInput, placeholderImage: UIImage) {
        input = contentEditingInput
    }

    func finishContentEditing(completionHandler: @escaping (PHContentEditingOutput?) -> Void) {
        guard let input, let url = input.fullSizeImageURL,
            let image = CIImage(contentsOf: url)?.oriented(forExifOrientation: input.fullSizeImageOrientation)
        else { return completionHandler(nil) }
        let settings = PhotoEditingExtension.settings
        let unit = settings.unitRect("region") ?? CGRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)
        let style = settings.choice("style") ?? "pixellate"
        let scale = settings.number("scale") ?? 24
        // The region from the top left of the upright image, in Core Image's bottom-left coordinates.
        let e = image.extent
        let region = CGRect(
            x: e.minX + unit.minX * e.width, y: e.minY + (1 - unit.maxY) * e.height, width: unit.width * e.width, height: unit.height * e.height
        ).integral
        let hidden: CIImage =
            style == "blur"
            ? image.clampedToExtent().applyingGaussianBlur(sigma: scale).cropped(to: region)
            : image.applyingFilter("CIPixellate", parameters: [kCIInputScaleKey: scale, kCIInputCenterKey: CIVector(x: region.minX, y: region.minY)])
                .cropped(to: region)
        let redacted = hidden.composited(over: image)
        let output = PHContentEditingOutput(contentEditingInput: input)
        do {
            try CIContext().writeJPEGRepresentation(
                of: redacted, to: output.renderedContentURL, colorSpace: CGColorSpace.renderingDestination(for: image.colorSpace))
            let recipe = Recipe(region: [unit.minX, unit.minY, unit.width, unit.height], style: style, scale: scale)
            output.adjustmentData = PHAdjustmentData(
                formatIdentifier: Self.formatIdentifier, formatVersion: "1.0", data: try JSONEncoder().encode(recipe))
            completionHandler(output)
        } catch {
            completionHandler(nil)
        }
    }

    var shouldShowCancelConfirmation: Bool { true }

    func cancelContentEditing() { input = nil }
}

@main
struct RedactExtension {
    static func main() async {
        await PhotoEditingExtension.main(
            manifest: .init(
                bundleIdentifier: "org.openphotokit.example.redact", displayName: "Redact", supportedMediaTypes: [.image],
                settings: [
                    .init(name: "region", kind: .unitRect, defaultValue: "0.25,0.25,0.5,0.5", summary: "the part to hide"),
                    .init(name: "style", kind: .choice(["pixellate", "blur"]), defaultValue: "pixellate", summary: "how"),
                    .init(name: "scale", kind: .number(minimum: 2, maximum: 200), defaultValue: "24", summary: "block size or blur radius"),
                ])
        ) { RedactController() }
    }
}
