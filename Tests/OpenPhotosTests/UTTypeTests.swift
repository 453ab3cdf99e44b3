import OpenPhotos
import PhotosTesting
import Testing

/// `UTType` as UniformTypeIdentifiers documents it: lookups by extension and MIME type, conformance, dynamic types.
@Suite("Uniform types")
struct UTTypeTests {
    @Test func extensionsAndMIMETypesFindTheDeclaredTypes() throws {
        #expect(UTType(filenameExtension: "jpg") == .jpeg)
        #expect(UTType(filenameExtension: "JPEG") == .jpeg)
        #expect(UTType(filenameExtension: "heic") == .heic)
        #expect(UTType(filenameExtension: "mov") == .quickTimeMovie)
        #expect(UTType(filenameExtension: "mp4") == .mpeg4Movie)
        #expect(UTType(filenameExtension: "png")?.preferredMIMEType == "image/png")
        #expect(UTType(mimeType: "video/quicktime") == .quickTimeMovie)
        #expect(UTType(mimeType: "image/heic")?.preferredFilenameExtension == "heic")
        #expect(UTType.jpeg.preferredFilenameExtension == "jpeg")
        #expect(UTType.jpeg.tags[.filenameExtension] == ["jpeg", "jpg", "jpe"])
        #expect(UTType("public.heic") == .heic)
        #expect(UTType("PUBLIC.JPEG") == .jpeg)
        #expect(UTType("com.example.never-declared") == nil)
        #expect(UTType.heic.identifier == "public.heic")
        #expect(UTType.livePhoto.identifier == "com.apple.live-photo")
    }

    @Test func conformanceFollowsTheHierarchy() throws {
        #expect(UTType.heic.conforms(to: .image))
        #expect(UTType.heic.conforms(to: .heif) == false)
        #expect(UTType.heic.conforms(to: .data) && UTType.heic.conforms(to: .item) && UTType.heic.conforms(to: .content))
        #expect(UTType.quickTimeMovie.conforms(to: .movie) && UTType.quickTimeMovie.conforms(to: .audiovisualContent))
        #expect(!UTType.quickTimeMovie.conforms(to: .image))
        #expect(UTType.mpeg4Audio.conforms(to: .audio) && UTType.mpeg4Audio.conforms(to: .mpeg4Movie))
        #expect(UTType.jpeg.conforms(to: .jpeg))
        #expect(UTType.jpeg.isSubtype(of: .image) && !UTType.jpeg.isSubtype(of: .jpeg))
        #expect(UTType.image.isSupertype(of: .png))
        #expect(UTType.png.supertypes == [.image, .data, .content, .item])
        // A movie extension asked for as an image finds no declared type: a dynamic one conforming to image.
        let asImage = try #require(UTType(filenameExtension: "mov", conformingTo: .image))
        #expect(asImage.isDynamic && asImage.conforms(to: .image) && !asImage.conforms(to: .movie))
    }

    @Test func unknownTagsGiveDynamicTypes() throws {
        let type = try #require(UTType(filenameExtension: "xyz123"))
        #expect(type.isDynamic)
        #expect(!type.isDeclared && !type.isPublic)
        #expect(type.identifier.hasPrefix("dyn."))
        #expect(type.conforms(to: .data) && type.conforms(to: .item))
        #expect(type.preferredFilenameExtension == "xyz123")
        #expect(type.preferredMIMEType == nil)
        // The same tag gives the same type, and the identifier makes it again.
        #expect(UTType(filenameExtension: "xyz123") == type)
        #expect(UTType(type.identifier) == type)
        #expect(UTType(type.identifier)?.preferredFilenameExtension == "xyz123")
        #expect(UTType(filenameExtension: "") == nil)
        #expect(UTType.jpeg.isDeclared && UTType.jpeg.isPublic && !UTType.jpeg.isDynamic)
        #expect(UTType.webP.isDeclared && !UTType.webP.isPublic)
    }

    @Test func importedIdentifiersKeepTheirIdentity() throws {
        let custom = UTType(importedAs: "com.example.recipe", conformingTo: .json)
        #expect(custom.identifier == "com.example.recipe")
        #expect(!custom.isDeclared && !custom.isDynamic)
        #expect(custom.conforms(to: .json) && custom.conforms(to: .text) && custom.conforms(to: .data))
        #expect(UTType(importedAs: "public.png") == .png)
        let encoded = try JSONEncoder().encode([UTType.heic])
        #expect(String(decoding: encoded, as: UTF8.self) == "[\"public.heic\"]")
        #expect(try JSONDecoder().decode([UTType].self, from: encoded) == [.heic])
    }
}

extension UTTypeTests {
    @Test func assetsAndResourcesHaveContentTypes() throws {
        let library = try TestLibrary()
        defer { library.remove() }
        let ids = try library.addImages(1)
        let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: ids, options: library.options()).firstObject)
        #expect(asset.contentType == .jpeg)
        let resource = try #require(PHAssetResource.assetResources(for: asset).first)
        #expect(resource.contentType == .jpeg)
        #expect(resource.contentType.conforms(to: .image))
        #expect(resource.dataSize == Int(resource.fileSize))
    }
}
