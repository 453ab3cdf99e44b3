import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import OpenPhotos

/// `/v1/upload-jobs`: a remote PhotoKit client's background upload jobs in this library (iOS 26.1's
/// `PHAssetResourceUploadJob`): the jobs an action applies to (`GET ?action=`), and the client's background upload
/// options (`GET` / `PUT /options`). Jobs are made, acknowledged, retried and cancelled in change blocks
/// (`POST /v1/changes`, `{"request": "uploadJob"}`); whoever runs this library's upload host performs them.
struct UploadJobRoutes {
    let services: ServerServices

    func register(on group: RouterGroup<PhotosRequestContext>) {
        group.get("upload-jobs") { request, context in
            let session = try context.client()
            try session.requireRead()
            let query = try Query(request, allowed: ["action"])
            let action: PHAssetResourceUploadJob.Action
            switch query["action"] {
            case "process": action = .process
            case "acknowledge": action = .acknowledge
            case "retry": action = .retry
            default: throw APIError.badRequest("give action=process, acknowledge or retry")
            }
            let library = session.library
            let data = try await offload { try library.servedUploadJobs(action: action) }
            return Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        group.get("upload-jobs/options") { request, context in
            let session = try context.client()
            _ = try Query(request, allowed: [])
            let library = session.library
            let options = try await offload { try library.servedUploadJobConfiguration() }
            return try ChangeRoutes.json(["options": options.map { $0 as Any } ?? NSNull()], status: .ok)
        }
        group.put("upload-jobs/options") { request, context in
            let session = try context.client()
            _ = try Query(request, allowed: [])
            let body = try await JSONBody(request, context: context, allowed: ["options"])
            let options: String?
            switch body.fields["options"] {
            case let text as String where text.utf8.count <= 4096: options = text
            case is NSNull: options = nil
            default: throw APIError.badRequest("options must be the options' JSON as a string (at most 4 KiB), or null to disable")
            }
            let library = session.library
            try await offload { try library.setServedUploadJobConfiguration(options) }
            return try ChangeRoutes.json(["options": options.map { $0 as Any } ?? NSNull()], status: .ok)
        }
    }
}
