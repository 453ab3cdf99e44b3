// swift-tools-version: 6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "OpenPhotoKit",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "OpenPhotos", targets: ["OpenPhotos"]),
        .library(name: "OpenPhotosShim", targets: ["OpenPhotosShim"]),
        // Apple's module names, for Linux only (depend with `condition: .when(platforms: [.linux])`): ported code
        // keeps `import Photos` and `import UniformTypeIdentifiers` unchanged.
        .library(name: "Photos", targets: ["Photos"]),
        .library(name: "UniformTypeIdentifiers", targets: ["UniformTypeIdentifiers"]),
        .library(name: "CoreImage", targets: ["CoreImage"]),
        .library(name: "ImageIO", targets: ["ImageIO"]),
        .library(name: "PhotosUI", targets: ["PhotosUI"]),
        // What a photo editing extension program links: the entry point and the protocol with its host.
        .library(name: "PhotoEditingExtension", targets: ["PhotoEditingExtension"]),
        // What a program that runs editing extensions links (photos edit --with, a server of its own).
        .library(name: "EditingExtensionHost", targets: ["EditingExtensionHost"]),
        // The built-in editor (PhotoEditRecipe), usable by any program on a library.
        .library(name: "BuiltInEditor", targets: ["BuiltInEditor"]),
        // Background upload jobs performed, an upload extension hosted, and the example backup extension.
        .library(name: "BackgroundUploads", targets: ["BackgroundUploads"]),
        // What an upload extension program links (its entry point), and what hosts one in a kernel sandbox.
        .library(name: "PhotoUploadExtension", targets: ["PhotoUploadExtension"]),
        .library(name: "UploadExtensionHost", targets: ["UploadExtensionHost"]),
        .executable(name: "backup-extension", targets: ["backup-extension"]),
        // The example extensions (templates: see the WritingAPhotoEditingExtension article).
        .executable(name: "look-extension", targets: ["look-extension"]),
        .executable(name: "redact-extension", targets: ["redact-extension"]),
        // Core Image on libvips, usable alone (no photo library).
        .library(name: "OpenCoreImage", targets: ["OpenCoreImage"]),
        .library(name: "PhotosTesting", targets: ["PhotosTesting"]),
        // The HTTP API and web gallery of `photos serve`, usable inside another server.
        .library(name: "PhotosServer", targets: ["PhotosServer"]),
        .executable(name: "photos", targets: ["photos"]),
        // Reads HEIF files' structure in a process of its own before libheif reads them in the library's process
        // (libheif asserts on some damaged files): installed beside `photos` (see PhotoMedia's HEIFCheck).
        .executable(name: "openphotokit-heif-check", targets: ["openphotokit-heif-check"]),
        .executable(name: "openphotokit-transcode", targets: ["openphotokit-transcode"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // No default traits: swift-configuration is not needed, and Foundation is imported in full anyway.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The server database store (issue 24).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // TLS to the database server (PostgresNIO's own dependency, named for its configuration types).
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // The object store's HTTP client (issue 25).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        // C libraries behind tiny system-library modules (their headers and pkg-config flags) and C targets that wrap
        // them for Swift, with `.c` files by concern.
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        // libvips for Swift: image wrappers, operations by name, the libheif runtime, one initialisation.
        .target(name: "CVipsShims", dependencies: ["CVips"], linkerSettings: ["vips", "gobject-2.0", "glib-2.0"].map { .linkedLibrary($0) }),
        // Sample photos for `photos demo`; test images with known pixels for the tests (PhotosTesting only).
        .target(name: "CSampleImages", dependencies: ["CVips"], linkerSettings: ["vips", "gobject-2.0", "glib-2.0"].map { .linkedLibrary($0) }),
        .target(name: "CTestImages", dependencies: ["CVips"], linkerSettings: ["vips", "gobject-2.0", "glib-2.0"].map { .linkedLibrary($0) }),
        .systemLibrary(name: "CAVFormat", pkgConfig: "libavformat", providers: [.apt(["libavformat-dev"])]),
        // libavformat for Swift: probing and metadata, poster frames, the movie exporter.
        .target(
            name: "CAVFormatShims", dependencies: ["CAVFormat"],
            linkerSettings: ["avformat", "avcodec", "avutil", "swscale", "swresample", "m"].map { .linkedLibrary($0) }),
        .systemLibrary(name: "CExif", pkgConfig: "libexif", providers: [.apt(["libexif-dev"])]),
        // The HEIF check helper: C, linked against the system's libheif.
        .executableTarget(name: "openphotokit-heif-check", linkerSettings: [.linkedLibrary("heif")]),
        // The kernel sandbox (bubblewrap) for programs OpenPhotoKit does not trust: editing extensions, the movie encoder.
        // Threads for blocking work (reads, waits for a server), instead of Dispatch's global queues (see the type).
        .target(name: "BlockingThreads", swiftSettings: strict),
        // JSON text written from Swift's values, without JSONSerialization's bridging: a served library's requests
        // (PhotoLibraryEngine) and a server's answers (PhotosServer).
        .target(name: "JSONWriting", swiftSettings: strict),
        .target(name: "KernelSandbox", dependencies: ["CProcessControl"], swiftSettings: strict),
        // Encodes a movie's web rendering in a process of its own, in the kernel sandbox (libavcodec over untrusted bytes).
        .executableTarget(name: "openphotokit-transcode", dependencies: ["CAVFormatShims"]),
        // Heap statistics for the benchmarks (glibc mallinfo2 returns a struct, which Swift cannot declare).
        .target(name: "CHeapStats"),
        // prctl (variadic in C) and posix_spawn's closefrom: the process controls of the extension host and helpers.
        .target(name: "CProcessControl"),
        // Camera RAW files developed by LibRaw (Debian's libraw-dev), for CIRAWFilter.
        .target(name: "CRaw", linkerSettings: [.linkedLibrary("raw")]),

        // Adapters: decoding and metadata.
        .target(
            name: "PhotoMedia",
            dependencies: [
                "CVipsShims", "CAVFormatShims", "CExif", "CRaw", "CProcessControl", "KernelSandbox",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The library itself: bundle, store, queries, transactions, access policy.
        .target(
            name: "PhotoLibraryEngine",
            dependencies: [
                "PhotoMedia", "ObjectStorage", "BlockingThreads", "JSONWriting",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strict
        ),
        // An S3-compatible object store's client: SigV4 signing (issue 25).
        .target(
            name: "ObjectStorage",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ], swiftSettings: strict),
        // UTType under Apple's module name (no dependency but Foundation).
        .target(name: "UniformTypeIdentifiers", swiftSettings: strict),
        // Core Image on libvips: CIImage, CIFilter, CIContext and the CoreGraphics values they need.
        .target(name: "OpenCoreImage", dependencies: ["CVipsShims", "CExif", "CRaw", "UniformTypeIdentifiers"], swiftSettings: strict),
        // ImageIO's keys (`kCGImageDestinationLossyCompressionQuality` as a `CFString`) under Apple's module name.
        .target(name: "ImageIO", dependencies: ["UniformTypeIdentifiers"], swiftSettings: strict),
        // `import CoreImage` on Linux (it brings ImageIO's keys, as Apple's does).
        .target(name: "CoreImage", dependencies: ["OpenCoreImage", "ImageIO"], swiftSettings: strict),
        // What an editing extension and its host say to each other (length-prefixed JSON over pipes).
        .target(name: "PhotoEditingProtocol", dependencies: ["PhotoLibraryEngine"], swiftSettings: strict),
        // The PhotoKit mirror.
        .target(
            name: "OpenPhotos",
            dependencies: [
                "PhotoLibraryEngine", "PhotoMedia", "UniformTypeIdentifiers", "OpenCoreImage", "PhotoEditingProtocol", "BlockingThreads",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(name: "OpenPhotosShim", dependencies: ["OpenPhotos"], swiftSettings: strict),
        // OpenPhotoKit's built-in editor: PhotoEditRecipe (`org.openphotokit.adjustment`), Core Image steps as
        // resumable adjustment data, and the whole edit flow `photos edit` and the server run.
        .target(name: "BuiltInEditor", dependencies: ["OpenPhotos", "OpenCoreImage"], swiftSettings: strict),
        // OpenPhotoKit's host of photo editing extensions: discovery and install, the sandbox (bubblewrap), the session
        // that runs one extension process over an asset and commits its output.
        .target(
            name: "EditingExtensionHost",
            dependencies: ["OpenPhotos", "PhotoEditingProtocol", "CProcessControl", "KernelSandbox"],
            swiftSettings: strict
        ),
        // `import Photos` on Linux: OpenPhotos under Apple's module name.
        .target(name: "Photos", dependencies: ["OpenPhotos"], swiftSettings: strict),
        // `import PhotosUI` on Linux: PHContentEditingController (Photos re-exported).
        .target(name: "PhotosUI", dependencies: ["Photos"], swiftSettings: strict),
        .target(
            name: "PhotoEditingExtension", dependencies: ["OpenPhotos", "PhotosUI", "PhotoEditingProtocol", "EditingExtensionHost"],
            swiftSettings: strict),
        .executableTarget(
            name: "look-extension", dependencies: ["PhotoEditingExtension", "PhotosUI", "CoreImage"], path: "Examples/LookExtension",
            swiftSettings: strict),
        .executableTarget(
            name: "redact-extension", dependencies: ["PhotoEditingExtension", "PhotosUI", "CoreImage"], path: "Examples/RedactExtension",
            swiftSettings: strict),
        // Fixtures for tests of code that uses OpenPhotoKit (a product): libraries of every kind through a
        // LibraryProvider, generated media, a change recorder.
        .target(
            name: "PhotosTesting",
            dependencies: ["OpenPhotos", "PhotoMedia", "SampleMedia", "CVipsShims", "CTestImages"],
            swiftSettings: strict
        ),
        // This package's own test harness (not a product): child processes, kill and concurrency campaigns, WebDriver,
        // synthetic libraries and the raw SQLite baselines of the benchmarks.
        .target(
            name: "PhotosTestHarness",
            dependencies: [
                "PhotosTesting", "OpenPhotos", "PhotoLibraryEngine", "CProcessControl", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strict
        ),
        // `photos serve`: Hummingbird routes over OpenPhotos (no SQL and no pixels here), auth, the change feed and
        // the web gallery (Embedded/, compiled into the binary by scripts/embed-web.sh so that it works wherever it is
        // installed).
        .target(
            name: "PhotosServer",
            dependencies: [
                "BuiltInEditor", "OpenPhotos", "UniformTypeIdentifiers", "BlockingThreads", "JSONWriting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Embedded"],
            swiftSettings: strict
        ),
        // Generated sample media (libvips and ffmpeg) for `photos demo`, the tests and the benchmarks.
        .target(name: "SampleMedia", dependencies: ["CVipsShims", "CSampleImages", "PhotoMedia"], swiftSettings: strict),
        // Background upload jobs performed (AsyncHTTPClient), an app's upload extension hosted, and the example
        // extension that backs a library up to `photos serve`.
        .target(
            name: "BackgroundUploads",
            dependencies: [
                "OpenPhotos", "BlockingThreads", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ], swiftSettings: strict),
        // An upload extension program's entry point: its one instance called by its host over standard input and
        // output, PHPhotoLibrary.shared() the library the host serves it.
        .target(name: "PhotoUploadExtension", dependencies: ["OpenPhotos"], swiftSettings: strict),
        // OpenPhotoKit's host of upload extension programs: each in a kernel sandbox, the library served to it on a
        // socket of its own (a photos serve of the host's with a token of that server's life).
        .target(
            name: "UploadExtensionHost",
            dependencies: [
                "BackgroundUploads", "PhotoUploadExtension", "PhotosServer", "KernelSandbox", "OpenPhotos",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ], swiftSettings: strict),
        // The example upload extension as a program (a template).
        .executableTarget(
            name: "backup-extension", dependencies: ["BackgroundUploads", "PhotoUploadExtension"], path: "Examples/BackupExtension",
            swiftSettings: strict),
        // What the command-line programs share: one-line errors, progress on standard error, Ctrl-C.
        .target(name: "CommandLineSupport", dependencies: ["OpenPhotos"], swiftSettings: strict),
        .executableTarget(
            name: "photos",
            dependencies: [
                "BackgroundUploads",
                "UploadExtensionHost",
                "BuiltInEditor",
                "OpenPhotos",
                "EditingExtensionHost",
                "PhotosServer",
                "PhotoMedia",
                "SampleMedia",
                "CommandLineSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The benchmarks, a program of their own (`photos-bench`): users' `photos` carries no benchmark and no test
        // helper. The import, reliability and serve parts run the `photos` built beside it.
        .executableTarget(
            name: "photos-bench",
            dependencies: [
                "BuiltInEditor", "ObjectStorage",
                "OpenPhotos",
                "EditingExtensionHost",
                "PhotosServer",
                "PhotoLibraryEngine",
                "PhotoMedia",
                "CVipsShims",
                "CBenchBaselines",
                "PhotosTesting", "PhotosTestHarness",
                "CHeapStats",
                "CommandLineSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/PhotosBench",
            swiftSettings: strict
        ),

        // The libvips baselines photos-bench compares with.
        .target(
            name: "CBenchBaselines", dependencies: ["CVips"], path: "Benchmarks/CBenchBaselines",
            linkerSettings: ["vips", "gobject-2.0", "glib-2.0"].map { .linkedLibrary($0) }),

        // Fuzzing: the untrusted-input parsers as libFuzzer targets (scripts/fuzz.sh); not part of any product.
        .target(name: "PhotosFuzzing", dependencies: ["PhotoLibraryEngine", "PhotoMedia", "CRaw"], swiftSettings: strict),
        .target(name: "CFuzzerDriver"),
        .executableTarget(name: "photos-fuzz", dependencies: ["PhotosFuzzing", "CFuzzerDriver"], swiftSettings: strict),

        .testTarget(
            name: "OpenPhotosTests",
            dependencies: ["OpenPhotos", "BuiltInEditor", "PhotosTesting", "PhotosTestHarness", "openphotokit-heif-check"],
            swiftSettings: strict
        ),
        // PhotoKit's public behaviour, run against every kind of library a LibraryProvider makes (PhotosTesting).
        .testTarget(name: "ConformanceTests", dependencies: ["Photos", "PhotosTesting", "photos"], swiftSettings: strict),
        .testTarget(
            name: "ObjectStorageTests",
            dependencies: [
                "ObjectStorage", "PhotosTesting", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ], swiftSettings: strict),
        .testTarget(
            name: "PhotoLibraryEngineTests",
            dependencies: [
                "PhotoLibraryEngine", "PhotoMedia", "PhotosTesting", "PhotosTestHarness", "OpenPhotos", "PhotosFuzzing", "openphotokit-heif-check",
                "ObjectStorage", "BlockingThreads", "JSONWriting",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // Client code written as an iOS app writes it (`import Photos`, `import CoreImage`, `import
        // UniformTypeIdentifiers`, no #if), shared with the standalone package Compatibility/PortedApp.
        .target(
            name: "PortedClient",
            dependencies: ["Photos", "CoreImage", "UniformTypeIdentifiers"],
            path: "Compatibility/PortedApp/Sources/PortedClient",
            swiftSettings: strict
        ),
        .testTarget(
            name: "PortedClientTests",
            dependencies: ["PortedClient", "Photos", "UniformTypeIdentifiers", "PhotosTesting", "PhotosTestHarness"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CoreImageTests", dependencies: ["OpenPhotos", "BuiltInEditor", "PhotosTesting", "PhotosTestHarness"], swiftSettings: strict),
        .testTarget(
            name: "ReliabilityTests",
            dependencies: ["PhotosTesting", "PhotosTestHarness", "photos", "openphotokit-transcode"],
            swiftSettings: strict
        ),
        // An extension that misbehaves on request (crashes, hangs, garbage, files outside its folder …).
        .executableTarget(
            name: "broken-extension", dependencies: ["PhotoEditingExtension", "PhotoEditingProtocol", "PhotosUI", "CoreImage"],
            path: "Tests/Fixtures/BrokenExtension", swiftSettings: strict),
        // An upload extension that misbehaves on request (peeks at the library and the network, crashes, hangs).
        .executableTarget(
            name: "hostile-upload-extension", dependencies: ["OpenPhotos", "PhotoUploadExtension"],
            path: "Tests/Fixtures/HostileUploadExtension", swiftSettings: strict),
        .testTarget(
            name: "PhotosServerTests",
            dependencies: [
                "PhotosServer", "OpenPhotos", "BuiltInEditor", "BackgroundUploads", "UploadExtensionHost", "PhotosTesting", "PhotosTestHarness",
                "openphotokit-transcode", "backup-extension", "hostile-upload-extension", "photos",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "EditingExtensionTests",
            dependencies: [
                "OpenPhotos", "EditingExtensionHost", "PhotosTesting", "PhotosTestHarness", "photos", "look-extension", "redact-extension",
                "broken-extension",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PhotosCommandTests",
            dependencies: [
                "PhotosTesting", "PhotosTestHarness", "OpenPhotos", "PhotoLibraryEngine", "photos", "openphotokit-heif-check",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
