// `import CoreImage` on Linux: OpenCoreImage under Apple's module name, with Foundation as Apple's brings it.
@_exported import Foundation
@_exported import OpenCoreImage
@_exported import ImageIO
