import Foundation
import NIOHTTP1

/// What a remote client needs to make an editing input of an asset (`GET /v1/assets/{id}/editing-state`): the asset
/// as it is now, its original (or chosen RAW), current rendering, edit base and adjustment data files, whether the
/// last edit can be reopened, and the adjustment data's property list. The client decides with its editor's
/// `canHandleAdjustmentData` which file it edits (``EditingState/inputSource(editorHandlesAdjustment:)``, the same
/// rule as on the server) and downloads it by type.
package struct EditingStateWire: Codable, Sendable {
    var asset: AssetWireRecord
    var resumable: Bool
    var original: ResourceWireRecord?
    var rendering: ResourceWireRecord?
    var adjustmentBase: ResourceWireRecord?
    var adjustmentResource: ResourceWireRecord?
    var adjustmentPropertyList: Data?

    init(_ state: EditingState, adjustmentPropertyList: Data?) {
        asset = AssetWireRecord(state.asset, extended: nil)
        resumable = state.isResumable
        original = state.original.map(ResourceWireRecord.init)
        rendering = state.rendering.map(ResourceWireRecord.init)
        adjustmentBase = state.adjustmentBase.map(ResourceWireRecord.init)
        adjustmentResource = state.adjustmentResource.map(ResourceWireRecord.init)
        self.adjustmentPropertyList = adjustmentPropertyList
    }

    var state: EditingState {
        EditingState(
            asset: asset.record, original: original?.record, rendering: rendering?.record, adjustmentBase: adjustmentBase?.record,
            adjustmentResource: adjustmentResource?.record, isResumable: resumable)
    }
}

extension LibraryEngine {
    /// The editing state of an asset as a remote client gets it, checked as a local request is (readable by the
    /// client, not in Recently Deleted, in a limited client's selection).
    package func servedEditingState(localIdentifier: String, access: AccessContext, rawChosen: Bool) throws(LibraryError) -> Data {
        let state = try editingState(localIdentifier: localIdentifier, access: access, rawChosen: rawChosen)
        let propertyList = state.adjustmentResource.flatMap { blobs.readSmall($0.blobKey, limit: StoredAdjustment.maximumFileSize) }
        do { return try JSONEncoder().encode(EditingStateWire(state, adjustmentPropertyList: propertyList)) } catch {
            throw .internalError("cannot encode the editing state: \(error)")
        }
    }
}

extension RemoteLibrary {
    /// An asset's editing state on the server, and its last edit's adjustment data (nil when unedited or unreadable).
    package func editingState(localIdentifier: String, rawChosen: Bool) throws(LibraryError) -> (state: EditingState, adjustment: StoredAdjustment?) {
        let id = localIdentifier.replacingOccurrences(of: "/", with: "_")
        let path = "/v1/assets/\(id)/editing-state"
        let answer = try send(.GET, path, query: rawChosen ? [URLQueryItem(name: "raw", value: "true")] : [])
        let wire: EditingStateWire
        do { wire = try JSONDecoder().decode(EditingStateWire.self, from: answer.body) } catch {
            throw .networkError("\(path) answered something that is not an editing state: \(error)")
        }
        return (wire.state, wire.adjustmentPropertyList.flatMap(StoredAdjustment.init(propertyList:)))
    }

    /// Downloads a resource of the server into a new file at `url`, in pieces of 4 MiB; `progress` hears the
    /// fraction done after each and stops the download by answering false (`userCancelled`).
    package func download(_ record: ResourceRecord, to url: URL, progress: (@Sendable (Double) -> Bool)? = nil) throws(LibraryError) {
        let reader = openResource(record)
        guard FileManager.default.createFile(atPath: url.path, contents: nil), let handle = try? FileHandle(forWritingTo: url) else {
            throw .internalError("cannot create \(url.path)")
        }
        defer { try? handle.close() }
        var offset: Int64 = 0
        while offset < record.fileSize {
            let piece = try reader.read(at: offset, count: 4 << 20)
            guard !piece.isEmpty else { throw .networkError("the server's copy of \(record.originalFilename) ended early") }
            do { try handle.write(contentsOf: piece) } catch { throw .internalError("cannot write \(url.path): \(error)") }
            offset += Int64(piece.count)
            if progress?(Double(offset) / Double(max(1, record.fileSize))) == false { throw .userCancelled("the download was cancelled") }
        }
    }
}
