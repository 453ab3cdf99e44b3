import Foundation
import OpenPhotos
import Synchronization

/// Runs an app's upload extension over a library, as iOS does for an app that enabled background uploads: calls the
/// extension's ``OpenPhotos/PHBackgroundResourceUploadJobExtension/processJobs()`` with the library as its shared
/// one, performs the jobs it made (``UploadJobPerformer``), and calls it again — to acknowledge what finished and
/// make the next jobs — until it says it is up to date and no job is left to send, or ``stop()`` is called (the
/// extension hears ``OpenPhotos/PHBackgroundResourceUploadJobExtension/willTerminate()``).
public final class UploadJobHost: Sendable {
    /// What a run came to.
    public struct Report: Sendable, Equatable {
        /// How many times the extension was called.
        public var activations = 0
        public var jobs = UploadJobPerformer.Report()
        /// The extension's last answer.
        public var lastResult: PHBackgroundResourceUploadProcessingResult?
        /// The jobs left to send in this round (a progress bar's rest).
        public var waiting = 0
    }

    public let library: PHPhotoLibrary
    public let performer: UploadJobPerformer
    private let makeExtension: @Sendable () -> any PHBackgroundResourceUploadJobExtension
    private let stopped = Stopped()

    /// A host of `extensionType` (made anew for each run) over `library`.
    public init(
        library: PHPhotoLibrary, extensionType: any PHBackgroundResourceUploadJobExtension.Type, performer: UploadJobPerformer? = nil
    ) {
        self.library = library
        self.performer = performer ?? UploadJobPerformer(library: library)
        let type = UncheckedType(type: extensionType)
        makeExtension = { type.type.init() }
    }

    /// A host of the extension `makeExtension` makes (once per run): OpenPhotoKit's way to host one that is not a
    /// type of this process — `UploadExtensionHost`'s program in a kernel sandbox, behind a stand-in object.
    public init(
        library: PHPhotoLibrary, performer: UploadJobPerformer? = nil,
        makeExtension: @escaping @Sendable () -> any PHBackgroundResourceUploadJobExtension
    ) {
        self.library = library
        self.performer = performer ?? UploadJobPerformer(library: library)
        self.makeExtension = makeExtension
    }

    /// A host of an iOS 26.1 extension (`process()`, `notifyTermination()`) over `library`.
    @available(*, deprecated, message: "Adopt PHBackgroundResourceUploadJobExtension (iOS 27)")
    public init(library: PHPhotoLibrary, extensionType: any PHBackgroundResourceUploadExtension.Type, performer: UploadJobPerformer? = nil) {
        self.library = library
        self.performer = performer ?? UploadJobPerformer(library: library)
        let type = UncheckedLegacyType(type: extensionType)
        makeExtension = { LegacyExtension(type.type.init()) }
    }

    /// Calls the extension and performs its jobs until both are done (a job that is due later is waited for);
    /// `progress` hears of each job finished. Throws when the library does not answer or background uploads are not
    /// enabled.
    public func run(progress: (@Sendable (Report) -> Void)? = nil) async throws -> Report {
        guard library.uploadJobExtensionEnabled else {
            throw PHPhotosError(
                .accessRestricted, userInfo: [NSLocalizedDescriptionKey: "background uploads are not enabled for this client"])
        }
        let uploader = makeExtension()
        do {
            let report = try await run(uploader, progress: progress)
            await (uploader as? any HostedUploadExtension)?.endHosting()
            return report
        } catch {
            await (uploader as? any HostedUploadExtension)?.endHosting()
            throw error
        }
    }

    private func run(_ uploader: any PHBackgroundResourceUploadJobExtension, progress: (@Sendable (Report) -> Void)?) async throws -> Report {
        var report = Report()
        var failures = 0
        var idle = 0
        let library = self.library
        /// The jobs still to send (`.process`: made and not finished, those being sent included).
        @Sendable func jobsToSend() -> Int {
            let options = PHFetchOptions()
            options.photoLibrary = library
            return PHAssetResourceUploadJob.fetchJobs(action: .process, options: options).count
        }
        while !stopped.value {
            report.activations += 1
            // The jobs the extension makes are sent while it makes more (it commits them a page at a time), as iOS
            // sends an app's jobs while its extension runs. Once three quarters of them are sent it is called again,
            // while the rest are: it acknowledges those (and makes the next jobs, in the room they leave under the
            // limit) during the last uploads, not after them.
            let called = CalledExtension(uploader: uploader)
            let call = { @Sendable in await PHPhotoLibrary.$hosted.withValue(library) { await called.uploader.processJobs() } }
            let sending = SendingRound(callAgain: call, countToSend: jobsToSend)
            async let activation = {
                defer { sending.activationEnded() }
                return await call()
            }()
            let (before, start) = (report.jobs, report)
            var round = UploadJobPerformer.Report()
            while true {
                // Read before the round: a round that starts after the extension returned sends all it made.
                let ended = sending.hasActivationEnded
                let waiting = jobsToSend()
                let sofar = round
                let part = try await performer.performDueJobs { jobs in
                    var current = start
                    current.waiting = max(0, waiting - jobs.succeeded - jobs.failed)
                    current.jobs = before + sofar + jobs
                    progress?(current)
                    sending.progress(finished: sofar.succeeded + sofar.failed + jobs.succeeded + jobs.failed)
                }
                round = round + part
                if ended || stopped.value { break }
                // Nothing due yet: the extension has not committed its next page (looked for again soon: the first
                // page's wait is the start of every run).
                if part == UploadJobPerformer.Report() { try await Task.sleep(for: .milliseconds(10)) }
            }
            if let result = await sending.earlyResult {
                report.activations += 1
                if result == .failure { failures += 1 }
            }
            let result = await activation
            report.lastResult = result
            report.jobs = report.jobs + round
            report.waiting = 0
            if result == .failure {
                failures += 1
                if failures >= 3 { break }
            }
            // Something finished: the extension acknowledges it and makes the next jobs.
            if round.succeeded + round.failed > 0 { continue }
            let nextDue = try library.nextUploadJobDue()
            // Up to date: the extension says so and nothing it made waits to be sent.
            if result == .completed, nextDue == nil { break }
            if let nextDue {
                // Jobs due later (tried again after a failure, or claimed by a performer that may be gone): wait for
                // the first (a stop ends the wait).
                try await stopped.sleep(seconds: max(0.05, nextDue.timeIntervalSinceNow))
            } else {
                // More to do, says the extension, yet it made nothing to send: do not spin.
                idle += 1
                if idle >= 3 { break }
                try await stopped.sleep(seconds: 0.2)
            }
        }
        if stopped.value { await PHPhotoLibrary.$hosted.withValue(library) { await uploader.willTerminate() } }
        return report
    }

    /// Stops a run: the extension hears `willTerminate()`; jobs in flight finish or are sent again by the next run.
    public func stop() { stopped.set() }
}

/// The extension, sent to the task that calls it: one call at a time, awaited before the next (or `willTerminate()`).
private struct CalledExtension: @unchecked Sendable {
    let uploader: any PHBackgroundResourceUploadJobExtension
}

private struct UncheckedType: @unchecked Sendable {
    let type: any PHBackgroundResourceUploadJobExtension.Type
}

@available(*, deprecated)
private struct UncheckedLegacyType: @unchecked Sendable {
    let type: any PHBackgroundResourceUploadExtension.Type
}

/// An iOS 26.1 extension behind iOS 27's protocol.
@available(*, deprecated)
private final class LegacyExtension: PHBackgroundResourceUploadJobExtension {
    private let wrapped: (any PHBackgroundResourceUploadExtension)?

    init(_ wrapped: any PHBackgroundResourceUploadExtension) { self.wrapped = wrapped }

    required init() { wrapped = nil }

    func processJobs() async -> PHBackgroundResourceUploadProcessingResult { wrapped?.process() ?? .completed }

    func willTerminate() async { wrapped?.notifyTermination() }
}

/// A stand-in for an extension that is not an object of this process (a program a host runs): told when a run is
/// over, so that what it holds (a process, a server) ends before the run returns.
package protocol HostedUploadExtension: PHBackgroundResourceUploadJobExtension {
    func endHosting() async
}

/// One activation's jobs as they are sent, and the extension's next call, made once while the last of them are: when
/// the activation has returned and three quarters of the jobs to send then (with those sent before) are sent.
private final class SendingRound: Sendable {
    private struct State {
        /// The jobs sent and to send when the activation returned; nil before.
        var total: Int?
        var finished = 0
        var early: Task<PHBackgroundResourceUploadProcessingResult, Never>?
    }

    private let state = Mutex(State())
    private let callAgain: @Sendable () async -> PHBackgroundResourceUploadProcessingResult
    private let countToSend: @Sendable () -> Int

    init(
        callAgain: @escaping @Sendable () async -> PHBackgroundResourceUploadProcessingResult, countToSend: @escaping @Sendable () -> Int
    ) {
        (self.callAgain, self.countToSend) = (callAgain, countToSend)
    }

    var hasActivationEnded: Bool { state.withLock { $0.total != nil } }

    /// The activation returned: every job it made is in the library.
    func activationEnded() {
        let toSend = countToSend()
        update { $0.total = $0.finished + toSend }
    }

    /// Jobs finished in this round so far.
    func progress(finished: Int) { update { $0.finished = finished } }

    /// The early call's answer, once it returned; nil when it was not made.
    var earlyResult: PHBackgroundResourceUploadProcessingResult? {
        get async { await state.withLock { $0.early }?.value }
    }

    private func update(_ change: (inout State) -> Void) {
        state.withLock { state in
            change(&state)
            if state.early == nil, let total = state.total, state.finished < total, state.finished * 4 >= total * 3 {
                state.early = Task { [callAgain] in await callAgain() }
            }
        }
    }
}

/// A flag a waiting run wakes up for.
private final class Stopped: Sendable {
    private let flag = Mutex(false)

    var value: Bool { flag.withLock { $0 } }

    func set() { flag.withLock { $0 = true } }

    func sleep(seconds: TimeInterval) async throws {
        let end = Date().addingTimeInterval(seconds)
        while !value, Date() < end { try await Task.sleep(for: .milliseconds(min(200, max(1, Int(end.timeIntervalSinceNow * 1000))))) }
    }
}
