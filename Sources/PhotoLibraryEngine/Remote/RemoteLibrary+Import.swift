import Foundation
import JSONWriting
import NIOCore
import NIOHTTP1

/// What a served library's import of some files did (`POST /v1/uploads` each, then `POST /v1/assets` together).
package struct RemoteImportOutcome: Sendable {
    package var created: [String] = []
    package var livePhotosPaired = 0
    package var rawPairsJoined = 0
    package var editsKept = 0
    package var bytesSent: Int64 = 0
    /// Files whose bytes the library already held: the asset that holds them, or the earlier file of the import.
    package var duplicates: [(file: URL, existing: String?, sameAs: URL?)] = []
    package var failures: [(file: URL, reason: String)] = []
}

extension RemoteLibrary {
    /// The most files one import request takes (the server's limit on `POST /v1/assets`).
    package static let filesPerImport = 1000

    /// Imports files into the served library as one import of the server's (content sniffed, duplicates answered,
    /// Live Photos, RAW + JPEG pairs and Photos' edits joined by name as among the files of one folder): each file is
    /// uploaded, then all are imported together. A file that cannot be sent is a failure of its own; the rest go on.
    /// - parameter sent: called after each file is sent, with its size.
    /// - parameter isCancelled: asked before each file; when it answers true nothing is imported (the server forgets
    ///   the files sent within the hour) and the outcome is nil.
    package func importFiles(_ files: [URL], sent: (URL, Int64) -> Void = { _, _ in }, isCancelled: () -> Bool = { false }) throws(LibraryError)
        -> RemoteImportOutcome?
    {
        var outcome = RemoteImportOutcome()
        var uploads: [(id: String, file: URL)] = []
        for file in files.prefix(Self.filesPerImport) {
            if isCancelled() { return nil }
            do {
                let size = Int64((try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)??.int64Value ?? 0)
                let id = try upload(ResourceInput(type: 1, source: .file(file, move: false), originalFilename: nil, uniformTypeIdentifier: nil))
                uploads.append((id, file))
                outcome.bytesSent += size
                sent(file, size)
            } catch  where error.code != LibraryError.networkError("").code {  // the server is gone, not the file
                outcome.failures.append((file, error.message))
            }
        }
        guard !uploads.isEmpty else { return outcome }
        let fileOfUpload = Dictionary(uploads.map { ($0.id, $0.file) }, uniquingKeysWith: { first, _ in first })
        let body: Data
        do { body = try JSONText.data(["uploads": uploads.map(\.id)]) } catch {
            throw .internalError("cannot encode the import: \(error)")
        }
        // The server reads every file (hash, probe, thumbnails): a while for a thousand, not the usual deadline.
        let answer = try exchange(.POST, "/v1/assets", body: body, timeout: max(Self.requestDeadline, .seconds(Int64(30 + uploads.count))))
        // 200: all imported; 207: some refused; 422: all refused (each with its reason); anything else failed whole.
        guard [200, 207, 422].contains(answer.status) else { throw Self.error(answer, path: "/v1/assets") }
        guard let report = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] else {
            throw .networkError("POST /v1/assets answered something that is not an import report")
        }
        func file(_ upload: Any?) -> URL? { (upload as? String).flatMap { fileOfUpload[$0] } }
        func localIdentifier(_ urlForm: String) -> String { urlForm.replacingOccurrences(of: "_", with: "/") }
        outcome.created = (report["created"] as? [String] ?? []).map(localIdentifier)
        outcome.livePhotosPaired = report["livePhotosPaired"] as? Int ?? 0
        outcome.rawPairsJoined = report["rawPairsJoined"] as? Int ?? 0
        outcome.editsKept = report["editsKept"] as? Int ?? 0
        for case let entry as [String: Any] in report["duplicates"] as? [Any] ?? [] {
            guard let duplicate = file(entry["upload"]) else { continue }
            outcome.duplicates.append((duplicate, (entry["existing"] as? String).map(localIdentifier), file(entry["sameAs"])))
        }
        for case let entry as [String: Any] in report["failures"] as? [Any] ?? [] {
            guard let failed = file(entry["upload"]) else { continue }
            outcome.failures.append((failed, entry["reason"] as? String ?? "refused by the server"))
        }
        return outcome
    }
}
