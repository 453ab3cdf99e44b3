import BackgroundUploads
import Foundation
import Hummingbird
import OpenPhotos
import PhotosTesting
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How `UploadJobHost` calls an extension: again while the last of its jobs are sent, to acknowledge the rest.
@Suite("Upload job host")
struct UploadJobHostTests {
    /// What the extension saw at each call, and the destination's held requests.
    struct Calls: Sendable {
        /// Jobs to send and jobs to acknowledge, at each call.
        var seen: [(toSend: Int, toAcknowledge: Int)] = []
        var destination: URL?
    }

    static let calls = Mutex(Calls())
    /// Opened by the extension's second call: the destination answers the requests it holds.
    static let secondCall = Gate()

    /// Makes one job per asset at its first call; acknowledges what finished at every other one.
    final class Recorder: PHBackgroundResourceUploadJobExtension {
        required init() {}

        func processJobs() async -> PHBackgroundResourceUploadProcessingResult {
            let library = PHPhotoLibrary.shared()
            let options = PHFetchOptions()
            options.photoLibrary = library
            let acknowledge = PHAssetResourceUploadJob.fetchJobs(action: .acknowledge, options: options)
            let finished = acknowledge.objects(at: IndexSet(0..<acknowledge.count))
            let toSend = PHAssetResourceUploadJob.fetchJobs(action: .process, options: options).count
            let (call, destination) = UploadJobHostTests.calls.withLock { calls in
                calls.seen.append((toSend, finished.count))
                return (calls.seen.count, calls.destination)
            }
            do {
                if call == 1, let destination {
                    let fetched = PHAsset.fetchAssets(with: options)
                    let assets = fetched.objects(at: IndexSet(0..<fetched.count))
                    var request = URLRequest(url: destination)
                    request.httpMethod = "POST"
                    try library.performChangesAndWait {
                        for asset in assets {
                            let resource = PHAssetResource.assetResources(for: asset)[0]
                            _ = PHAssetResourceUploadJobChangeRequest.creationRequestForJob(destination: request, resource: resource)
                        }
                    }
                    return .processing
                }
                if call == 2 { UploadJobHostTests.secondCall.open() }
                try library.performChangesAndWait {
                    for job in finished { PHAssetResourceUploadJobChangeRequest(for: job)?.acknowledge() }
                }
                return .completed
            } catch {
                return .failure
            }
        }

        func willTerminate() async {}
    }

    @Test(.timeLimit(.minutes(3)))
    func theExtensionAcknowledgesWhileTheLastJobsAreSent() async throws {
        let device = try TestLibrary(name: "HostDevice")
        defer { device.remove() }
        _ = try device.addImages(8)
        try device.library.enableUploadJobExtension(with: PHAssetResourceUploadJobOptions())

        // The destination answers six requests at once and holds the rest until the extension is called again.
        let received = Atomic(0)
        let router = Router()
        router.post("backup") { request, _ -> Response in
            _ = try await request.body.collect(upTo: 1 << 20)
            if received.add(1, ordering: .relaxed).newValue > 6 { await UploadJobHostTests.secondCall.wait() }
            return Response(status: .ok)
        }
        let (ports, port) = AsyncStream.makeStream(of: Int.self)
        let destination = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { port.yield($0.localAddress?.port ?? 0) })
        let serving = Task { try await destination.runService(gracefulShutdownSignals: []) }
        defer { serving.cancel() }
        var listening = ports.makeAsyncIterator()
        let bound = try #require(await listening.next())
        Self.calls.withLock { $0.destination = URL(string: "http://127.0.0.1:\(bound)/backup") }

        let host = UploadJobHost(
            library: device.library, extensionType: Recorder.self, performer: UploadJobPerformer(library: device.library, concurrency: 8))
        let report = try await host.run()

        let seen = Self.calls.withLock { $0.seen }
        #expect(report.jobs.succeeded == 8 && report.jobs.failed == 0 && report.lastResult == .completed, "\(report)")
        // The first call made the jobs; the second came while the two held requests were still to send, and
        // acknowledged the six that were answered; the third acknowledged those two.
        #expect(seen.count == 3, "\(seen)")
        #expect(seen.first.map { $0 == (0, 0) } == true, "\(seen)")
        #expect(seen.dropFirst().first.map { $0 == (2, 6) } == true, "\(seen)")
        #expect(seen.dropFirst(2).first.map { $0 == (0, 2) } == true, "\(seen)")
        #expect(report.activations == 3)
        let options = device.options()
        #expect(PHAssetResourceUploadJob.fetchJobs(action: .acknowledge, options: options).count == 0)
        #expect(PHAssetResourceUploadJob.fetchJobs(action: .process, options: options).count == 0)
    }
}

/// A one-time signal that many tasks can wait for.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
