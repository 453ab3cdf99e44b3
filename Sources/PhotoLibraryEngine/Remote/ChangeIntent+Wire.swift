import AsyncHTTPClient
import Foundation
import JSONWriting
import NIOCore
import NIOHTTP1
import NIOPosix

/// The change requests of one change block as a remote PhotoKit client sends them to its server
/// (`POST /v1/changes` `{"requests": […]}`), and as the server reads them back: PhotoKit's changes one for one,
/// with the local identifiers the client chose for the objects it creates (its placeholders), so that the server
/// applies exactly the block the client made, all or nothing. One codec for both sides; the server trusts nothing
/// in it (sizes and identifiers are checked, the client's access is the server's to apply).
package enum ChangeRequestWire {
    /// Requests per block, identifiers per request and membership edits per collection at most.
    package static let maximumRequests = 10_000
    package static let maximumIdentifiers = 10_000

    /// The requests as JSON objects; `changeNotSupported` for one a served library does not take yet. A created
    /// asset's resources are uploaded first (`upload` answers each one's upload id), the requests name them.
    package static func encode(
        _ intents: [ChangeIntent],
        upload: (ResourceInput) throws(LibraryError) -> String = { _ throws(LibraryError) in
            throw .changeNotSupported("creating assets needs the resources uploaded")
        }
    ) throws(LibraryError) -> [[String: Any]] {
        var requests: [[String: Any]] = []
        for intent in intents {
            switch intent {
            case .createAsset(let identifier, let resources, let properties):
                guard properties.origin == nil else { throw .changeNotSupported("a backup's origin is the server's to record") }
                var request: [String: Any] = ["request": "createAsset", "asset": identifier]
                var sent: [[String: Any]] = []
                for resource in resources {
                    var entry: [String: Any] = ["type": resource.type, "upload": try upload(resource)]
                    if let name = resource.originalFilename { entry["filename"] = name }
                    if let type = resource.uniformTypeIdentifier { entry["uniformTypeIdentifier"] = type }
                    sent.append(entry)
                }
                request["resources"] = sent
                encode(properties, into: &request)
                requests.append(request)
            case .updateAsset(let identifier, let properties):
                var request: [String: Any] = ["request": "updateAsset", "asset": identifier]
                encode(properties, into: &request)
                requests.append(request)
            case .revertAssetContent(let identifier):
                requests.append(["request": "revertAssetContent", "asset": identifier])
            case .deleteAssets(let identifiers):
                requests.append(["request": "deleteAssets", "assets": identifiers])
            case .recoverAssets(let identifiers):
                requests.append(["request": "recoverAssets", "assets": identifiers])
            case .createCollection(let identifier, let kind, let title):
                requests.append(["request": "createCollection", "collection": identifier, "kind": kind.rawValue, "title": title])
            case .updateCollection(let identifier, let kind, let title, let edits, let snapshot):
                var request: [String: Any] = ["request": "updateCollection", "kind": kind.rawValue, "edits": edits.map(encode)]
                request["collection"] = identifier ?? NSNull()
                if let title { request["title"] = title }
                if let snapshot { request["snapshot"] = snapshot }
                requests.append(request)
            case .deleteCollections(let identifiers, let kind):
                requests.append(["request": "deleteCollections", "collections": identifiers, "kind": kind.rawValue])
            case .editAssetContent(let identifier, let edit):
                // What the API layer found wrong is said here, as the engine would say it.
                if let problem = edit.problem { throw .invalidResource(problem) }
                guard edit.keptPropertyList == nil else { throw .changeNotSupported("a backup's adjustment file is the server's to keep") }
                var request: [String: Any] = [
                    "request": "editAssetContent", "asset": identifier, "madeFor": edit.madeFor,
                    "rendered": try upload(
                        ResourceInput(type: 0, source: .file(edit.renderedFile, move: false), originalFilename: nil, uniformTypeIdentifier: nil)),
                    "formatIdentifier": edit.formatIdentifier, "formatVersion": edit.formatVersion,
                    "adjustmentData": edit.adjustmentData.base64EncodedString(), "basis": edit.basis.rawValue,
                ]
                if let base = edit.baseContentVersion { request["baseContentVersion"] = base }
                if let video = edit.renderedPairedVideo {
                    request["renderedPairedVideo"] = try upload(
                        ResourceInput(type: 0, source: .file(video, move: false), originalFilename: nil, uniformTypeIdentifier: nil))
                }
                requests.append(request)
            case .uploadJob(let identifier, let change):
                requests.append(encode(job: identifier, change))
            }
        }
        return requests
    }

    private static func encode(_ properties: AssetPropertyChanges, into request: inout [String: Any]) {
        if let date = properties.creationDate { request["creationDate"] = date.map { $0.timeIntervalSince1970 as Any } ?? NSNull() }
        if let location = properties.location {
            request["location"] =
                location.map { place -> Any in
                    var object: [String: Any] = ["latitude": place.latitude, "longitude": place.longitude]
                    if let altitude = place.altitude { object["altitude"] = altitude }
                    return object
                } ?? NSNull()
        }
        if let favorite = properties.isFavorite { request["isFavorite"] = favorite }
        if let hidden = properties.isHidden { request["isHidden"] = hidden }
        if let rating = properties.rating { request["rating"] = rating }
        if let caption = properties.caption { request["caption"] = caption.map { $0 as Any } ?? NSNull() }
        if !properties.keywordEdits.isEmpty {
            request["keywords"] = properties.keywordEdits.map { edit -> [String: String] in
                switch edit {
                case .add(let keyword): ["add": keyword]
                case .remove(let keyword): ["remove": keyword]
                }
            }
        }
        if let enabled = properties.livePhotoVideoPlaybackEnabled { request["livePhotoVideoPlaybackEnabled"] = enabled }
        if let choice = properties.originalChoice { request["originalResourceChoice"] = choice }
    }

    private static func encode(_ edit: MembershipEdit) -> [String: Any] {
        switch edit {
        case .add(let identifiers): ["add": identifiers]
        case .insert(let identifiers, let indexes): ["insert": identifiers, "at": Array(indexes)]
        case .remove(let identifiers): ["remove": identifiers]
        case .removeAt(let indexes): ["removeAt": Array(indexes)]
        case .replace(let indexes, let identifiers): ["replace": identifiers, "at": Array(indexes)]
        case .move(let indexes, let destination): ["move": Array(indexes), "to": destination]
        }
    }

    // MARK: - Reading

    /// The intents the requests say, checked: what the server applies for the client.
    /// - throws: ``LibraryError/invalidResource(_:)`` saying what is wrong (nothing is applied then).
    package static func decode(
        _ requests: [Any],
        upload: (String) throws(LibraryError) -> URL = { _ throws(LibraryError) in
            throw .changeNotSupported("this server takes no uploads in change blocks")
        }
    ) throws(LibraryError) -> [ChangeIntent] {
        guard requests.count <= maximumRequests else { throw .invalidResource("at most \(maximumRequests) change requests per block") }
        var intents: [ChangeIntent] = []
        for (index, item) in requests.enumerated() {
            guard let request = item as? [String: Any], let kind = request["request"] as? String else {
                throw .invalidResource("requests[\(index)] is not a change request ({\"request\": …})")
            }
            let reader = Reader(object: request, path: "requests[\(index)]")
            switch kind {
            case "updateAsset":
                try reader.allow(
                    [
                        "asset", "creationDate", "location", "isFavorite", "isHidden", "rating", "caption", "keywords",
                        "livePhotoVideoPlaybackEnabled", "originalResourceChoice",
                    ])
                intents.append(.updateAsset(localIdentifier: try reader.identifier("asset"), properties: try reader.properties()))
            case "createAsset":
                try reader.allow(
                    [
                        "asset", "resources", "creationDate", "location", "isFavorite", "isHidden", "rating", "caption", "keywords",
                        "livePhotoVideoPlaybackEnabled", "originalResourceChoice",
                    ])
                var resources: [ResourceInput] = []
                let list = try reader.list("resources")
                guard (1...16).contains(list.count) else { throw reader.invalid("resources must list 1 to 16 resources") }
                for (offset, item) in list.enumerated() {
                    guard let object = item as? [String: Any] else { throw reader.invalid("resources[\(offset)] is not an object") }
                    let entry = Reader(object: object, path: "\(reader.path).resources[\(offset)]")
                    try entry.allow(["type", "upload", "filename", "uniformTypeIdentifier"])
                    guard let type = object["type"] as? Int, (1...19).contains(type) else {
                        throw entry.invalid("type must be a PHAssetResourceType")
                    }
                    let id = try entry.string("upload", limit: 128)
                    resources.append(
                        ResourceInput(
                            type: type, source: .file(try upload(id), move: true),
                            originalFilename: object["filename"] == nil ? nil : try entry.string("filename", limit: 1024),
                            uniformTypeIdentifier: object["uniformTypeIdentifier"] == nil
                                ? nil : try entry.string("uniformTypeIdentifier", limit: 255)))
                }
                intents.append(
                    .createAsset(
                        localIdentifier: try reader.newIdentifier("asset", suffix: "/L0/001"), resources: resources,
                        properties: try reader.properties()))
            case "editAssetContent":
                try reader.allow([
                    "asset", "madeFor", "rendered", "renderedPairedVideo", "formatIdentifier", "formatVersion", "adjustmentData", "basis",
                    "baseContentVersion",
                ])
                guard let data = Data(base64Encoded: try reader.string("adjustmentData", limit: 2 << 20)) else {
                    throw reader.invalid("adjustmentData must be base64")
                }
                guard let basis = EditBasis(rawValue: Int(exactly: try reader.number("basis")) ?? -1) else {
                    throw reader.invalid("basis must be 0 (original), 1 (adjustment base) or 2 (current rendering)")
                }
                var base: Int?
                if request["baseContentVersion"] != nil {
                    guard let version = Int(exactly: try reader.number("baseContentVersion")) else {
                        throw reader.invalid("baseContentVersion must be an integer")
                    }
                    base = version
                }
                let video = request["renderedPairedVideo"] == nil ? nil : try upload(try reader.string("renderedPairedVideo", limit: 64))
                intents.append(
                    .editAssetContent(
                        localIdentifier: try reader.identifier("asset"),
                        ContentEdit(
                            renderedFile: try upload(try reader.string("rendered", limit: 64)),
                            formatIdentifier: try reader.string("formatIdentifier", limit: 1024),
                            formatVersion: try reader.string("formatVersion", limit: 1024),
                            adjustmentData: data, basis: basis, baseContentVersion: base, madeFor: try reader.identifier("madeFor"),
                            renderedPairedVideo: video)))
            case "revertAssetContent":
                try reader.allow(["asset"])
                intents.append(.revertAssetContent(localIdentifier: try reader.identifier("asset")))
            case "deleteAssets":
                try reader.allow(["assets"])
                intents.append(.deleteAssets(try reader.identifiers("assets")))
            case "recoverAssets":
                try reader.allow(["assets"])
                intents.append(.recoverAssets(try reader.identifiers("assets")))
            case "createCollection":
                try reader.allow(["collection", "kind", "title"])
                let kind = try reader.kind()
                intents.append(
                    .createCollection(
                        localIdentifier: try reader.newIdentifier("collection", suffix: kind == .assetCollection ? "/L0/040" : "/L0/020"), kind: kind,
                        title: try reader.string("title")))
            case "updateCollection":
                try reader.allow(["collection", "kind", "title", "edits", "snapshot"])
                let collection = request["collection"] is NSNull ? nil : try reader.identifier("collection")
                let edits = try reader.list("edits").enumerated().map { (offset, edit) throws(LibraryError) -> MembershipEdit in
                    guard let object = edit as? [String: Any] else { throw .invalidResource("\(reader.path).edits[\(offset)] is not an object") }
                    return try Reader(object: object, path: "\(reader.path).edits[\(offset)]").membershipEdit()
                }
                let snapshot = request["snapshot"] == nil ? nil : try reader.identifiers("snapshot")
                intents.append(
                    .updateCollection(
                        localIdentifier: collection, kind: try reader.kind(), title: request["title"] == nil ? nil : try reader.string("title"),
                        edits: edits, snapshot: snapshot))
            case "deleteCollections":
                try reader.allow(["collections", "kind"])
                intents.append(.deleteCollections(try reader.identifiers("collections"), kind: try reader.kind()))
            case "uploadJob":
                try reader.allow(["job", "action", "asset", "resourceType", "jobType", "destination"])
                let action = try reader.string("action", limit: 16)
                switch action {
                case "create":
                    guard let resourceType = Int(exactly: try reader.number("resourceType")), (1...255).contains(resourceType),
                        let jobType = Int(exactly: try reader.number("jobType")), (0...1).contains(jobType)
                    else { throw reader.invalid("resourceType must be a PHAssetResourceType and jobType 0 (upload) or 1 (download only)") }
                    let destination = request["destination"] == nil ? nil : try destination(request["destination"], path: reader.path)
                    intents.append(
                        .uploadJob(
                            localIdentifier: try reader.newIdentifier("job", suffix: "/L0/090"),
                            .create(
                                assetLocalIdentifier: try reader.identifier("asset"), resourceType: resourceType, destination: destination,
                                jobType: jobType)))
                case "acknowledge", "cancel":
                    guard request.count == 3 else { throw reader.invalid("\(action) takes only the job") }
                    intents.append(.uploadJob(localIdentifier: try reader.identifier("job"), action == "cancel" ? .cancel : .acknowledge))
                case "retry":
                    guard request["asset"] == nil, request["resourceType"] == nil, request["jobType"] == nil else {
                        throw reader.invalid("retry takes the job and a destination")
                    }
                    let destination = request["destination"] == nil ? nil : try destination(request["destination"], path: reader.path)
                    intents.append(.uploadJob(localIdentifier: try reader.identifier("job"), .retry(destination)))
                default:
                    throw reader.invalid("action must be create, acknowledge, retry or cancel")
                }
            default:
                throw .invalidResource("requests[\(index)]: \(kind.prefix(40).debugDescription) is not a change request this server takes")
            }
        }
        return intents
    }

    /// Reads the fields of one JSON object, checked.
    private struct Reader {
        let object: [String: Any]
        let path: String

        func invalid(_ message: String) -> LibraryError { .invalidResource("\(path): \(message)") }

        func allow(_ names: Set<String>) throws(LibraryError) {
            if let unknown = object.keys.sorted().first(where: { $0 != "request" && !names.contains($0) }) {
                throw invalid("\(unknown.prefix(40).debugDescription) is not a field of this request")
            }
        }

        func string(_ name: String, limit: Int = 8192) throws(LibraryError) -> String {
            guard let value = object[name] as? String, value.utf8.count <= limit else {
                throw invalid("\(name) must be a string of at most \(limit) bytes")
            }
            return value
        }

        /// A local identifier: what this library's identifiers are made of, at most 128 bytes.
        func identifier(_ name: String) throws(LibraryError) -> String {
            try Self.checked(object[name], name: name, path: path)
        }

        /// The identifier a client chose for an object it creates: a UUID and the kind's suffix, as this library makes
        /// them (the UUID names the asset's files and renderings: no other shape is taken).
        func newIdentifier(_ name: String, suffix: String) throws(LibraryError) -> String {
            let text = try identifier(name)
            let prefix = String(text.dropLast(suffix.count))
            guard text.hasSuffix(suffix), let uuid = UUID(uuidString: prefix), uuid.uuidString == prefix else {
                throw invalid("\(name) must be a new local identifier: an upper-case UUID and \(suffix)")
            }
            return text
        }

        static func checked(_ value: Any?, name: String, path: String) throws(LibraryError) -> String {
            guard let text = value as? String, (1...128).contains(text.utf8.count),
                text.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "/-".unicodeScalars.contains($0)) })
            else { throw .invalidResource("\(path): \(name) must be a local identifier") }
            return text
        }

        func list(_ name: String) throws(LibraryError) -> [Any] {
            guard let value = object[name] as? [Any], value.count <= maximumIdentifiers else {
                throw invalid("\(name) must be a list of at most \(maximumIdentifiers) items")
            }
            return value
        }

        func identifiers(_ name: String) throws(LibraryError) -> [String] {
            var result: [String] = []
            for item in try list(name) { result.append(try Self.checked(item, name: name, path: path)) }
            return result
        }

        func indexes(_ name: String) throws(LibraryError) -> IndexSet {
            var set = IndexSet()
            for item in try list(name) {
                guard let number = item as? NSNumber, let index = Int(exactly: number.doubleValue), (0...Int(Int32.max)).contains(index) else {
                    throw invalid("\(name) must be a list of indexes")
                }
                set.insert(index)
            }
            return set
        }

        func kind() throws(LibraryError) -> CollectionKind {
            guard let raw = object["kind"] as? Int, let kind = CollectionKind(rawValue: raw) else {
                throw invalid("kind must be 1 (album) or 2 (folder)")
            }
            return kind
        }

        func number(_ name: String) throws(LibraryError) -> Double {
            guard let value = object[name] as? NSNumber, value.doubleValue.isFinite else { throw invalid("\(name) must be a number") }
            return value.doubleValue
        }

        func bool(_ name: String) throws(LibraryError) -> Bool {
            guard let value = object[name] as? Bool else { throw invalid("\(name) must be true or false") }
            return value
        }

        func properties() throws(LibraryError) -> AssetPropertyChanges {
            var changes = AssetPropertyChanges()
            if let value = object["creationDate"] {
                changes.creationDate = .some(value is NSNull ? nil : Date(timeIntervalSince1970: try number("creationDate")))
            }
            if let value = object["location"] {
                if value is NSNull {
                    changes.location = .some(nil)
                } else {
                    guard let place = value as? [String: Any] else { throw invalid("location must be an object or null") }
                    let reader = Reader(object: place, path: "\(path).location")
                    let latitude = try reader.number("latitude")
                    let longitude = try reader.number("longitude")
                    guard abs(latitude) <= 90, abs(longitude) <= 180 else { throw invalid("location is not on Earth") }
                    changes.location = .some(
                        LocationRecord(
                            latitude: latitude, longitude: longitude, altitude: place["altitude"] == nil ? nil : try reader.number("altitude")))
                }
            }
            if object["isFavorite"] != nil { changes.isFavorite = try bool("isFavorite") }
            if object["isHidden"] != nil { changes.isHidden = try bool("isHidden") }
            if object["rating"] != nil {
                let rating = try number("rating")
                guard let value = Int(exactly: rating), (0...5).contains(value) else { throw invalid("rating must be 0 to 5") }
                changes.rating = value
            }
            if let value = object["caption"] { changes.caption = .some(value is NSNull ? nil : try string("caption")) }
            if object["keywords"] != nil {
                for (offset, item) in try list("keywords").enumerated() {
                    guard let edit = item as? [String: String], edit.count == 1 else {
                        throw invalid("keywords[\(offset)] must be {\"add\": …} or {\"remove\": …}")
                    }
                    if let keyword = edit["add"], keyword.utf8.count <= 1024 {
                        changes.keywordEdits.append(.add(keyword))
                    } else if let keyword = edit["remove"], keyword.utf8.count <= 1024 {
                        changes.keywordEdits.append(.remove(keyword))
                    } else {
                        throw invalid("keywords[\(offset)] must be {\"add\": …} or {\"remove\": …}")
                    }
                }
            }
            if object["livePhotoVideoPlaybackEnabled"] != nil { changes.livePhotoVideoPlaybackEnabled = try bool("livePhotoVideoPlaybackEnabled") }
            if object["originalResourceChoice"] != nil {
                guard let choice = object["originalResourceChoice"] as? Int, choice == 0 || choice == 1 else {
                    throw invalid("originalResourceChoice must be 0 (the JPEG or HEIC) or 1 (the RAW)")
                }
                changes.originalChoice = choice
            }
            return changes
        }

        func membershipEdit() throws(LibraryError) -> MembershipEdit {
            if object["add"] != nil {
                try allow(["add"])
                return .add(try identifiers("add"))
            }
            if object["insert"] != nil {
                try allow(["insert", "at"])
                return .insert(try identifiers("insert"), at: try indexes("at"))
            }
            if object["remove"] != nil {
                try allow(["remove"])
                return .remove(try identifiers("remove"))
            }
            if object["removeAt"] != nil {
                try allow(["removeAt"])
                return .removeAt(try indexes("removeAt"))
            }
            if object["replace"] != nil {
                try allow(["replace", "at"])
                return .replace(at: try indexes("at"), with: try identifiers("replace"))
            }
            if object["move"] != nil {
                try allow(["move", "to"])
                let destination = try number("to")
                guard let to = Int(exactly: destination), to >= 0 else { throw invalid("to must be an index") }
                return .move(at: try indexes("move"), to: to)
            }
            throw invalid("a membership edit is one of add, insert, remove, removeAt, replace, move")
        }
    }
}

extension RemoteLibrary {
    /// Applies a change block's requests on the server, all or nothing (`POST /v1/changes`); the server's refusal
    /// comes back as the PhotoKit error it is.
    package func apply(_ intents: [ChangeIntent]) throws(LibraryError) {
        defer { forgetResourcesAhead() }
        var moved: [URL] = []
        let body: Data
        do {
            let requests = try ChangeRequestWire.encode(intents) { resource throws(LibraryError) in
                if case .file(let url, true) = resource.source { moved.append(url) }
                return try upload(resource)
            }
            body = try JSONText.data(["requests": requests])
        } catch let error as LibraryError {
            throw error
        } catch {
            throw .internalError("cannot encode the change requests: \(error)")
        }
        _ = try send(.POST, "/v1/changes", body: body)
        // Committed: files the requests asked to move are the library's now.
        for url in moved { try? FileManager.default.removeItem(at: url) }
    }

    /// Sends a resource's bytes (`POST /v1/uploads`, streamed from its file) and answers the upload's id.
    ///
    /// The bytes are read on NIO's thread pool and written as the connection takes them (AsyncHTTPClient's
    /// `AsyncSequence` bodies are read by a task of Swift's shared pool, which callers blocked on their own changes may
    /// all hold: a request that waits for it never ends).
    func upload(_ resource: ResourceInput) throws(LibraryError) -> String {
        // Named as the file is (what the library takes as the original file name when the request gives none).
        var name = resource.originalFilename ?? "resource"
        if resource.originalFilename == nil, case .file(let url, _) = resource.source { name = url.lastPathComponent }
        let prepared = makeRequest(.POST, "/v1/uploads", query: [URLQueryItem(name: "filename", value: name)])
        var headers = prepared.headers
        headers.replaceOrAdd(name: "Content-Type", value: "application/octet-stream")
        func stream(_ url: URL) throws(LibraryError) -> HTTPClient.Body {
            guard FileManager.default.fileExists(atPath: url.path) else { throw .missingResource("there is no file at \(url.path)") }
            guard let handle = try? FileHandle(forReadingFrom: url), let size = try? handle.seekToEnd() else {
                throw .invalidResource("cannot read \(url.path)")
            }
            try? handle.seek(toOffset: 0)
            let file = FileChunks(handle: handle, loop: Self.group.next())
            return .stream(contentLength: Int64(size)) { writer in file.write(to: writer) }
        }
        let body: HTTPClient.Body
        switch resource.source {
        case .data(let data): body = .bytes(data)
        case .file(let url, _): body = try stream(url)
        case .staged(let staged, _): body = try stream(staged.url)
        }
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(url: prepared.url, method: .POST, headers: headers, body: body)
        } catch {
            throw .invalidResource("cannot make an upload request to \(prepared.url): \(error)")
        }
        let answer = try Self.run(description: "POST /v1/uploads") {
            let response = try await Self.http.execute(request: request, deadline: .now() + .hours(1)).get()
            let body = response.body ?? ByteBuffer()
            guard body.readableBytes <= 1 << 20 else { throw LibraryError.networkError("POST /v1/uploads answered more than 1 MiB") }
            return Answer(status: Int(response.status.code), headers: response.headers, body: Data(body.readableBytesView))
        }
        if answer.status >= 400 { throw Self.error(answer, path: "/v1/uploads") }
        guard let object = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any], let id = object["upload"] as? String else {
            throw .networkError("POST /v1/uploads answered no upload id")
        }
        return id
    }
}

/// A file's bytes in 1 MiB pieces, read on NIO's thread pool as the connection takes them.
final class FileChunks: Sendable {
    let handle: FileHandle
    let loop: any EventLoop

    init(handle: FileHandle, loop: any EventLoop) {
        (self.handle, self.loop) = (handle, loop)
    }

    /// Writes the rest of the file to `writer`, then closes it.
    func write(to writer: HTTPClient.Body.StreamWriter) -> EventLoopFuture<Void> {
        next(writer).always { [handle] _ in try? handle.close() }
    }

    private func next(_ writer: HTTPClient.Body.StreamWriter) -> EventLoopFuture<Void> {
        NIOThreadPool.singleton.runIfActive(eventLoop: loop) { [handle] in try handle.read(upToCount: 1 << 20) ?? Data() }
            .flatMap { data in
                if data.isEmpty { return self.loop.makeSucceededVoidFuture() }
                return writer.write(.byteBuffer(ByteBuffer(bytes: data))).flatMap { self.next(writer) }
            }
    }
}
