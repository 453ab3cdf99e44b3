import BuiltInEditor
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import OpenPhotos

/// Editing over HTTP with the built-in editor's recipe (`org.openphotokit.adjustment`, Core Image steps as JSON:
/// `{"steps": [{"exposure": {"ev": 0.5}}, {"look": {"_0": "mono"}}]}`): read it, preview it without committing,
/// save it as a non-destructive edit (rendered from the previous version, as `photos edit` does), revert.
struct EditRoutes {
    let services: ServerServices

    func register(on group: RouterGroup<PhotosRequestContext>) {
        group.get("assets/:id/edit") { request, context in
            let session = try context.client()
            let id = try context.parameters.require("id")
            _ = try Query(request, allowed: [])
            let asset = try await offload { try session.asset(id) }
            return try await offload { try Self.describe(asset) }
        }
        group.put("assets/:id/edit") { request, context in
            let session = try context.client()
            let id = try context.parameters.require("id")
            let recipe = try await Self.recipe(request, context: context)
            let asset = try await offload { try session.asset(id) }
            try await offload { try Self.requireVersion(request, asset) }
            // The rendering runs on OpenPhotos' dispatch queue, not on this thread.
            _ = try await PhotoEditRecipe.edit(asset) { _ in recipe }
            return try await offload { try Self.describe(try session.asset(id)) }
        }
        group.delete("assets/:id/edit") { request, context in
            let session = try context.client()
            let id = try context.parameters.require("id")
            let asset = try await offload { try session.asset(id) }
            try await offload { try Self.requireVersion(request, asset) }
            try await offload { try session.library.performChangesAndWait { PHAssetChangeRequest(for: asset).revertAssetContentToOriginal() } }
            return try await offload { try Self.describe(try session.asset(id)) }
        }
        group.post("assets/:id/edit/preview") { request, context in
            let session = try context.client()
            let id = try context.parameters.require("id")
            let query = try Query(request, allowed: ["size"])
            let (width, height) = try ImageRequest.size(query["size"] ?? "1024x1024")
            let recipe = try await Self.recipe(request, context: context)
            let asset = try await offload { try session.asset(id) }
            // The rendering is OpenPhotos' (decoding and Core Image on its threads); the route holds no pixels.
            let jpeg = try await recipe.preview(of: asset, fittingWidth: width, height: height)
            return Response(
                status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "no-store", .contentLength: String(jpeg.count)],
                body: .init(byteBuffer: ByteBuffer(bytes: jpeg)))
        }
    }

    /// The built-in recipe in the body (at most the adjustment data limit, validated as the editor validates it).
    static func recipe(_ request: Request, context: PhotosRequestContext) async throws -> PhotoEditRecipe {
        var request = request
        let body = try await request.collectBody(upTo: PHAdjustmentData.maximumDataSize)
        let data = Data(body.readableBytesView)
        guard
            let recipe = PhotoEditRecipe(
                adjustmentData: PHAdjustmentData(
                    formatIdentifier: PhotoEditRecipe.formatIdentifier, formatVersion: PhotoEditRecipe.formatVersion, data: data))
        else {
            throw APIError.badRequest(
                "the body must be a recipe {\"steps\": [...]} of at most \(PhotoEditRecipe.maximumSteps) steps with values in range")
        }
        return recipe
    }

    /// `If-Match: "<version>"`: the edit applies only to the version the client saw (412 otherwise).
    static func requireVersion(_ request: Request, _ asset: PHAsset) throws {
        guard let match = request.headers[.ifMatch] else { return }
        guard !match.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw APIError.badRequest("If-Match is empty: send the version the edit was made on, in quotes, or leave the header out")
        }
        let current =
            VersionHash.current(of: PHAssetResource.assetResources(for: asset), rawChosen: asset.originalResourceChoice == .raw) ?? ""
        guard match.trimmingCharacters(in: .whitespaces) == "*" || match.replacingOccurrences(of: "\"", with: "") == current else {
            throw APIError(
                status: .preconditionFailed, domain: APIError.httpDomain, code: 412,
                message: "the asset changed since that version (another edit or a revert); read it again")
        }
    }

    /// The asset's edit: the built-in recipe when it is one (null for another editor's edit), the editor, the
    /// version (for `If-Match`).
    static func describe(_ asset: PHAsset) throws -> Response {
        let resources = PHAssetResource.assetResources(for: asset)
        var recipe: Any = NSNull()
        if let stored = resources.first(where: { $0.type == .adjustmentData })?.storedAdjustment,
            let parsed = PhotoEditRecipe(adjustmentData: stored.data),
            let object = try? JSONSerialization.jsonObject(with: parsed.adjustmentData.data)
        {
            recipe = object
        }
        let version = VersionHash.current(of: resources, rawChosen: asset.originalResourceChoice == .raw) ?? ""
        let body: [String: Any] = [
            "asset": ObjectID.urlForm(asset.localIdentifier), "hasAdjustments": asset.hasAdjustments,
            "adjustmentFormatIdentifier": asset.adjustmentFormatIdentifier ?? NSNull(), "recipe": recipe, "version": version,
        ]
        var response = try ChangeRoutes.json(body, status: .ok)
        response.headers[.eTag] = "\"\(version)\""
        return response
    }
}
