// UniformTypeIdentifiers' `UTType` and `UTTagClass`, for Linux, under Apple's module name (see UTType.swift). A
// module of its own with no dependency but Foundation, so `import UniformTypeIdentifiers` brings exactly what it
// brings on Apple platforms; OpenPhotos re-exports it.
@_exported import Foundation
