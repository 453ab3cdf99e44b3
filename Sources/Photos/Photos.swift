// The module name Apple's framework has, for Linux: `import Photos` brings OpenPhotoKit's PhotoKit (and Foundation,
// and UTType) exactly as it brings Apple's framework on Apple platforms, so the same source builds on both. Depend
// on this product only on Linux:
//
//     .product(name: "Photos", package: "OpenPhotoKit", condition: .when(platforms: [.linux]))
//
// See the PortingToLinux article for what the module names may honestly claim.
@_exported import OpenPhotos
