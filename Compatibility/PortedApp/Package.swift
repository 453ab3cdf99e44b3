// swift-tools-version: 6.1
// An app's package that uses Apple's Photos, Core Image and UTType by their own module names. On Apple platforms
// they are the system frameworks; on Linux the same source builds against OpenPhotoKit's products of those names —
// no `#if`, no shim. Built by scripts/build-ported-app.sh in the test command.
import PackageDescription

let package = Package(
    name: "PortedApp",
    platforms: [.macOS(.v14), .iOS(.v17)],
    dependencies: [.package(name: "OpenPhotoKit", path: "../..")],
    targets: [
        .target(
            name: "PortedClient",
            dependencies: [
                .product(name: "Photos", package: "OpenPhotoKit", condition: .when(platforms: [.linux])),
                .product(name: "CoreImage", package: "OpenPhotoKit", condition: .when(platforms: [.linux])),
                .product(name: "UniformTypeIdentifiers", package: "OpenPhotoKit", condition: .when(platforms: [.linux])),
            ]
        ),
        .executableTarget(name: "ported-app", dependencies: ["PortedClient"]),
    ],
    swiftLanguageModes: [.v6]
)
