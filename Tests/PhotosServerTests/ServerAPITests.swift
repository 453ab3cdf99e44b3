import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import OpenPhotos
import PhotosTesting
import Testing

@testable import PhotosServer

/// The `/v1` API through Hummingbird's router test client: authentication for every access level, keyset pages
/// under concurrent inserts, transactions, images and ranges, the history, errors.
@Suite("Server API")
struct ServerAPITests {
    @Test(arguments: LibraryProviders.all) func tokensActWithTheirClientsAccessLevelAtEachRequest(_ provider: any LibraryProvider) async throws {
        let fixture = try ServerFixture(name: "Auth", provider: provider)
        defer { fixture.library.remove() }
        let ids = try fixture.library.addImages(3)
        let owner = fixture.library.library
        let readWrite = try fixture.token("phone", .authorized)
        let limited = try fixture.token("frame", .limited, selection: [ids[1]])
        let addOnly = try fixture.token("scanner", .authorized, accessLevel: .addOnly)
        let undecided = try fixture.token("stranger", nil)
        try await fixture.test { client in
            let anonymous = try await client.call("/v1/assets")
            #expect(anonymous.status == .unauthorized && anonymous.headers[.wwwAuthenticate] == "Bearer realm=\"photos\"")
            #expect(anonymous.error?.domain == "OpenPhotoKit.HTTP" && anonymous.error?.code == 401)
            #expect(try await client.call("/v1/assets", token: "opk_0000_forged").status == .unauthorized)
            #expect(try await client.call("/v1/assets", headers: [.authorization: "Basic eDp5"]).status == .unauthorized)

            let all = try await client.call("/v1/assets", token: readWrite)
            #expect(all.status == .ok)
            #expect((all.json["assets"] as? [[String: Any]])?.compactMap { $0["localIdentifier"] as? String } == ids)
            let selection = try await client.call("/v1/assets", token: limited)
            #expect((selection.json["assets"] as? [[String: Any]])?.compactMap { $0["localIdentifier"] as? String } == [ids[1]])
            #expect(try await client.call("/v1/assets/\(urlID(ids[0]))", token: limited).status == .notFound, "outside the selection")
            for token in [addOnly, undecided] {
                let denied = try await client.call("/v1/assets", token: token)
                #expect(denied.status == .forbidden)
                #expect(denied.error?.domain == PHPhotosErrorDomain && denied.error?.code == PHPhotosError.Code.accessUserDenied.rawValue)
            }
            // Limited clients have no history (as on Apple platforms).
            #expect(try await client.call("/v1/changes/token", token: limited).status == .ok)
            #expect(try await client.call("/v1/changes/stream", token: limited).status == .forbidden)

            // Grants and revocations apply at the next request.
            try owner.setAuthorization(.denied, for: "frame")
            #expect(try await client.call("/v1/assets", token: limited).status == .forbidden)
            try owner.revokeAccessTokens(matching: "phone")
            #expect(try await client.call("/v1/assets", token: readWrite).status == .unauthorized)

            // Public routes.
            #expect(try await client.call("/healthz").json["status"] as? String == "ok")
            #expect(try await client.call("/openapi.json").json["openapi"] as? String == "3.1.0")
        }
        #expect(try owner.accessTokens().map(\.clientIdentifier).sorted() == ["frame", "scanner", "stranger"])
    }

    @Test(arguments: LibraryProviders.all) func keysetPagesAreExactWhileAssetsAreInserted(_ provider: any LibraryProvider) async throws {
        let fixture = try ServerFixture(name: "Pages", provider: provider)
        defer { fixture.library.remove() }
        let day: TimeInterval = 86_400
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let ids = try fixture.library.addImages(10, startingAt: start, step: day)  // days 0…9
        let token = try fixture.token("phone", .authorized)
        let library = fixture.library
        try await fixture.test { client in
            func page(_ query: String) async throws -> (ids: [String], next: String?) {
                let response = try await client.call("/v1/assets?\(query)", token: token)
                #expect(response.status == .ok, "\(response.json)")
                let assets = response.json["assets"] as? [[String: Any]] ?? []
                return (assets.compactMap { $0["localIdentifier"] as? String }, response.json["nextCursor"] as? String)
            }
            let first = try await page("sort=-creationDate&limit=4")
            #expect(first.ids == [ids[9], ids[8], ids[7], ids[6]])
            let cursor = try #require(first.next)
            // Meanwhile: one before the cursor (already passed), one after it, one newer than everything.
            let passed = try library.addImages(1, startingAt: start.addingTimeInterval(8.5 * day))[0]
            let ahead = try library.addImages(1, startingAt: start.addingTimeInterval(4.5 * day))[0]
            _ = try library.addImages(1, startingAt: start.addingTimeInterval(20 * day))
            _ = passed
            let second = try await page("sort=-creationDate&limit=4&cursor=\(cursor)")
            #expect(second.ids == [ids[5], ahead, ids[4], ids[3]])
            let third = try await page("sort=-creationDate&limit=4&cursor=\(try #require(second.next))")
            #expect(third.ids == [ids[2], ids[1], ids[0]] && third.next == nil)

            // Ties on the sort key are broken by the row: every asset exactly once.
            let tied = try library.addImages(3, startingAt: start.addingTimeInterval(-day), step: 0)
            var seen: [String] = []
            var next: String? = nil
            repeat {
                let one = try await page(
                    "sort=creationDate&limit=1&predicate=creationDate%20%3C%20CAST(\(start.timeIntervalSinceReferenceDate - 1),%20%22NSDate%22)"
                        + (next.map { "&cursor=\($0)" } ?? ""))
                seen += one.ids
                next = one.next
            } while next != nil && seen.count < 10
            #expect(seen == tied)

            // A cursor belongs to its fetch.
            let foreign = try await client.call("/v1/assets?sort=creationDate&cursor=\(cursor)", token: token)
            #expect(foreign.status == .badRequest)
            #expect(try await client.call("/v1/assets?cursor=garbage", token: token).status == .badRequest)
        }
    }

    @Test(arguments: LibraryProviders.all) func transactionsApplyEverythingOrNothing(_ provider: any LibraryProvider) async throws {
        let fixture = try ServerFixture(name: "Transactions", provider: provider)
        defer { fixture.library.remove() }
        let ids = try fixture.library.addImages(3)
        let (a, b) = (urlID(ids[0]), urlID(ids[1]))
        let token = try fixture.token("phone", .authorized)
        let limited = try fixture.token("frame", .limited, selection: [ids[0]])
        let owner = fixture.library.library
        let before = owner.currentChangeToken
        let favorites = "5A4A7A1B-0000-4000-8000-0000000000CB_L0_040"
        try await fixture.test { client in
            // Refused before anything is applied: a smart album cannot be edited; an asset that does not exist.
            let smart = try await client.call(
                "/v1/changes", .post, token: token,
                json: ["changes": [["op": "updateAsset", "asset": a, "isFavorite": true], ["op": "addToAlbum", "album": favorites, "assets": [b]]]])
            #expect(smart.status == .unprocessableContent || smart.status == .badRequest, "\(smart.json)")
            let missing = try await client.call(
                "/v1/changes", .post, token: token,
                json: ["changes": [["op": "updateAsset", "asset": a, "isFavorite": true], ["op": "deleteAssets", "assets": [UUID().uuidString]]]])
            #expect(missing.status == .notFound && missing.error?.code == PHPhotosError.Code.identifierNotFound.rawValue)
            // Refused by the library while committing: a limited client may not make albums; its first change goes too.
            let refused = try await client.call(
                "/v1/changes", .post, token: limited,
                json: ["changes": [["op": "updateAsset", "asset": a, "isFavorite": true], ["op": "createAlbum", "title": "Mine"]]])
            #expect(refused.status == .forbidden && refused.error?.domain == PHPhotosErrorDomain, "\(refused.json)")
            #expect(owner.currentChangeToken == before, "nothing was applied")

            // Malformed: never a 500.
            let bodies: [[String: Any]] = [
                ["changes": []], ["changes": [["op": "explode"]]], ["changes": [["op": "updateAsset", "asset": a, "isFavorite": 1]]],
                ["changes": [["op": "updateAsset", "asset": a, "isFavorite": true, "colour": "red"]]], ["changes": [], "extra": 1],
                ["changes": [["op": "updateAsset", "asset": a, "creationDate": "yesterday"]]],
            ]
            for body in bodies {
                let response = try await client.call("/v1/changes", .post, token: token, json: body)
                #expect(response.status == .badRequest, "\(body): \(response.json)")
            }
            let garbage = try await client.execute(
                uri: "/v1/changes", method: .post, headers: [.authorization: "Bearer \(token)"], body: ByteBuffer(string: "{"))
            #expect(garbage.status == .badRequest)
            let huge = try await client.execute(
                uri: "/v1/changes", method: .post, headers: [.authorization: "Bearer \(token)"],
                body: ByteBuffer(repeating: UInt8(ascii: " "), count: 2 << 20))
            #expect(huge.status == .contentTooLarge)
            #expect(owner.currentChangeToken == before)

            // Applied together.
            let applied = try await client.call(
                "/v1/changes", .post, token: token,
                json: [
                    "changes": [
                        ["op": "createAlbum", "title": "Trip", "assets": [a, b]],
                        ["op": "updateAsset", "asset": a, "isHidden": true, "isFavorite": true],
                    ]
                ])
            #expect(applied.status == .ok, "\(applied.json)")
            let album = try #require((applied.json["created"] as? [String: String])?["0"])
            let members = try await client.call("/v1/collections/\(album)/assets?includeHidden=true", token: token)
            #expect((members.json["assets"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [a, b])
            let changed = try await client.call("/v1/assets/\(a)", token: token)
            #expect(changed.json["isHidden"] as? Bool == true && changed.json["isFavorite"] as? Bool == true)

            // The single-asset shortcuts.
            #expect(try await client.call("/v1/assets/\(b)", .patch, token: token, json: ["isFavorite": true]).json["isFavorite"] as? Bool == true)
            // iOS 27's metadata: rating, caption, keywords added and removed; in every page of a list too.
            let described = try await client.call(
                "/v1/assets/\(b)", .patch, token: token,
                json: ["rating": 4, "caption": "Trip — day 1", "addKeywords": ["sea", "Sea", "sea"], "removeKeywords": ["none"]])
            #expect(described.json["rating"] as? Int == 4 && described.json["caption"] as? String == "Trip — day 1")
            #expect(described.json["keywords"] as? [String] == ["sea", "Sea"])
            let cleared = try await client.call(
                "/v1/assets/\(b)", .patch, token: token, json: ["caption": NSNull(), "removeKeywords": ["Sea"], "rating": 0])
            #expect(cleared.json["caption"] == nil && cleared.json["keywords"] as? [String] == ["sea"] && cleared.json["rating"] as? Int == 0)
            let listed = try await client.call("/v1/assets?predicate=rating%20%3D%3D%200&includeHidden=true", token: token)
            let rows = try #require(listed.json["assets"] as? [[String: Any]])
            #expect(rows.first { $0["id"] as? String == b }?["keywords"] as? [String] == ["sea"])
            for bad: [String: Any] in [["rating": 6], ["rating": true], ["rating": 2.5], ["caption": 3], ["addKeywords": "sea"]] {
                #expect(try await client.call("/v1/assets/\(b)", .patch, token: token, json: bad).status == .badRequest, "\(bad)")
            }
            #expect(try await client.call("/v1/assets/\(b)", .patch, token: token, json: ["addKeywords": [" "]]).status.code == 422)
            // Search: q finds the keyword; a second word narrows; a long q is refused.
            let searched = try await client.call("/v1/assets?q=SEA&includeHidden=true", token: token)
            #expect((searched.json["assets"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [b])
            let narrowed = try await client.call("/v1/assets?q=sea%20nothing&includeHidden=true", token: token)
            #expect((narrowed.json["assets"] as? [[String: Any]])?.isEmpty == true)
            let tooLong = String(repeating: "a", count: 513)
            #expect(try await client.call("/v1/assets?q=\(tooLong)", token: token).status == .badRequest)
            #expect(try await client.call("/v1/assets/\(b)", .delete, token: token).status == .noContent)
            #expect(try await client.call("/v1/assets/\(b)", token: token).json["trashedDate"] != nil)
            let recovered = try await client.call("/v1/assets/\(b)/recover", .post, token: token)
            #expect(recovered.status == .ok && recovered.json["trashedDate"] == nil)
        }
    }

    @Test(arguments: LibraryProviders.all) func imagesHaveStrongETagsAndResourcesServeByteRanges(_ provider: any LibraryProvider) async throws {
        let fixture = try ServerFixture(name: "Images", provider: provider)
        defer { fixture.library.remove() }
        let id = try fixture.library.addImages(1)[0]
        let token = try fixture.token("phone", .authorized)
        let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [id], options: fixture.library.options()).firstObject)
        let resource = try #require(PHAssetResource.assetResources(for: asset).first { $0.type == .photo })
        let file = [UInt8](try Data(contentsOf: try #require(resource.fileURL)))
        try await fixture.test { client in
            let image = try await client.call("/v1/assets/\(urlID(id))/image?size=32x32&mode=fit", token: token)
            #expect(image.status == .ok && image.headers[.contentType] == "image/jpeg")
            #expect(image.headers[.cacheControl] == "private, max-age=31536000, immutable")
            let etag = try #require(image.headers[.eTag])
            #expect(etag.hasPrefix("\"\(resource.sha256.prefix(32))-32x32-fit"))
            let decoded = try #require(UIImage(data: Data(image.bytes)))
            #expect((decoded.size.width, decoded.size.height) == (32, 24), "fit in 32x32 keeps 4:3")
            let again = try await client.call("/v1/assets/\(urlID(id))/image?size=32x32&mode=fit", token: token, headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified && again.bytes.isEmpty)
            let other = try await client.call("/v1/assets/\(urlID(id))/image?size=32x32&mode=fill&format=webp", token: token)
            #expect(other.headers[.eTag] != etag && other.headers[.contentType] == "image/webp")
            #expect(try await client.call("/v1/assets/\(urlID(id))/image?size=0x9", token: token).status == .badRequest)

            let uri = "/v1/assets/\(urlID(id))/resources/photo"
            let whole = try await client.call(uri, token: token)
            #expect(whole.status == .ok && whole.bytes == file && whole.headers[.acceptRanges] == "bytes")
            let middle = try await client.call(uri, token: token, headers: [.range: "bytes=10-19"])
            #expect(middle.status == .partialContent && middle.bytes == Array(file[10..<20]))
            #expect(middle.headers[.contentRange] == "bytes 10-19/\(file.count)")
            let tail = try await client.call(uri, token: token, headers: [.range: "bytes=-5"])
            #expect(tail.bytes == Array(file.suffix(5)))
            let beyond = try await client.call(uri, token: token, headers: [.range: "bytes=\(file.count)-"])
            #expect(beyond.status == .rangeNotSatisfiable && beyond.headers[.contentRange] == "bytes */\(file.count)")
            #expect(try await client.call("/v1/assets/\(urlID(id))/resources/fullSizePhoto", token: token).status == .notFound)
            #expect(try await client.call("/v1/assets/\(urlID(id))/resources/nonsense", token: token).status == .badRequest)
        }
    }

    @Test(arguments: LibraryProviders.all) func theHistoryIsPagedAndBadTokensAreClearErrors(_ provider: any LibraryProvider) async throws {
        let fixture = try ServerFixture(name: "History", provider: provider)
        defer { fixture.library.remove() }
        let ids = try fixture.library.addImages(2)
        let token = try fixture.token("phone", .authorized)
        let library = fixture.library
        try await fixture.test { client in
            let start = try #require(try await client.call("/v1/changes/token", token: token).json["token"] as? String)
            for (index, id) in ids.enumerated() {
                let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [id], options: library.options()).firstObject)
                try library.library.performChangesAndWait { PHAssetChangeRequest(for: asset).isFavorite = index == 0 }
            }
            try library.library.performChangesAndWait { _ = PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "New") }
            let first = try await client.call("/v1/changes?since=\(start)&limit=2", token: token)
            let changes = try #require(first.json["changes"] as? [[String: Any]])
            #expect(changes.count == 2 && first.json["more"] as? Bool == true)
            #expect((changes[0]["assets"] as? [String: [String]])?["updated"] == [urlID(ids[0])])
            #expect(changes[1]["token"] as? String == first.json["token"] as? String)
            let rest = try await client.call("/v1/changes?since=\(try #require(first.json["token"] as? String))", token: token)
            let last = try #require(rest.json["changes"] as? [[String: Any]])
            #expect(last.count == 1 && (last[0]["assetCollections"] as? [String: [String]])?["inserted"]?.count == 1)
            #expect(rest.json["more"] as? Bool == false)

            #expect(try await client.call("/v1/changes?since=nonsense", token: token).status == .badRequest)
            #expect(try await client.call("/v1/changes", token: token).status == .badRequest)
            let foreign = PHPersistentChangeToken.fromWireForm(start).map { _ in
                Data(#"{"library":"another","transaction":1}"#.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
            }
            let other = try await client.call("/v1/changes?since=\(try #require(foreign))", token: token)
            #expect(other.status == .notFound && other.error?.code == PHPhotosError.Code.identifierNotFound.rawValue)
        }
    }

    @Test func everyRouteIsInTheOpenAPIDocumentAndTheEmbeddedFilesAreCurrent() throws {
        let fixture = try ServerFixture(name: "OpenAPI")
        defer { fixture.library.remove() }
        let routes = Set(
            fixture.server.makeRouter().routes.map { route in
                let path = route.path.description.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
                return "\(route.method.rawValue.lowercased()) /\(path.joined(separator: "/"))"
            })
        let document = try #require(try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8)) as? [String: Any])
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let documented = Set(paths.flatMap { path, methods in methods.keys.map { "\($0) \(path)" } })
        #expect(routes.subtracting(documented).isEmpty, "routes missing from openapi.json: \(routes.subtracting(documented).sorted())")
        #expect(documented.subtracting(routes).isEmpty, "documented routes that do not exist: \(documented.subtracting(routes).sorted())")

        // scripts/embed-web.sh was run after the last edit of Sources/PhotosServer/Embedded.
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/PhotosServer/Embedded")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == EmbeddedFiles.files.keys.sorted())
        for name in names {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            #expect(
                text.hasSuffix("\n") ? String(text.dropLast()) == EmbeddedFiles.files[name]?.text : text == EmbeddedFiles.files[name]?.text,
                "\(name): run scripts/embed-web.sh")
        }
    }

    @Test func datesAreISO8601InUTCWithMillisecondsWhenThereAreAny() {
        #expect(FastISO8601.string(Date(timeIntervalSince1970: 1_700_000_000)) == "2023-11-14T22:13:20Z")
        #expect(FastISO8601.string(Date(timeIntervalSince1970: 1_700_000_000.25)) == "2023-11-14T22:13:20.250Z")
        #expect(FastISO8601.string(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
        #expect(FastISO8601.string(Date(timeIntervalSince1970: 59.9996)) == "1970-01-01T00:01:00Z")
    }

    @Test func internetDatesAreReadAsTheFormatterReadsThem() throws {
        let formatter = ISO8601DateFormatter()
        var generator = SystemRandomNumberGenerator()
        // Every kind of day (leap years, month ends, before 1970) in UTC and with offsets either way.
        for _ in 0..<2000 {
            let date = Date(timeIntervalSince1970: TimeInterval(Int64.random(in: -5_000_000_000...8_000_000_000, using: &generator)))
            for zone in [0, 3600, -18_000, 19_800, 50_400, -43_200] {
                formatter.timeZone = TimeZone(secondsFromGMT: zone)
                let text = formatter.string(from: date)
                #expect(FastISO8601.date(text) == date, "\(text)")
                #expect(ISO8601.parseWhole(text) == formatter.date(from: text))
            }
        }
        #expect(FastISO8601.date("2024-02-29T23:59:59Z") == formatter.date(from: "2024-02-29T23:59:59Z"))
        // What it does not read it leaves to the formatter: nil here.
        for text in [
            "2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-01-01 00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T00:60:00Z",
            "2024-01-01T00:00:00+0100", "2024-01-01T00:00:00+01:60", "0000-01-01T00:00:00Z", "2024-01-01T00:00:0aZ", "",
        ] {
            #expect(FastISO8601.date(text) == nil, "\(text)")
        }
    }

    @Test(arguments: LibraryProviders.all) func badRequestsGetJSONErrorsNeverA500(_ provider: any LibraryProvider) async throws {
        let fixture = try ServerFixture(name: "Errors", provider: provider)
        defer { fixture.library.remove() }
        _ = try fixture.library.addImages(1)
        let token = try fixture.token("phone", .authorized)
        try await fixture.test { client in
            for (uri, status) in [
                ("/v1/assets?limit=0", HTTPResponse.Status.badRequest), ("/v1/assets?limit=many", .badRequest),
                ("/v1/assets?predicate=favorite%20%3D%3D", .badRequest), ("/v1/assets?sort=filename", .badRequest),
                ("/v1/assets?mediaType=hologram", .badRequest), ("/v1/assets?includeHidden=perhaps", .badRequest),
                ("/v1/assets/\(UUID().uuidString)", .notFound), ("/v1/assets/%ZZ", .badRequest), ("/v1/collections?type=shoebox", .badRequest),
                ("/v1/collections/nothing_L0_040", .notFound), ("/v1/nowhere", .notFound),
            ] {
                let response = try await client.call(uri, token: token)
                #expect(response.status == status, "\(uri): \(response.json)")
                #expect(response.error != nil && response.headers[.contentType]?.hasPrefix("application/json") == true, "\(uri)")
            }
        }
    }
}
