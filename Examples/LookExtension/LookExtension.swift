// A photo editing extension: a look (one of Core Image's photo effects, or sepia) at an intensity, resumable — reopened,
// it shows the look it applied and replaces it instead of stacking a second one. A template: copy this folder, change
// the manifest and the filter. See the WritingAPhotoEditingExtension article.
import CoreImage
import PhotoEditingExtension
import PhotosUI

final class LookController: NSObject, PHContentEditingController {
    static let formatIdentifier = "org.openphotokit.example.look"
    static let formatVersion = "1.0"
    static let looks = ["noir", "mono", "chrome", "fade", "instant", "process", "tonal", "transfer", "sepia"]

    private var input: PHContentEditingInput?

    /// The recipe: the look and its intensity, as JSON.
    struct Recipe: Codable {
        var look: String
        var intensity: Double
    }

    func canHandle(_ adjustmentData: PHAdjustmentData) -> Bool {
        adjustmentData.formatIdentifier == Self.formatIdentifier && adjustmentData.formatVersion.hasPrefix("1.")
    }

    func startContentEditing(with contentEditingInput: PHContentEditingInput, placeholderImage: UIImage) {
        input = contentEditingInput
        if let data = contentEditingInput.adjustmentData, let previous = try? JSONDecoder().decode(Recipe.self, from: data.data) {
            FileHandle.standardError.write(Data("reopening \(previous.look) at \(previous.intensity)\n".utf8))
        }
    }

    func finishContentEditing(completionHandler: @escaping (PHContentEditingOutput?) -> Void) {
        guard let input else { return completionHandler(nil) }
        let recipe = Recipe(
            look: PhotoEditingExtension.settings.choice("look") ?? "noir", intensity: PhotoEditingExtension.settings.number("intensity") ?? 1)
        let output = PHContentEditingOutput(contentEditingInput: input)
        let adjustment = PHAdjustmentData(
            formatIdentifier: Self.formatIdentifier, formatVersion: Self.formatVersion, data: (try? JSONEncoder().encode(recipe)) ?? Data())
        // A Live Photo: the look on the still and on every frame of its video, so it stays a Live Photo.
        if let live = PHLivePhotoEditingContext(livePhotoEditingInput: input) {
            live.frameProcessor = { frame, _ in Self.apply(recipe, to: frame.image) }
            Task { @MainActor in
                do {
                    try await live.saveLivePhoto(to: output)
                    output.adjustmentData = adjustment
                    completionHandler(output)
                } catch {
                    FileHandle.standardError.write(Data("cannot render the Live Photo: \(error)\n".utf8))
                    completionHandler(nil)
                }
            }
            return
        }
        guard let url = input.fullSizeImageURL, let image = CIImage(contentsOf: url)?.oriented(forExifOrientation: input.fullSizeImageOrientation)
        else { return completionHandler(nil) }
        do {
            try CIContext().writeJPEGRepresentation(
                of: Self.apply(recipe, to: image), to: output.renderedContentURL,
                colorSpace: CGColorSpace.renderingDestination(for: image.colorSpace))
            output.adjustmentData = adjustment
            completionHandler(output)
        } catch {
            FileHandle.standardError.write(Data("cannot render: \(error)\n".utf8))
            completionHandler(nil)
        }
    }

    /// The look at the recipe's intensity: mixed with the picture through a uniform grey mask.
    static func apply(_ recipe: Recipe, to image: CIImage) -> CIImage {
        let looked =
            recipe.look == "sepia"
            ? image.applyingFilter("CISepiaTone", parameters: [kCIInputIntensityKey: 1])
            : image.applyingFilter("CIPhotoEffect" + recipe.look.prefix(1).uppercased() + recipe.look.dropFirst())
        let mask = CIImage(color: CIColor(red: recipe.intensity, green: recipe.intensity, blue: recipe.intensity)).cropped(to: image.extent)
        return looked.applyingFilter("CIBlendWithMask", parameters: [kCIInputBackgroundImageKey: image, kCIInputMaskImageKey: mask])
    }

    var shouldShowCancelConfirmation: Bool { false }

    func cancelContentEditing() { input = nil }
}

@main
struct LookExtension {
    static func main() async {
        await PhotoEditingExtension.main(
            manifest: .init(
                bundleIdentifier: "org.openphotokit.example.look", displayName: "Looks", supportedMediaTypes: [.image],
                settings: [
                    .init(name: "look", kind: .choice(LookController.looks), defaultValue: "noir", summary: "the look"),
                    .init(name: "intensity", kind: .number(minimum: 0, maximum: 1), defaultValue: "1", summary: "how much of it"),
                ])
        ) { LookController() }
    }
}
