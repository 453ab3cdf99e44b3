// `import Photos` brings Foundation with it on Apple platforms, and ported code relies on that (`Date`, `URL`,
// `NSPredicate`, `Data` without an import of their own); `import OpenPhotos` does the same.
@_exported import Foundation
// UTType is PhotoKit's vocabulary for content types (`PHAsset.contentType`, resources, editing outputs).
@_exported import UniformTypeIdentifiers
// PhotoKit's editing API speaks Core Image (`PHLivePhotoEditingContext`, editing inputs read with `CIImage`), and the
// CoreGraphics values it needs (`CGImage`, `CGAffineTransform`, `CGImagePropertyOrientation`) live beside it.
@_exported import OpenCoreImage
