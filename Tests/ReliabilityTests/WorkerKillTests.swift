import Foundation
import OpenPhotos
import PhotosTestHarness
import PhotosTesting
import Testing

extension ReliabilityTests {
    /// `photos worker` processes killed with SIGKILL at random instants while they encode movies' web renderings:
    /// afterwards every item is done once the dead workers' leases run out, every rendering is whole (each frame
    /// decodes), none is half-written under its name, and the areas the dead workers encoded in are swept by the next
    /// writer.
    @Suite("Reliability: workers killed at any instant")
    struct WorkerKillTests {
        /// A library folder in a new workspace holding one small HEVC movie (which needs a web rendering).
        struct MovieLibrary {
            let workspace: URL
            let folder: URL
            let library: PHPhotoLibrary
            let identifier: String

            init(_ label: String) throws {
                workspace = try TestMedia.temporaryDirectory(label)
                folder = workspace.appendingPathComponent("Library.photoslibrary")
                library = try PHPhotoLibrary(url: folder)
                let movie = workspace.appendingPathComponent("IMG_0001.MOV")
                try TestMedia.writeHEVCMovie(to: movie, width: 320, height: 240, seconds: 1)
                var created: String?
                try library.performChangesAndWait {
                    created = PHAssetChangeRequest.creationRequestForAssetFromVideo(atFileURL: movie)?.placeholderForCreatedAsset?.localIdentifier
                }
                identifier = try #require(created)
            }

            /// A stand-in for the encoder helper: a shell script, executable, under the workspace.
            func standInEncoder(_ script: String) throws -> URL {
                let tools = workspace.appendingPathComponent("tools")
                try FileManager.default.createDirectory(at: tools, withIntermediateDirectories: true)
                let program = tools.appendingPathComponent("openphotokit-transcode")
                try script.write(to: program, atomically: true, encoding: .utf8)
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: program.path)
                return program
            }

            /// `photos worker --drain --json` with the encoder `helper`.
            func drain(encoder helper: URL) async throws -> PhotosCommandLine.Run {
                let folder = self.folder
                return try await blockingOffThePool {
                    try PhotosCommandLine.run(
                        ["worker", "--library", folder.path, "--drain", "--json"], environment: ["OPENPHOTOKIT_TRANSCODE": helper.path])
                }
            }

            func remove() { try? FileManager.default.removeItem(at: workspace) }
        }

        /// The encoder runs in a sandboxed process of its own: one that crashes on a movie (here a stand-in that kills
        /// itself with SIGSEGV) fails that item — kept to be tried again — and the worker goes on and exits normally.
        @Test func anEncoderThatCrashesFailsTheItemNotTheWorker() async throws {
            let fixture = try MovieLibrary("crashing-encoder")
            defer { fixture.remove() }
            let folder = fixture.folder
            let drained = try await fixture.drain(encoder: try fixture.standInEncoder("#!/bin/sh\nkill -SEGV $$\n"))
            // Exit status 1 (an item failed), not a signal: the worker lived.
            #expect(drained.status == 1, "\(drained.stderr)")
            #expect(try drained.json() as? [String: Int] == ["done": 0, "failed": 1, "moot": 0], "\(drained.stdout)")
            #expect(drained.stderr.contains("the encoder"), "\(drained.stderr)")
            let status = try PhotosCommandLine.run(["worker", "--library", folder.path, "--status", "--json"])
            #expect(try status.json() as? [String: Int] == ["queued": 1, "claimed": 0, "failed": 0], "\(status.stdout)")
        }

        /// The encoder's world holds the movie (read-only) and its output folder, not the library: a stand-in encoder
        /// writes what it can see as its "rendering", which the test reads back.
        @Test func theEncoderSeesTheMovieAndNotTheLibrary() async throws {
            let fixture = try MovieLibrary("sandboxed-encoder")
            defer { fixture.remove() }
            let (workspace, folder) = (fixture.workspace, fixture.folder)
            let database = try #require(
                try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasSuffix(".sqlite") || $0 == "database" })
            let spy = try fixture.standInEncoder(
                """
                #!/bin/sh
                { [ -r "$1" ] && echo movie=readable || echo movie=hidden
                  [ -e '\(folder.path)/\(database)' ] && echo library=visible || echo library=hidden
                  echo test > "$1" 2>/dev/null && echo movie=writable || echo movie=read-only
                  [ -e '\(workspace.path)/IMG_0001.MOV' ] && echo workspace=visible || echo workspace=hidden
                } > "$2"
                """)
            let drained = try await fixture.drain(encoder: spy)
            #expect(drained.status == 0, "\(drained.stderr)")
            let options = PHFetchOptions()
            options.photoLibrary = fixture.library
            let asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [fixture.identifier], options: options).firstObject)
            let rendering = try #require(LibraryWebVideo(asset)?.rendering?.fileURL)
            let seen = try String(contentsOf: rendering, encoding: .utf8)
            #expect(seen == "movie=readable\nlibrary=hidden\nmovie=read-only\nworkspace=hidden\n")
        }

        @Test(.timeLimit(.minutes(5))) func killedWorkersLeaveEveryMovieRenderedWhole() async throws {
            let workspace = try TestMedia.temporaryDirectory("worker-kills")
            defer { try? FileManager.default.removeItem(at: workspace) }
            let folder = workspace.appendingPathComponent("Library.photoslibrary")
            let library = try PHPhotoLibrary(url: folder)
            // An HEVC movie with PCM sound (an iPhone's, as far as browsers go), added twice before each worker starts, so
            // that each has items to be killed in.
            let movie = workspace.appendingPathComponent("IMG_0001.MOV")
            try TestMedia.writeHEVCMovie(to: movie, width: 1280, height: 720, seconds: 2)
            let photos = ReliabilityTests.KillCampaignTests.executable
            let log = workspace.appendingPathComponent("worker.log")
            let rounds = 6
            let (kills, created, status) = try await blockingOffThePool { () -> (Int, [String], [String: Int]) in
                var random = SplitMix64(seed: 20_261_127)
                var kills = 0
                var created: [String] = []
                // Each worker is killed once it is encoding (its area in the library's files appears), up to 0.4 s later:
                // mid-encoding, between the encoding and the storing, or between the storing and the queue's update.
                let uploads = folder.appendingPathComponent("private/uploads")
                func encoding() -> Bool {
                    ((try? FileManager.default.contentsOfDirectory(atPath: uploads.path)) ?? []).contains { $0.hasPrefix("web-video-") }
                }
                for _ in 0..<rounds {
                    try library.performChangesAndWait {
                        for _ in 0..<2 {
                            created.append(
                                PHAssetChangeRequest.creationRequestForAssetFromVideo(atFileURL: movie)!.placeholderForCreatedAsset!.localIdentifier)
                        }
                    }
                    let worker = try ChildProcess(photos, ["worker", "--library", folder.path, "--drain", "--lease", "5"], standardError: log)
                    let started = Date()
                    while !encoding(), Date().timeIntervalSince(started) < 30 { usleep(2_000) }
                    usleep(UInt32(random.next(below: 400_000)))
                    worker.kill()
                    if worker.wait(samplingMemory: false).wasSignalled { kills += 1 }
                }
                // A worker drains what is left, again until the items the killed workers held (their leases running out)
                // are done too.
                let deadline = Date().addingTimeInterval(120)
                while true {
                    let drained = try PhotosCommandLine.run(["worker", "--library", folder.path, "--drain", "--json"])
                    guard drained.status == 0 else { throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: drained.stderr]) }
                    let status = try PhotosCommandLine.run(["worker", "--library", folder.path, "--status", "--json"])
                    let counts = try #require(try status.json() as? [String: Int], "\(status.stdout)")
                    if counts["claimed"] == 0 || Date() > deadline { return (kills, created, counts) }
                    usleep(500_000)
                }
            }
            // The workers were killed mid-way, not after they finished (else the test proves little).
            #expect(kills == rounds, "\(kills) of \(rounds) workers killed before they finished")
            #expect(status == ["queued": 0, "claimed": 0, "failed": 0])

            // Every movie has one whole rendering: H.264 and AAC, every frame decodable.
            let options = PHFetchOptions()
            options.photoLibrary = library
            let assets = PHAsset.fetchAssets(withLocalIdentifiers: created, options: options)
            #expect(assets.count == 2 * rounds)
            for index in 0..<assets.count {
                let asset = assets.object(at: index)
                let video = try #require(LibraryWebVideo(asset))
                let file = try #require(video.rendering?.fileURL, "no rendering of \(asset.localIdentifier)")
                let streams = try TestMedia.probeStreams(file, countFrames: true)
                let picture = try #require(streams.first { $0.codec_type == "video" })
                #expect(picture.codec_name == "h264" && picture.nb_read_frames == "60", "\(picture)")
                #expect(streams.first { $0.codec_type == "audio" }?.codec_name == "aac")
            }
            // Nothing half-written under a name, nothing left of the dead workers' areas (the last writer swept them).
            let resources = folder.appendingPathComponent("resources")
            let files = (try? FileManager.default.subpathsOfDirectory(atPath: resources.path)) ?? []
            let partial = files.filter { $0.hasSuffix(".partial") }
            #expect(partial.isEmpty, "\(partial)")
            let areas = (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("private/uploads").path)) ?? []
            #expect(areas.filter { $0.contains("web-video") }.isEmpty, "\(areas)")
        }
    }
}
