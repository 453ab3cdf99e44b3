import CoreImage
import Foundation
import Photos
import UniformTypeIdentifiers

/// Video and image code as iOS editing apps write it (iOS 15's asynchronous loading, CoreMedia's time arithmetic and
/// ranges, UIImage to Core Image, file names from types): unchanged source, compiled against OpenPhotoKit on Linux.
public enum ClipTrimmer {
    /// The middle of a clip, at most `seconds` long, within the video track's own range; and the track's upright size.
    public static func middle(of asset: AVAsset, seconds: Double) async throws -> (range: CMTimeRange, size: CGSize) {
        let duration = try await asset.load(.duration)
        guard let track = try await asset.loadTracks(withMediaType: .video).first else { return (.zero, .zero) }
        let (natural, transform) = try await track.load(.naturalSize, .preferredTransform)
        let wanted = CMTime(seconds: seconds, preferredTimescale: 600)
        let half = CMTimeMultiplyByFloat64(duration - wanted, multiplier: 0.5)
        let start = CMTimeMaximum(.zero, half)
        let range = CMTimeRange(start: start, end: start + wanted).intersection(try await track.load(.timeRange))
        let upright = natural.applying(transform)
        return (range.isEmpty ? .zero : range, CGSize(width: abs(upright.width), height: abs(upright.height)))
    }

    /// A thumbnail of a picked image, blurred along a direction, written under the name its type prefers.
    public static func streak(_ image: UIImage, direction: CGVector, into folder: URL) throws -> URL? {
        guard let input = CIImage(image: image) else { return nil }
        let angle = atan2(direction.dy, direction.dx)
        let streaked = input.applyingFilter(
            "CIMotionBlur", parameters: [kCIInputRadiusKey: hypot(direction.dx, direction.dy), kCIInputAngleKey: angle])
        let target = folder.appendingPathComponent("streak").appendingPathExtension(for: .jpeg)
        try CIContext().writeJPEGRepresentation(
            of: streaked.cropped(to: input.extent), to: target, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!)
        return target
    }
}
