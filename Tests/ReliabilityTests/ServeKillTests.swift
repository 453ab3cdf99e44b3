import Foundation
import OpenPhotos
import PhotosTestHarness
import PhotosTesting
import Synchronization
import Testing

/// `photos serve` killed with SIGKILL at random instants while a client uploads, creates, changes and makes albums
/// over HTTP — its API directly, or PhotoKit's change blocks against the served library — and while another `photos`
/// process adds to the same library: after each kill the library opens consistent, every asset whose creation was
/// answered is there, and the next server sweeps the dead one's uploads.
@Suite("Reliability: photos serve killed mid-request")
struct ServeKillTests {
    /// One HTTP/1.1 exchange on a new connection (`Connection: close`): the status and the body, or nil when the
    /// server is gone.
    static func exchange(port: Int, _ method: String, _ target: String, token: String, body: Data = Data(), type: String? = nil) -> (
        status: Int, body: Data
    )? {
        guard let fd = connectToLoopback(port: port, receiveTimeout: 20) else { return nil }
        defer { close(fd) }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n"
        head += "Content-Length: \(body.count)\r\n" + (type.map { "Content-Type: \($0)\r\n" } ?? "") + "\r\n"
        let request = Array(head.utf8) + body
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return nil }
            sent += count
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { break }
            received += chunk[0..<count]
        }
        guard let end = received.indices.dropLast(3).first(where: { received[$0..<$0 + 4] == [13, 10, 13, 10] }) else { return nil }
        let statusLine = String(decoding: received[..<end], as: UTF8.self).split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        return (status, Data(received[(end + 4)...]))
    }

    struct Outcome: Sendable {
        var result: KillCampaign.Result
        var kills: Int
        var answered: Int
        var ledger: Int
        /// Upload folders of a dead server that the next one did not sweep.
        var unswept: [String]
        /// Kills that came before the client had done all its work (the others killed an idle server).
        var midway: Int
        /// Change blocks the PhotoKit client over the server had answered.
        var remoteAnswered: Int
    }

    @Test func killedServersLoseNothingTheyAnswered() async throws {
        let outcome = try await blockingOffThePool { try Self.campaign() }
        let result = outcome.result
        #expect(result.kills == outcome.kills)
        #expect(result.inconsistencies.isEmpty, "\(result.inconsistencies)")
        #expect(result.lostCommits == 0)
        #expect(result.orphans == 0, "\(result.orphanDetails)")
        #expect(result.concurrentFailures == 0)
        #expect(outcome.unswept.isEmpty, "\(outcome.unswept)")
        // The client got answers before the kills (else nothing was at stake), and the kills came mid-way.
        #expect(outcome.answered >= outcome.kills, "\(outcome.answered) answers")
        #expect(outcome.ledger > 0)
        #expect(outcome.midway >= outcome.kills / 2, "\(outcome.midway) of \(outcome.kills) kills came while the client worked")
        #expect(outcome.remoteAnswered > 0, "the PhotoKit client over the server was answered")
    }

    /// The kills and the checks (blocking: waits, sleeps, child processes — on a thread of its own).
    static func campaign() throws -> Outcome {
        let workspace = try TestMedia.temporaryDirectory("serve-kill")
        defer { try? FileManager.default.removeItem(at: workspace) }
        let library = workspace.appendingPathComponent("Served.photoslibrary")
        let executable = ReliabilityTests.KillCampaignTests.executable
        let token: String
        do {
            let owner = try PHPhotoLibrary(url: library, clientIdentifier: nil)
            try owner.setAuthorization(.authorized, for: "phone")
            token = try owner.createAccessToken(for: "phone").secret
        }
        var result = KillCampaign.Result()
        var ledger = Set<String>()
        var answered = 0
        var picture = 0
        var random = SplitMix64(seed: 20_261_123)
        let kills = 10
        var lastServerPID: pid_t = 0
        var unswept: [String] = []
        var midway = 0
        var remoteAnswered = 0
        for kill in 0..<kills {
            let server = try ChildProcess(executable, ["serve", "--library", library.path, "--port", "0", "--json", "--log-level", "warning"])
            var port = 0
            let deadline = Date().addingTimeInterval(30)
            while port == 0, Date() < deadline {
                if let line = String(data: server.standardOutputSoFar, encoding: .utf8)?.split(separator: "\n").first,
                    let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                {
                    port = object["port"] as? Int ?? 0
                } else {
                    usleep(10_000)
                }
            }
            guard port > 0 else { throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "photos serve did not start"]) }
            // The server that started swept the uploads of the one killed before it.
            let uploads = library.appendingPathComponent("private/uploads")
            let folders = (try? FileManager.default.contentsOfDirectory(atPath: uploads.path)) ?? []
            if kill > 0, folders.contains(where: { $0.hasPrefix("serve-\(lastServerPID)-") }) { unswept += folders }
            lastServerPID = server.pid

            // The client: uploads and creates fresh photos, favourites, albums; what was answered is recorded.
            var files: [Data] = []
            for _ in 0..<12 {
                picture += 1
                let file = workspace.appendingPathComponent("up-\(picture).jpg")
                try TestMedia.writeImage(to: file, width: 20 + picture % 300, height: 10 + picture / 300)
                files.append(try Data(contentsOf: file))
            }
            let created = Mutex<[String]>([])
            let answers = Mutex(0)
            let clientDone = DispatchSemaphore(value: 0)
            let clientFinished = Mutex(false)
            let clientExited = Mutex(false)
            let firstPicture = picture
            let (serverPort, pictures) = (port, files)
            // Every other kill, the client is the PhotoKit API over the server (`PHPhotoLibrary(url: http://…)`):
            // each change block uploads its photo and creates it with an album; a block that returned is answered.
            let remoteClient = kill % 2 == 1
            let cache = workspace.appendingPathComponent("remote-cache")
            Thread.detachNewThread {
                defer {
                    clientExited.withLock { $0 = true }
                    clientDone.signal()
                }
                if remoteClient {
                    guard
                        let remote = try? PHPhotoLibrary(
                            url: URL(string: "http://127.0.0.1:\(serverPort)")!, accessToken: token, cacheDirectory: cache)
                    else { return }
                    for index in pictures.indices {
                        let file = workspace.appendingPathComponent("up-\(firstPicture + index).jpg")
                        var identifier = ""
                        do {
                            try remote.performChangesAndWait {
                                let request = PHAssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)!
                                request.isFavorite = index % 2 == 0
                                let placeholder = request.placeholderForCreatedAsset!
                                identifier = placeholder.localIdentifier
                                PHAssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Remote \(kill) \(index)")
                                    .addAssets([placeholder] as NSArray)
                            }
                        } catch {
                            return
                        }
                        created.withLock { $0.append(identifier) }
                        answers.withLock { $0 += 1 }
                    }
                    clientFinished.withLock { $0 = true }
                    return
                }
                for (index, bytes) in pictures.enumerated() {
                    guard
                        let upload = Self.exchange(
                            port: serverPort, "POST", "/v1/uploads?filename=IMG_\(firstPicture + index).jpg", token: token, body: bytes),
                        upload.status == 201, let id = (try? JSONSerialization.jsonObject(with: upload.body) as? [String: Any])?["upload"] as? String
                    else { return }
                    let body = try! JSONSerialization.data(withJSONObject: ["uploads": [id]])
                    guard let create = Self.exchange(port: serverPort, "POST", "/v1/assets", token: token, body: body, type: "application/json")
                    else { return }
                    answers.withLock { $0 += 1 }
                    if create.status == 200,
                        let ids = (try? JSONSerialization.jsonObject(with: create.body) as? [String: Any])?["created"] as? [String]
                    {
                        created.withLock { $0 += ids.map { $0.replacingOccurrences(of: "_", with: "/") } }
                        let change = try! JSONSerialization.data(withJSONObject: [
                            "changes": [
                                ["op": "createAlbum", "title": "Kill \(kill) \(index)", "assets": ids],
                                ["op": "updateAsset", "asset": ids[0], "isFavorite": index % 2 == 0],
                            ]
                        ])
                        guard Self.exchange(port: serverPort, "POST", "/v1/changes", token: token, body: change, type: "application/json") != nil
                        else { return }
                        answers.withLock { $0 += 1 }
                    }
                }
                clientFinished.withLock { $0 = true }
            }
            // Another process adds to the same library meanwhile; what it reports added must survive too.
            let other: ChildProcess?
            if kill % 2 == 0 {
                let photo = workspace.appendingPathComponent("other-\(kill).jpg")
                try TestMedia.writeImage(to: photo, width: 7 + kill, height: 300 + kill)
                other = try ChildProcess(executable, ["add", photo.path, "--json", "--library", library.path])
            } else {
                other = nil
            }
            // Each kill comes at a random point of the client's progress — after a random number of its answers (of
            // up to 24), then a few milliseconds more to land inside a request — so something is at stake and the
            // client is still at work whatever the machine's speed or load (a random delay after the first answer
            // found a fast machine's client done, and a fixed delay from the start a slow server not yet answering).
            let answersBeforeKill = 1 + random.next(below: 16)
            let waitUntil = Date().addingTimeInterval(60)
            while answers.withLock({ $0 }) < answersBeforeKill, !clientExited.withLock({ $0 }), Date() < waitUntil { usleep(1_000) }
            usleep(UInt32(random.next(below: 20_000)))
            server.kill()
            let end = server.wait(samplingMemory: false)
            result.kills += 1
            if !end.wasSignalled { result.finishedBeforeKill += 1 }
            clientDone.wait()
            if !clientFinished.withLock({ $0 }) { midway += 1 }
            ledger.formUnion(created.withLock { $0 })
            answered += answers.withLock { $0 }
            if remoteClient { remoteAnswered += answers.withLock { $0 } }
            if let other {
                let otherEnd = other.wait()
                result.killsWithConcurrentProcess += 1
                result.concurrentCommands += 1
                if otherEnd.status == 0, let added = KillCampaign.identifiers(fromAddJSON: otherEnd.standardOutput) {
                    ledger.formUnion(added)
                } else {
                    result.concurrentFailures += 1
                }
            }
            KillCampaign.check(library: library, after: "serve kill \(kill)", ledger: ledger, into: &result)
        }
        return Outcome(
            result: result, kills: kills, answered: answered, ledger: ledger.count, unswept: unswept, midway: midway, remoteAnswered: remoteAnswered)
    }
}
