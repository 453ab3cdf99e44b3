import AsyncHTTPClient
import BlockingThreads
import Foundation
import NIOCore
import NIOHTTP1
import OpenPhotos

/// Performs a library's background upload jobs: claims the jobs that are due (with a lease, so that a performer
/// that dies leaves them to the next), sends each job's request with its resource's bytes as the body (streamed
/// from the library, never whole in memory), and records the outcome — a 2xx answer succeeds; the network, a 5xx,
/// 408 or 429 are tried again later with exponential backoff (up to the library's attempts, then the job fails);
/// any other answer fails the job with its status. What iOS does for an app's jobs; OpenPhotoKit's own.
public struct UploadJobPerformer: Sendable {
    /// What one round of jobs came to.
    public struct Report: Sendable, Equatable {
        public var succeeded = 0
        public var failed = 0
        /// Tried and due again later.
        public var deferred = 0
        /// The bytes sent for the jobs that succeeded.
        public var bytes: Int64 = 0

        public init() {}

        /// Both reports' counts together.
        public static func + (left: Report, right: Report) -> Report {
            var sum = left
            sum.succeeded += right.succeeded
            sum.failed += right.failed
            sum.deferred += right.deferred
            sum.bytes += right.bytes
            return sum
        }
    }

    public let library: PHPhotoLibrary
    /// Who claims jobs (unique per performer: the host, the process and a random part).
    public let worker: String
    /// How many requests are in flight at once, by default 64. A destination that commits what arrives together in
    /// one transaction (`photos serve` does) spends less on each photo the more arrive together: a backup of 1,000
    /// photos to `photos serve` on loopback took 10–16 % less of its processor time with 12 in flight than with 6
    /// (URLSession's `httpMaximumConnectionsPerHost` over HTTP/1.1), and 8–15 % less time with 64 than with 16; each
    /// costs the server at most 2 MiB of buffers.
    public var concurrency: Int
    /// How long a claim lasts: a performer that is gone longer than this leaves its jobs to the next.
    public var lease: TimeInterval
    /// The first delay before a job is tried again; it doubles with each attempt, up to ``maximumDelay``.
    public var baseDelay: TimeInterval = 2
    public var maximumDelay: TimeInterval = 600
    let http: HTTPClient

    /// The process's HTTP client for uploads: a connection that cannot be made fails at once, or after 10 s; an
    /// answer that stops coming fails after 60 s. Up to 128 connections to one host (`photos uploads run`'s largest
    /// `--concurrency`; AsyncHTTPClient's default of 8 would hold the rest of the requests back unseen).
    public static let sharedHTTPClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(10), read: .seconds(60), write: .seconds(60))
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 128
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    public init(library: PHPhotoLibrary, concurrency: Int = 64, lease: TimeInterval = 60, http: HTTPClient = UploadJobPerformer.sharedHTTPClient) {
        self.library = library
        self.concurrency = max(1, concurrency)
        self.lease = lease
        self.http = http
        worker = "\(ProcessInfo.processInfo.hostName):\(getpid()):\(UUID().uuidString.prefix(8))"
    }

    /// Sends every job due now, until none is; `progress` hears of each job finished (succeeded or failed). Requests
    /// go on back to back, ``concurrency`` at a time: more jobs are claimed (a few at a time, each with its lease)
    /// while the last claimed ones are sent, so a job made while others are sent is sent in this call too.
    public func performDueJobs(progress: (@Sendable (Report) -> Void)? = nil) async throws -> Report {
        var report = Report()
        let (library, worker, lease, concurrency) = (library, worker, lease, concurrency)
        try await withThrowingTaskGroup(of: (String, LibraryUploadJobOutcome, Int64).self) { group in
            var claimed: [LibraryUploadJob] = []
            var next = 0
            var running = 0
            // The last claim found nothing: claimed again only once every request has come back.
            var exhausted = false
            // Outcomes are recorded a few at a time, in one transaction each (a job whose outcome a kill lost is sent
            // again after its lease: the destination takes it twice as once); `progress` hears of them after.
            var unrecorded: [(localIdentifier: String, outcome: LibraryUploadJobOutcome)] = []
            func record() async throws {
                guard !unrecorded.isEmpty else { return }
                let batch = unrecorded
                unrecorded.removeAll()
                _ = try await BlockingThreads.perform { try library.finishUploadJobs(batch, worker: worker) }
            }
            while true {
                if claimed.count - next < concurrency, !exhausted || running == 0 {
                    // Fewer waiting than can be in flight: the next few, claimed while the others are sent.
                    let jobs = try await BlockingThreads.perform {
                        try library.claimUploadJobs(worker: worker, limit: concurrency * 2, lease: lease)
                    }
                    claimed.removeFirst(next)
                    next = 0
                    claimed += jobs
                    exhausted = jobs.isEmpty
                }
                while running < concurrency, next < claimed.count {
                    let job = claimed[next]
                    next += 1
                    running += 1
                    group.addTask { try await self.perform(job) }
                }
                guard running > 0, let (identifier, outcome, bytes) = try await group.next() else { break }
                running -= 1
                unrecorded.append((identifier, outcome))
                switch outcome {
                case .succeeded:
                    report.succeeded += 1
                    report.bytes += bytes
                case .failed: report.failed += 1
                case .retryLater: report.deferred += 1
                }
                // Once nothing is left to start, each outcome is recorded as it comes: there is no request left to
                // overlap the next few with, and the extension, called while the last ones are sent, sees it.
                if unrecorded.count >= 16 || (exhausted && next >= claimed.count) { try await record() }
                progress?(report)
            }
            try await record()
        }
        return report
    }

    /// Sends one claimed job's request; its outcome and the bytes sent. The claim is renewed while the request
    /// lasts (a large file on a slow link outlives a lease).
    func perform(_ job: LibraryUploadJob) async throws -> (String, LibraryUploadJobOutcome, Int64) {
        let (library, worker, lease) = (self.library, self.worker, self.lease)
        let renewal = Task {
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(max(1, lease / 3)))
                try library.renewUploadJobLeases([job.localIdentifier], worker: worker, lease: lease)
            }
        }
        let (outcome, size) = await attempt(job)
        renewal.cancel()
        if case .succeeded = outcome { return (job.localIdentifier, outcome, size) }
        return (job.localIdentifier, outcome, 0)
    }

    /// One attempt at a job's request, and the bytes it sent.
    private func attempt(_ job: LibraryUploadJob) async -> (LibraryUploadJobOutcome, Int64) {
        let file: (url: URL, size: Int64, sha256: String)?
        do { file = try library.uploadJobFile(job) } catch {
            return (.retryLater(error: "the library did not answer: \(error)", delay: delay(job.attempts)), 0)
        }
        guard let file else {
            return (.failed(error: "the asset no longer has the resource this job was made for", status: nil, headers: nil), 0)
        }
        guard let url = URL(string: job.url), url.scheme == "http" || url.scheme == "https" else {
            return (.failed(error: "the destination \(job.url) is not an http or https URL", status: nil, headers: nil), 0)
        }
        return (await send(job, file: file, to: url), file.size)
    }

    private func send(_ job: LibraryUploadJob, file: (url: URL, size: Int64, sha256: String), to url: URL) async -> LibraryUploadJobOutcome {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .init(rawValue: job.method)
        for (name, value) in job.headers { request.headers.add(name: name, value: value) }
        do {
            let chunks = try FileChunks(file: file.url)
            request.body = .stream(chunks, length: .known(file.size))
            let response = try await http.execute(request, timeout: .seconds(Int64(max(job.timeout, 60)) + file.size / 100_000))
            // The answer's body is drained (so the connection can be used again); its start says why a request failed.
            var body = ByteBuffer()
            for try await part in response.body where body.readableBytes < 4096 { body.writeImmutableBuffer(part) }
            let said = String(decoding: body.readableBytesView.prefix(1024), as: UTF8.self)
            var headers: [String: String] = [:]
            for header in response.headers { headers[header.name.lowercased()] = header.value }
            let status = Int(response.status.code)
            switch status {
            case 200..<300: return .succeeded(status: status, headers: headers)
            case 408, 429, 500..<600:
                return .retryLater(error: "the destination answered \(status)", delay: retryAfter(headers) ?? delay(job.attempts))
            default: return .failed(error: "the destination answered \(status): \(said)", status: status, headers: headers)
            }
        } catch {
            return .retryLater(error: "\(url.host ?? job.url): \(error)", delay: delay(job.attempts))
        }
    }

    /// Exponential backoff with jitter: `baseDelay` × 2^attempts, at most `maximumDelay`.
    func delay(_ attempts: Int) -> TimeInterval {
        let exponential = min(maximumDelay, baseDelay * pow(2, Double(min(attempts, 20))))
        return exponential * Double.random(in: 0.75...1.25)
    }

    private func retryAfter(_ headers: [String: String]) -> TimeInterval? {
        headers["retry-after"].flatMap(TimeInterval.init).map { min($0, maximumDelay) }
    }
}

/// A file's bytes as a sequence of buffers of 1 MiB, read as the request takes them — straight into the buffers the
/// connection writes (no copy through `Data`).
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let file: URL

    init(file: URL) throws {
        self.file = file
        guard FileManager.default.isReadableFile(atPath: file.path) else {
            throw CocoaError(.fileReadNoPermission, userInfo: [NSFilePathErrorKey: file.path])
        }
    }

    /// The open file, closed when the last iterator that reads it goes away.
    final class Descriptor: Sendable {
        let value: Int32
        init(_ value: Int32) { self.value = value }
        deinit { if value >= 0 { close(value) } }
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let descriptor: Descriptor
        var finished = false

        mutating func next() async throws -> ByteBuffer? {
            guard !finished else { return nil }
            guard descriptor.value >= 0 else { throw CocoaError(.fileReadUnknown) }
            var buffer = ByteBufferAllocator().buffer(capacity: 1 << 20)
            let fd = descriptor.value
            let count = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 1 << 20) { bytes -> Int in
                while true {
                    let count = read(fd, bytes.baseAddress, bytes.count)
                    if count >= 0 { return count }
                    guard errno == EINTR else {
                        throw CocoaError(.fileReadUnknown, userInfo: [NSUnderlyingErrorKey: POSIXError(.init(rawValue: errno) ?? .EIO)])
                    }
                }
            }
            if count == 0 {
                finished = true
                return nil
            }
            return buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(descriptor: Descriptor(open(file.path, O_RDONLY | O_CLOEXEC))) }
}
