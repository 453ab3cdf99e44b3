import BackgroundUploads
import Foundation
import OpenPhotos
import PhotosTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// PHAssetResourceUploadJob's rules without a destination: enabling, the limit, cancelling, download-only jobs, and
/// an iOS 26.1 extension hosted.
@Suite("Upload job API")
struct UploadJobAPITests {
    /// An iOS 26.1 extension: makes a download-only job per resource, then acknowledges them.
    @available(*, deprecated)
    final class Downloader: PHBackgroundResourceUploadExtension {
        init() {}

        func process() -> PHBackgroundResourceUploadProcessingResult {
            let library = PHPhotoLibrary.shared()
            let options = PHFetchOptions()
            options.photoLibrary = library
            let finished = PHAssetResourceUploadJob.fetchJobs(action: .acknowledge, options: options)
            if finished.count > 0 {
                try? library.performChangesAndWait {
                    for job in finished.objects(at: IndexSet(0..<finished.count)) {
                        PHAssetResourceUploadJobChangeRequest(for: job)?.acknowledge()
                    }
                }
                return .completed
            }
            let assets = PHAsset.fetchAssets(with: options)
            try? library.performChangesAndWait {
                for asset in assets.objects(at: IndexSet(0..<assets.count)) {
                    for resource in PHAssetResource.assetResources(for: asset) {
                        _ = PHAssetResourceUploadJobChangeRequest.creationRequestForDownloadJob(resource: resource)
                    }
                }
            }
            return .processing
        }

        func notifyTermination() {}
    }

    @available(*, deprecated)
    @Test(arguments: LibraryProviders.conformance)
    func jobsFollowApplesRules(_ provider: any LibraryProvider) async throws {
        let library = try TestLibrary(name: "UploadJobs", provider: provider)
        defer { library.remove() }
        let ids = try library.addImages(2)
        let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [ids[0]], options: library.options()).firstObject)
        let resource = try #require(PHAssetResource.assetResources(for: asset).first)
        let destination = URLRequest(url: URL(string: "https://photos.example.com/v1/backup")!)
        let options = library.options()

        // Not enabled: no job can be made, and there are no options.
        #expect(!library.library.uploadJobExtensionEnabled && library.library.uploadJobExtensionOptions == nil)
        #expect(throws: PHPhotosError.self) {
            try library.library.performChangesAndWait {
                _ = PHAssetResourceUploadJobChangeRequest.creationRequestForJob(destination: destination, resource: resource)
            }
        }
        let settings = PHAssetResourceUploadJobOptions()
        settings.preventsExpensiveNetworkAccess = true
        try library.library.enableUploadJobExtension(with: settings)
        #expect(library.library.uploadJobExtensionOptions == settings)

        // A job: registered, to process, its resource and destination as made.
        var identifier = ""
        try library.library.performChangesAndWait {
            let request = PHAssetResourceUploadJobChangeRequest.creationRequestForJob(destination: destination, resource: resource)
            identifier = try! #require(request.placeholderForCreatedAssetResourceUploadJob).localIdentifier
        }
        let jobs = PHAssetResourceUploadJob.fetchJobs(action: .process, options: options)
        let job = try #require(jobs.firstObject)
        #expect(jobs.count == 1 && job.localIdentifier == identifier)
        #expect(job.state == .registered && job.type == .upload && job.error == nil && job.responseHeaderFields == nil)
        #expect(job.destination.url == destination.url && job.destination.httpMethod == "GET")
        #expect(PHAssetResource.assetResource(forUploadJob: job)?.sha256 == resource.sha256)

        // Acknowledging a job still waiting is refused; cancelling it makes it cancelled and acknowledged.
        #expect(throws: PHPhotosError.self) {
            try library.library.performChangesAndWait { PHAssetResourceUploadJobChangeRequest(for: job)?.acknowledge() }
        }
        try library.library.performChangesAndWait { PHAssetResourceUploadJobChangeRequest(for: job)?.cancel() }
        #expect(PHAssetResourceUploadJob.fetchJobs(action: .process, options: options).count == 0)
        #expect(PHAssetResourceUploadJob.fetchJobs(action: .acknowledge, options: options).count == 0)

        // Past the limit of unacknowledged jobs, the whole block fails with limitExceeded and makes none.
        do {
            try library.library.performChangesAndWait {
                for _ in 0...PHAssetResourceUploadJob.jobLimit {
                    _ = PHAssetResourceUploadJobChangeRequest.creationRequestForJob(destination: destination, resource: resource)
                }
            }
            Issue.record("jobLimit + 1 jobs were made")
        } catch let error as PHPhotosError {
            #expect(error.code == .limitExceeded)
        }
        #expect(PHAssetResourceUploadJob.fetchJobs(action: .process, options: options).count == 0)

        // A served library's jobs are performed where it is kept (its host): the rest is for the local kinds.
        guard !(provider is ServedLibraryProvider) else {
            try library.library.disableUploadJobExtension()
            #expect(!library.library.uploadJobExtensionEnabled)
            return
        }
        // An iOS 26.1 extension, hosted: its download-only jobs succeed (every original is local) and it acknowledges them.
        let host = UploadJobHost(library: library.library, extensionType: Downloader.self)
        let report = try await host.run()
        #expect(report.lastResult == .completed && report.jobs.failed == 0)
        #expect(PHAssetResourceUploadJob.fetchJobs(action: .acknowledge, options: options).count == 0)
        #expect(PHAssetResourceUploadJob.fetchJobs(action: .process, options: options).count == 0)

        // Disabled: no job can be made again.
        try library.library.disableUploadJobExtension()
        #expect(!library.library.uploadJobExtensionEnabled)
    }
}
