import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import OpenPhotos
import PhotosTesting
import Testing

/// Editing with the built-in recipe over HTTP: preview without committing, save, optimistic concurrency, revert.
@Suite("Editing API")
struct EditingAPITests {
    @Test(arguments: LibraryProviders.all) func aRecipeIsPreviewedSavedAndReverted(_ provider: any LibraryProvider) async throws {
        let fixture = try ServerFixture(name: "EditAPI", provider: provider)
        defer { fixture.library.remove() }
        let id = urlID(try fixture.library.addImages(1)[0])
        let token = try fixture.token("phone", .authorized)
        try await fixture.test { client in
            func send(_ method: HTTPRequest.Method, _ uri: String, _ body: String, headers: HTTPFields = [:]) async throws -> ServerResponse {
                var headers = headers
                headers[.authorization] = "Bearer \(token)"
                return try await client.execute(uri: uri, method: method, headers: headers, body: ByteBuffer(string: body))
            }
            let before = try await client.call("/v1/assets/\(id)/edit", token: token)
            #expect(before.json["hasAdjustments"] as? Bool == false && before.json["recipe"] is NSNull)
            let original = try #require(before.json["version"] as? String)
            let imageBefore = try await client.call("/v1/assets/\(id)/image?size=32x32", token: token)

            let mono = #"{"steps":[{"look":{"_0":"mono"}},{"exposure":{"ev":0.5}}]}"#
            let preview = try await send(.post, "/v1/assets/\(id)/edit/preview?size=32x32", mono)
            #expect(preview.status == .ok && preview.headers[.contentType] == "image/jpeg")
            let previewImage = try #require(UIImage(data: Data(preview.bytes)))
            #expect(max(previewImage.size.width, previewImage.size.height) == 32)
            #expect(try await client.call("/v1/assets/\(id)/edit", token: token).json["version"] as? String == original, "a preview commits nothing")

            let saved = try await send(.put, "/v1/assets/\(id)/edit", mono, headers: [.ifMatch: "\"\(original)\""])
            #expect(saved.status == .ok, "\(saved.json)")
            #expect(
                saved.json["hasAdjustments"] as? Bool == true && saved.json["adjustmentFormatIdentifier"] as? String == "org.openphotokit.adjustment")
            #expect(((saved.json["recipe"] as? [String: Any])?["steps"] as? [Any])?.count == 2)
            let edited = try #require(saved.json["version"] as? String)
            #expect(edited != original)
            let imageAfter = try await client.call("/v1/assets/\(id)/image?size=32x32", token: token)
            #expect(imageAfter.headers[.eTag] != imageBefore.headers[.eTag], "an edit makes new image ETags")

            // A client that saw the original cannot overwrite the edit it did not see.
            let stale = try await send(.put, "/v1/assets/\(id)/edit", #"{"steps":[]}"#, headers: [.ifMatch: "\"\(original)\""])
            #expect(stale.status == .preconditionFailed)
            for bad in [#"{"steps":[{"exposure":{"ev":99}}]}"#, "[]", #"{"steps":[{"sparkle":{}}]}"#] {
                #expect(try await send(.put, "/v1/assets/\(id)/edit", bad).status == .badRequest, "\(bad)")
            }

            let reverted = try await client.call("/v1/assets/\(id)/edit", .delete, token: token, headers: [.ifMatch: "\"\(edited)\""])
            #expect(reverted.status == .ok && reverted.json["hasAdjustments"] as? Bool == false, "\(reverted.json)")
            #expect(reverted.json["version"] as? String == original, "back to the original, bit for bit")
        }
    }
}
