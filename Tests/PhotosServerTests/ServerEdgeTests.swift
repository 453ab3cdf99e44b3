import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import OpenPhotos
@testable import PhotosServer
import PhotosTestHarness
import PhotosTesting
import Testing

/// What a self-hoster and a browser meet at the edges of the API: CORS with several origins and every method, HEAD,
/// what an edit preview carries, and a library path with a typo.
@Suite("Server edges")
struct ServerEdgeTests {
    @Test func corsAnswersEachAllowedOriginAloneAndAllowsEveryMethod() async throws {
        let fixture = try ServerFixture(
            name: "CORS", configuration: .init(port: 0, allowedOrigins: ["https://a.example", "https://b.example"]))
        defer { fixture.library.remove() }
        let id = urlID(try fixture.library.addImages(1)[0])
        let token = try fixture.token("page", .authorized)
        try await fixture.test { client in
            for origin in ["https://a.example", "https://b.example"] {
                let preflight = try await client.execute(
                    uri: "/v1/assets/\(id)", method: .options,
                    headers: [.origin: origin, .accessControlRequestMethod: "PATCH", .accessControlRequestHeaders: "authorization, if-match"])
                #expect(preflight.status == .noContent)
                #expect(preflight.headers[.accessControlAllowOrigin] == origin, "one origin, the caller's")
                let methods = Set(
                    (preflight.headers[.accessControlAllowMethods] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                #expect(methods.isSuperset(of: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]), "\(methods)")
                let headers = (preflight.headers[.accessControlAllowHeaders] ?? "").lowercased()
                #expect(headers.contains("authorization") && headers.contains("if-match"), "\(headers)")
                let answer = try await client.call("/v1/assets/\(id)", token: token, headers: [.origin: origin])
                #expect(answer.status == .ok && answer.headers[.accessControlAllowOrigin] == origin)
                #expect(answer.headers[values: .vary].contains("Origin"))
                // Errors are readable by the page too.
                let missing = try await client.call("/v1/assets/nothing", token: token, headers: [.origin: origin])
                #expect(missing.status == .notFound && missing.headers[.accessControlAllowOrigin] == origin)
            }
            let other = try await client.call("/v1/assets/\(id)", token: token, headers: [.origin: "https://evil.example"])
            #expect(other.headers[.accessControlAllowOrigin] == nil)
        }
    }

    @Test func headIsAnsweredWhereGetIs() async throws {
        let fixture = try ServerFixture(name: "HEAD")
        defer { fixture.library.remove() }
        let id = urlID(try fixture.library.addImages(1)[0])
        let token = try fixture.token("phone", .authorized)
        try await fixture.test { client in
            for uri in ["/healthz", "/v1/assets/\(id)", "/v1/assets/\(id)/image?size=32x32", "/v1/assets"] {
                let get = try await client.call(uri, token: token)
                let head = try await client.call(uri, .head, token: token)
                #expect(head.status == get.status && get.status == .ok, "\(uri): HEAD \(head.status), GET \(get.status)")
                #expect(head.body.readableBytes == 0, "\(uri)")
                #expect(head.headers[.contentType] == get.headers[.contentType], "\(uri)")
            }
        }
    }

    /// `/image` answers carry no metadata; an edit preview carried the original's GPS position and camera.
    @Test func anEditPreviewCarriesNoMetadata() async throws {
        let fixture = try ServerFixture(name: "PreviewMetadata")
        defer { fixture.library.remove() }
        let file = fixture.library.scratch.appendingPathComponent("gps.jpg")
        var exif = TestEXIF()
        exif.make = "Apple"
        exif.model = "iPhone 15 Pro"
        exif.latitude = 48.8584
        exif.longitude = 2.2945
        try TestMedia.writeJPEG(to: file, width: 64, height: 48, exif: exif)
        let imported = try fixture.library.library.importItems(at: [file]).importedLocalIdentifiers
        let id = urlID(try #require(imported.first))
        let token = try fixture.token("phone", .authorized)
        try await fixture.test { client in
            let preview = try await client.execute(
                uri: "/v1/assets/\(id)/edit/preview?size=32x32", method: .post, headers: [.authorization: "Bearer \(token)"],
                body: ByteBuffer(string: #"{"steps":[{"exposure":{"ev":0.5}}]}"#))
            #expect(preview.status == .ok)
            let bytes = Data(preview.bytes)
            // The original has both (the test is about the preview, not a photo without them).
            let original = try #require(CIImage(contentsOf: file)?.properties)
            #expect(original["{GPS}"] != nil && (original["{TIFF}"] as? [String: Any])?["Model"] as? String == "iPhone 15 Pro")
            let properties = try #require(CIImage(data: bytes)?.properties)
            #expect(properties["{GPS}"] == nil, "the preview carries a place: \(properties)")
            #expect((properties["{TIFF}"] as? [String: Any])?["Model"] == nil, "the preview names the camera")
            #expect(bytes.range(of: Data("iPhone 15 Pro".utf8)) == nil)
        }
    }

    @Test func aLibraryThatIsNotThereIsNotCreatedUnlessAsked() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("Typo-\(UUID().uuidString).photoslibrary")
        #expect(throws: PHPhotosError.self) { _ = try PhotosServer(libraryURL: missing, configuration: .init(port: 0)) }
        #expect(!FileManager.default.fileExists(atPath: missing.path))
        let run = try PhotosCommandLine.run(["serve", "--library", missing.path, "--port", "0"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("no photo library at"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: missing.path))
    }

    /// On a server, a library is a schema: a typo in `?library=` must not make one either.
    @Test(arguments: LibraryProviders.all.filter { !($0 is LocalLibraryProvider) })
    func aServerLibraryThatIsNotThereIsNotCreatedUnlessAsked(_ provider: any LibraryProvider) throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("Typo-\(UUID().uuidString)")
        let missing = try provider.makeLibrary(name: "Typo", scratch: scratch)
        defer { provider.removeLibrary(at: missing) }
        #expect(try !LibraryStorage.libraryExists(at: missing))
        #expect(throws: PHPhotosError.self) { _ = try PhotosServer(libraryURL: missing, configuration: .init(port: 0)) }
        let run = try PhotosCommandLine.run(["serve", "--library", missing.absoluteString, "--port", "0"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("no photo library at \(missing.absoluteString)"), "\(run.stderr)")
        #expect(try !LibraryStorage.libraryExists(at: missing))
        // Asked, it is made.
        _ = try PhotosServer(libraryURL: missing, configuration: .init(port: 0, createsLibrary: true))
        #expect(try LibraryStorage.libraryExists(at: missing))
    }
}

/// The request log names the client's address: the peer's, or behind a trusted reverse proxy the last address of
/// `X-Forwarded-For` (the one that proxy saw; what a client wrote before it is not believed).
@Suite("Client addresses in the request log")
struct ClientAddressTests {
    @Test func theAddressIsThePeersUnlessATrustedProxyForwards() {
        let proxies: Set<String> = ["127.0.0.1"]
        #expect(RequestLogMiddleware.clientAddress(forwardedFor: nil, peer: "203.0.113.9", trustedProxies: proxies) == "203.0.113.9")
        #expect(
            RequestLogMiddleware.clientAddress(forwardedFor: "198.51.100.7", peer: "203.0.113.9", trustedProxies: proxies) == "203.0.113.9",
            "an untrusted peer cannot name another client")
        #expect(
            RequestLogMiddleware.clientAddress(forwardedFor: "10.9.9.9, 198.51.100.7", peer: "127.0.0.1", trustedProxies: proxies)
                == "198.51.100.7")
        #expect(RequestLogMiddleware.clientAddress(forwardedFor: nil, peer: nil, trustedProxies: proxies) == "-")
    }
}

/// An add-only client could park uploads without end, never importing them: what one client may have waiting is
/// bounded in bytes and in count, and importing frees it.
@Suite("Upload quota")
struct UploadQuotaTests {
    @Test func uploadsWaitingToBeImportedAreBoundedPerClient() async throws {
        let fixture = try ServerFixture(
            name: "Quota", configuration: .init(port: 0, maximumPendingUploadBytes: 100_000, maximumPendingUploads: 2))
        defer { fixture.library.remove() }
        let phone = try fixture.token("phone", .authorized, accessLevel: .addOnly)
        let other = try fixture.token("other", .authorized, accessLevel: .addOnly)
        let photo = try Data(contentsOf: try fixture.library.makeImage("a.jpg", width: 64, height: 48))
        let big = photo + Data(repeating: 7, count: 60_000 - photo.count)
        try await fixture.test { client in
            func upload(_ bytes: Data, _ token: String) async throws -> ServerResponse {
                try await client.execute(
                    uri: "/v1/uploads?filename=a.jpg", method: .post, headers: [.authorization: "Bearer \(token)"],
                    body: ByteBuffer(bytes: [UInt8](bytes)))
            }
            let first = try await upload(big, phone)
            #expect(first.status == .created)
            let over = try await upload(big, phone)
            #expect(over.status == .contentTooLarge, "60 kB more than 100 kB allows")
            #expect(try await upload(big, other).status == .created, "the quota is each client's")
            // The count: one small upload fits the bytes, a second one is one too many.
            #expect(try await upload(photo, phone).status == .created)
            #expect(try await upload(photo, phone).status == .contentTooLarge)
            // Importing frees the place.
            let id = try #require(first.json["upload"] as? String)
            let created = try await client.call("/v1/assets", .post, token: phone, json: ["uploads": [id]])
            #expect(created.status == .ok, "\(created.json)")
            #expect(try await upload(photo, phone).status == .created)
        }
    }
}

/// The small things a client meets: a range in an unknown unit, a file name that is not ASCII, a JSON body over the
/// limit, an empty `If-Match`, what an add-only client is told.
@Suite("Server answers at the edges")
struct ServerAnswerTests {
    @Test func rangesNamesBodiesPreconditionsAndAccessMessages() async throws {
        let fixture = try ServerFixture(name: "Answers")
        defer { fixture.library.remove() }
        let file = fixture.library.scratch.appendingPathComponent("Été ✈ 2024.jpg")
        try TestMedia.writeImage(to: file, width: 40, height: 30)
        let id = urlID(try #require(try fixture.library.library.importItems(at: [file]).importedLocalIdentifiers.first))
        let token = try fixture.token("phone", .authorized)
        let adder = try fixture.token("adder", .authorized, accessLevel: .addOnly)
        let size = try Data(contentsOf: file).count
        try await fixture.test { client in
            // RFC 9110 §14.2: a Range in a unit the server does not know is ignored — the whole file, 200.
            let items = try await client.call("/v1/assets/\(id)/resources/photo", token: token, headers: [.range: "items=0-5"])
            #expect(items.status == .ok && items.body.readableBytes == size)
            let bytes = try await client.call("/v1/assets/\(id)/resources/photo", token: token, headers: [.range: "bytes=0-9"])
            #expect(bytes.status == .partialContent && bytes.body.readableBytes == 10)
            // The name: an ASCII fallback and the exact UTF-8 name (RFC 6266), never raw UTF-8 in the header.
            let disposition = items.headers[.contentDisposition] ?? ""
            #expect(disposition.contains("filename*=UTF-8''%C3%89t%C3%A9%20%E2%9C%88%202024.jpg"), "\(disposition)")
            let ascii = disposition.unicodeScalars.allSatisfy { $0.isASCII }
            #expect(ascii, "\(disposition)")
            // A JSON body over the limit: 413 with a JSON error that says the limit.
            let huge = "{\"changes\": [\"" + String(repeating: "x", count: 2 << 20) + "\"]}"
            let tooLarge = try await client.execute(
                uri: "/v1/changes", method: .post, headers: [.authorization: "Bearer \(token)", .contentType: "application/json"],
                body: ByteBuffer(string: huge))
            #expect(tooLarge.status == .contentTooLarge)
            #expect((tooLarge.json["error"] as? [String: Any])?["message"] as? String != nil, "an empty 413")
            // An empty If-Match is malformed, not a version that does not match.
            let empty = try await client.execute(
                uri: "/v1/assets/\(id)/edit", method: .put, headers: [.authorization: "Bearer \(token)", .ifMatch: ""],
                body: ByteBuffer(string: #"{"steps":[{"exposure":{"ev":0.5}}]}"#))
            #expect(empty.status == .badRequest, "\(empty.status)")
            // An add-only client is told it has add-only access and who can change that.
            let denied = try await client.call("/v1/assets/\(id)", token: adder)
            let message = (denied.json["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(denied.status == .forbidden && message.contains("add-only access") && message.contains("photos grant"), "\(message)")
            #expect(!message.contains("requestAuthorization"))
        }
    }
}

/// An add-only client learned which files the library holds from duplicate answers (the existing asset's id). A file
/// the library already has is now taken from it as a new asset, as PhotoKit's add-only access does: the answer is the
/// same as for a file the library did not have.
@Suite("What an add-only client is told")
struct AddOnlyAnswerTests {
    @Test(arguments: LibraryProviders.all) func aFileTheLibraryHasIsAnsweredLikeANewOne(_ provider: any LibraryProvider) async throws {
        let fixture = try ServerFixture(name: "AddOnlyDuplicates", provider: provider)
        defer { fixture.library.remove() }
        let existing = try fixture.library.makeImage("known.jpg", width: 50, height: 40)
        _ = try fixture.library.library.importItems(at: [existing])
        let fresh = try fixture.library.makeImage("fresh.jpg", width: 60, height: 40)
        let adder = try fixture.token("camera", .authorized, accessLevel: .addOnly)
        let limited = try fixture.token("frame", .limited)
        try await fixture.test { client in
            var shapes: [[String]] = []
            for file in [existing, fresh] {
                let sent = try await client.execute(
                    uri: "/v1/uploads?filename=\(file.lastPathComponent)", method: .post, headers: [.authorization: "Bearer \(adder)"],
                    body: ByteBuffer(bytes: [UInt8](try Data(contentsOf: file))))
                let id = try #require(sent.json["upload"] as? String)
                let created = try await client.call("/v1/assets", .post, token: adder, json: ["uploads": [id]])
                #expect(created.status == .ok)
                #expect(
                    (created.json["created"] as? [String])?.count == 1 && (created.json["duplicates"] as? [Any])?.isEmpty == true, "\(created.json)")
                shapes.append(created.json.keys.sorted())
            }
            #expect(shapes[0] == shapes[1])
            // A limited client sees only its selection: the library's other files are not told to it either.
            let framed = try await client.execute(
                uri: "/v1/uploads?filename=known.jpg", method: .post, headers: [.authorization: "Bearer \(limited)"],
                body: ByteBuffer(bytes: [UInt8](try Data(contentsOf: existing))))
            let upload = try #require(framed.json["upload"] as? String)
            let created = try await client.call("/v1/assets", .post, token: limited, json: ["uploads": [upload]])
            #expect((created.json["created"] as? [String])?.count == 1 && (created.json["duplicates"] as? [Any])?.isEmpty == true, "\(created.json)")
        }
        #expect(PHAsset.fetchAssets(with: fixture.library.options()).count == 4)
    }
}

/// The gallery's cookie held the raw token for 30 days (and the page kept it in localStorage), with no way to sign
/// out. Signing in now makes a session token of its own; it writes only with `X-Requested-With`; signing out revokes
/// it and leaves the token signed in with working.
@Suite("Gallery sessions")
struct GallerySessionTests {
    @Test(arguments: LibraryProviders.all) func aSessionIsItsOwnTokenAndSigningOutRevokesIt(_ provider: any LibraryProvider) async throws {
        let fixture = try ServerFixture(name: "Sessions", provider: provider)
        defer { fixture.library.remove() }
        let id = urlID(try fixture.library.addImages(1)[0])
        let token = try fixture.token("browser", .authorized)
        try await fixture.test { client in
            let signIn = try await client.call("/v1/session", .post, token: token)
            #expect(signIn.status == .ok)
            let setCookie = signIn.headers[.setCookie] ?? ""
            #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"), "\(setCookie)")
            let value = String(setCookie.split(separator: ";")[0].split(separator: "=", maxSplits: 1)[1])
            #expect(!value.isEmpty && value != token, "the cookie is the sign-in token itself")
            let cookie: HTTPFields = [.cookie: "photos_token=\(value)"]
            #expect(try await client.call("/v1/assets/\(id)", headers: cookie).status == .ok)
            // A write with the cookie alone (what a forged cross-site form would send) is not authenticated …
            let forged = try await client.call("/v1/assets/\(id)", .patch, headers: cookie, json: ["isFavorite": true])
            #expect(forged.status == .unauthorized)
            // … with the header the page sends, it is.
            var gallery = cookie
            gallery[HTTPField.Name("X-Requested-With")!] = "OpenPhotoKit"
            let write = try await client.call("/v1/assets/\(id)", .patch, headers: gallery, json: ["isFavorite": true])
            #expect(write.status == .ok, "\(write.json)")
            // Signing out revokes the session; the token signed in with still works.
            #expect(try await client.call("/v1/session", .delete, headers: gallery).status == .noContent)
            #expect(try await client.call("/v1/assets/\(id)", headers: cookie).status == .unauthorized)
            #expect(try await client.call("/v1/assets/\(id)", token: token).status == .ok)
        }
    }
}

/// Fields of the wrong type were ignored instead of refused: an altitude given as text was dropped and the change
/// applied without it; `true` passed as a latitude.
@Suite("Fields of the wrong type")
struct WrongTypeFieldTests {
    @Test func wrongTypesAreRefusedAndNothingChanges() async throws {
        let fixture = try ServerFixture(name: "WrongTypes")
        defer { fixture.library.remove() }
        let id = urlID(try fixture.library.addImages(1)[0])
        let token = try fixture.token("phone", .authorized)
        try await fixture.test { client in
            for location: [String: Any] in [
                ["latitude": 48.8, "longitude": 2.3, "altitude": "high"], ["latitude": true, "longitude": 2.3],
                ["latitude": "48.8", "longitude": 2.3],
            ] {
                let answer = try await client.call("/v1/assets/\(id)", .patch, token: token, json: ["location": location])
                #expect(answer.status == .badRequest, "\(location): \(answer.status)")
            }
            #expect(try await client.call("/v1/assets/\(id)", .patch, token: token, json: ["isFavorite": "yes"]).status == .badRequest)
            let asset = try await client.call("/v1/assets/\(id)", token: token)
            #expect(asset.json["location"] == nil || asset.json["location"] is NSNull, "\(asset.json)")
            #expect(asset.json["isFavorite"] as? Bool == false)
            let good = try await client.call(
                "/v1/assets/\(id)", .patch, token: token, json: ["location": ["latitude": 48.8, "longitude": 2.3, "altitude": 35]])
            #expect(good.status == .ok, "\(good.json)")
        }
    }
}

/// A path the API has, asked with a method it does not answer there, is 405 with Allow (it was 404, as if the path
/// did not exist); a path it does not have stays 404.
@Suite("Methods not allowed")
struct MethodNotAllowedTests {
    @Test func wrongMethodsAre405WithAllow() async throws {
        let fixture = try ServerFixture(name: "Methods")
        defer { fixture.library.remove() }
        let id = urlID(try fixture.library.addImages(1)[0])
        let token = try fixture.token("phone", .authorized)
        try await fixture.test { client in
            let put = try await client.call("/v1/assets/\(id)", .put, token: token)
            #expect(put.status == .methodNotAllowed)
            let allowed = Set((put.headers[.allow] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            #expect(allowed == ["GET", "HEAD", "PATCH", "DELETE"], "\(allowed)")
            #expect(put.error?.code == 405)
            let changes = try await client.call("/v1/changes", .delete, token: token)
            #expect(changes.status == .methodNotAllowed && changes.headers[.allow]?.contains("POST") == true)
            #expect(try await client.call("/v1/nothing-here", .delete, token: token).status == .notFound)
        }
    }
}

/// What schemathesis found the OpenAPI document and the server disagreeing on: empty query values (now the same as
/// none), the content types of resources and images (documented), resource types (an enum), a folder's assets and an
/// album's children (404, not 400).
@Suite("The API as its document says")
struct OpenAPIAgreementTests {
    @Test func emptyParametersResourceTypesAndCollections() async throws {
        let fixture = try ServerFixture(name: "Agreement")
        defer { fixture.library.remove() }
        let id = urlID(try fixture.library.addImages(1)[0])
        let token = try fixture.token("phone", .authorized)
        var folderID = ""
        try fixture.library.library.performChangesAndWait {
            folderID =
                PHCollectionListChangeRequest.creationRequestForCollectionList(withTitle: "Trips").placeholderForCreatedCollectionList
                .localIdentifier
        }
        let folderURLID = urlID(folderID)
        try await fixture.test { client in
            #expect(try await client.call("/v1/assets?predicate=&cursor=&limit=1", token: token).status == .ok)
            #expect(try await client.call("/v1/assets/\(id)/image?size=", token: token).status == .ok)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8)) as? [String: Any])
            let paths = try #require(document["paths"] as? [String: [String: Any]])
            let resource = try #require((paths["/v1/assets/{id}/resources/{type}"]?["get"] as? [String: Any]))
            let parameters = try #require(resource["parameters"] as? [[String: Any]])
            // By name (the string alternative's enum) or by raw value.
            let schema = parameters.first { $0["name"] as? String == "type" }?["schema"] as? [String: Any]
            let types = (schema?["anyOf"] as? [[String: Any]])?.first { $0["type"] as? String == "string" }?["enum"] as? [String]
            #expect(types?.contains("fullSizePhoto") == true && types?.contains("pairedVideo") == true)
            let folder = try await client.call("/v1/collections/\(folderURLID)/assets", token: token)
            #expect(folder.status == .notFound, "\(folder.status)")
        }
    }
}
