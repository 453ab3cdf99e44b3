import EditingExtensionHost
import Foundation
import OpenPhotos
import PhotosTestHarness
import PhotosTesting
import Testing

/// Photo editing extensions end to end: the example extensions and a deliberately broken one run as their own
/// processes, the host validates and commits (or commits nothing and names the extension).
@Suite("Editing extensions")
struct EditingExtensionTests {
    /// An installed copy of a built extension program in a folder of its own.
    static func install(_ product: String, as name: String? = nil, into folder: URL) throws -> EditingExtension {
        try EditingExtension.install(executable: ChildProcess.builtProduct(product), into: folder, as: name)
    }

    struct Fixture {
        let library: TestLibrary
        let extensions: URL
        let asset: PHAsset
        let original: Data

        init() throws {
            library = try TestLibrary(name: "Extensions")
            extensions = library.scratch.appendingPathComponent("extensions")
            try FileManager.default.createDirectory(at: extensions, withIntermediateDirectories: true)
            let file = try library.makeImage(width: 64, height: 48, orientation: 6)
            original = try Data(contentsOf: file)
            let id = try #require(try library.library.importItems(at: [file]).importedLocalIdentifiers.first)
            asset = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [id], options: library.options()).firstObject)
        }

        func refetched() throws -> PHAsset {
            try #require(PHAsset.fetchAssets(withLocalIdentifiers: [asset.localIdentifier], options: library.options()).firstObject)
        }

        /// The asset's resources' hashes: unchanged after a failed session.
        func fingerprint() throws -> [String] { PHAssetResource.assetResources(for: try refetched()).map(\.sha256) }
    }

    @Test func installListAndEditWithTheExamples() throws {
        let fixture = try Fixture()
        defer { fixture.library.remove() }
        let look = try Self.install("look-extension", into: fixture.extensions)
        let redact = try Self.install("redact-extension", into: fixture.extensions)
        #expect(look.bundleIdentifier == "org.openphotokit.example.look" && look.displayName == "Looks" && look.supportedMediaTypes == [.image])
        #expect(look.settings.map(\.name) == ["look", "intensity"])
        let found = EditingExtension.installed(in: [fixture.extensions])
        #expect(found.extensions.map(\.bundleIdentifier) == ["org.openphotokit.example.look", "org.openphotokit.example.redact"])
        #expect(found.problems.isEmpty)
        #expect(EditingExtension.named("looks", in: [fixture.extensions])?.bundleIdentifier == look.bundleIdentifier)
        #expect(EditingExtension.named("org.openphotokit.example", in: [fixture.extensions]) == nil, "ambiguous")

        // A look: the edit is committed by the host, the original untouched, the recipe the extension's.
        let edited = try EditingSession(extension: look, asset: fixture.asset, settings: ["look": "mono", "intensity": "0.5"]).run()
        #expect(edited.hasAdjustments && edited.adjustmentFormatIdentifier == "org.openphotokit.example.look")
        #expect((edited.pixelWidth, edited.pixelHeight) == (48, 64), "upright")
        let original = try #require(PHAssetResource.assetResources(for: edited).first { $0.type == .photo }?.fileURL)
        #expect(try Data(contentsOf: original) == fixture.original)

        // Reopened: the look extension handles its recipe and gets the original again (nothing stacks).
        let again = try EditingSession(extension: look, asset: edited, settings: ["look": "noir"]).run()
        #expect(!PHAssetResource.assetResources(for: again).contains { $0.type == .adjustmentBasePhoto })

        // Redact does not reopen: its edit stacks on the look.
        let redacted = try EditingSession(extension: redact, asset: again, settings: ["region": "0,0,0.5,0.5", "style": "blur"]).run()
        #expect(redacted.adjustmentFormatIdentifier == "org.openphotokit.example.redact")
        #expect(PHAssetResource.assetResources(for: redacted).contains { $0.type == .adjustmentBasePhoto })
        #expect(try fixture.library.library.verify().problems.isEmpty)
    }

    /// An extension that edits Live Photos through PHLivePhotoEditingContext returns the still and the video; the
    /// host commits both, so the asset stays a Live Photo whose video has the look too.
    @Test func aLivePhotoEditedByAnExtensionStaysALivePhoto() throws {
        let fixture = try Fixture()
        defer { fixture.library.remove() }
        let look = try Self.install("look-extension", into: fixture.extensions)
        let still = try fixture.library.makeImage(width: 64, height: 48)
        let movie = fixture.library.scratch.appendingPathComponent("live.mov")
        try TestMedia.writeMovie(to: movie, width: 64, height: 48, seconds: 1, audio: true)
        var id = ""
        try fixture.library.library.performChangesAndWait {
            let request = PHAssetCreationRequest.forAsset()
            request.addResource(with: .photo, fileURL: still, options: nil)
            request.addResource(with: .pairedVideo, fileURL: movie, options: nil)
            id = request.placeholderForCreatedAsset!.localIdentifier
        }
        let live = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [id], options: fixture.library.options()).firstObject)
        let edited = try EditingSession(extension: look, asset: live, settings: ["look": "mono"]).run()
        #expect(edited.mediaSubtypes.contains(.photoLive) && edited.adjustmentFormatIdentifier == "org.openphotokit.example.look")
        let resources = PHAssetResource.assetResources(for: edited)
        #expect(
            resources.map(\.type).sorted { $0.rawValue < $1.rawValue } == [
                .photo, .fullSizePhoto, .adjustmentData, .pairedVideo, .fullSizePairedVideo,
            ])
        let video = try #require(resources.first { $0.type == .fullSizePairedVideo }?.fileURL)
        let streams = try TestMedia.probeStreams(video, countFrames: true)
        #expect(streams.first { $0.codec_type == "video" }?.nb_read_frames == "30", "every frame of the video")
        // The look is mono: the edited video's frames are grey (testsrc's colour bars are not).
        let frame = fixture.library.scratch.appendingPathComponent("frame.png")
        try TestMedia.ffmpegRun(["-i", video.path, "-frames:v", "1", frame.path])
        let firstFrame = try #require(CIImage(contentsOf: frame))
        let pixels = try #require(CIContext().createCGImage(firstFrame, from: firstFrame.extent))
        let bytes = [UInt8](pixels.dataProvider!.data! as Data)
        let spread = stride(from: 0, to: bytes.count, by: 4).map { Int(bytes[$0..<$0 + 3].max()!) - Int(bytes[$0..<$0 + 3].min()!) }.max() ?? 0
        #expect(spread <= 12, "grey frames (largest channel spread \(spread))")
        #expect(try fixture.library.library.verify().problems.isEmpty)
    }

    @Test func settingsAreCheckedBeforeTheExtensionRuns() throws {
        let fixture = try Fixture()
        defer { fixture.library.remove() }
        let look = try Self.install("look-extension", into: fixture.extensions)
        for (settings, name) in [(["look": "sparkle"], "look"), (["intensity": "2"], "intensity"), (["shine": "1"], "shine")] {
            #expect(throws: EditingExtensionError.self) { try EditingSession(extension: look, asset: fixture.asset, settings: settings).run() }
            do { try EditingSession(extension: look, asset: fixture.asset, settings: settings).run() } catch {
                guard case .invalidSetting(let ext, let setting, _) = error else { Issue.record("\(error)"); continue }
                #expect(ext == "Looks" && setting == name)
            }
        }
    }

    /// Runs the broken extension with a fault and expects the session to fail as `matches` says, changing nothing.
    static func expectFailure(
        _ fixture: Fixture, _ editingExtension: EditingExtension, fault: String? = nil, timeouts: EditingSession.Timeouts = .init(),
        sourceLocation: SourceLocation = #_sourceLocation, _ matches: (EditingExtensionError) -> Bool
    ) throws {
        let before = try fixture.fingerprint()
        do {
            try EditingSession(extension: editingExtension, asset: fixture.asset, settings: fault.map { ["fault": $0] } ?? [:], timeouts: timeouts)
                .run()
            Issue.record("the session succeeded", sourceLocation: sourceLocation)
        } catch {
            #expect(matches(error), "\(error)", sourceLocation: sourceLocation)
            #expect(error.extensionName == "Broken", sourceLocation: sourceLocation)
        }
        #expect(try fixture.fingerprint() == before, "nothing committed", sourceLocation: sourceLocation)
        #expect(try fixture.library.writerLeftovers().isEmpty, sourceLocation: sourceLocation)
    }

    @Test func brokenExtensionsChangeNothingAndAreNamed() throws {
        let fixture = try Fixture()
        defer { fixture.library.remove() }
        let broken = try Self.install("broken-extension", into: fixture.extensions)
        // Only the phase under test is short: under a loaded CI machine launching a process can take seconds.
        let quickFinish = EditingSession.Timeouts(handshake: 120, start: 120, finish: 2, cancel: 1)
        try Self.expectFailure(fixture, broken, fault: "crash-on-start") {
            if case .crashed(_, "startContentEditing", let status) = $0 { return status.contains("signal") }
            return false
        }
        try Self.expectFailure(fixture, broken, fault: "crash-on-finish") {
            if case .crashed(_, "finishContentEditing", _) = $0 { return true }
            return false
        }
        try Self.expectFailure(fixture, broken, fault: "hang-on-finish", timeouts: quickFinish) {
            if case .timedOut(_, "finishContentEditing", 2) = $0 { return true }
            return false
        }
        try Self.expectFailure(fixture, broken, fault: "no-output") { $0 == .noOutput(extension: "Broken") }
        // A rendering written outside its folder is not delivered.
        try Self.expectFailure(fixture, broken, fault: "outside-folder") { $0 == .noOutput(extension: "Broken") }
        try Self.expectFailure(fixture, broken, fault: "symlink") {
            if case .invalidOutput(_, let reason) = $0 { return reason.contains("link") }
            return false
        }
        try Self.expectFailure(fixture, broken, fault: "video-for-still") {
            if case .invalidOutput(_, let reason) = $0 { return reason.contains("not a Live Photo") }
            return false
        }
        try Self.expectFailure(fixture, broken, fault: "wrong-type") {
            if case .invalidOutput = $0 { return true }
            return false
        }
        // Before the protocol: garbage on the output, a frame too large, a crash at launch.
        for (suffix, expected) in [("garbage", "protocol"), ("huge", "protocol"), ("crash", "crash"), ("escape", "output")] {
            let folder = fixture.extensions.appendingPathComponent(suffix)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let variant = try Self.install("broken-extension", as: "broken-\(suffix)", into: folder)
            try Self.expectFailure(fixture, variant) {
                switch $0 {
                case .protocolViolation: expected == "protocol"
                case .crashed(_, "hello", _): expected == "crash"
                case .invalidOutput(_, let reason): expected == "output" && reason.contains("not a file of its output folder")
                default: false
                }
            }
        }
    }

    @Test func aCancelDuringFinishCommitsNothing() throws {
        let fixture = try Fixture()
        defer { fixture.library.remove() }
        let broken = try Self.install("broken-extension", into: fixture.extensions)
        let before = try fixture.fingerprint()
        let session = EditingSession(extension: broken, asset: fixture.asset, settings: ["fault": "slow-finish"])
        // Cancel once the extension has started (its start reply sets the confirmation), while it is finishing: a
        // fixed delay would cancel a start that a loaded machine has not reached yet.
        DispatchQueue.global().async {
            let deadline = Date().addingTimeInterval(120)
            while session.shouldShowCancelConfirmation == nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            Thread.sleep(forTimeInterval: 0.3)
            session.cancel()
        }
        do {
            try session.run()
            Issue.record("the cancelled session committed")
        } catch {
            #expect(error == .cancelled(extension: "Broken"))
        }
        #expect(session.shouldShowCancelConfirmation == true)
        // The late output (1.5 s after finish began) never reaches the library.
        Thread.sleep(forTimeInterval: 1)
        #expect(try fixture.fingerprint() == before)
    }

    @Test func theExtensionCannotReachTheLibrary() throws {
        let fixture = try Fixture()
        defer { fixture.library.remove() }
        let broken = try Self.install("broken-extension", into: fixture.extensions)
        setenv("PHOTOS_LIBRARY", fixture.library.url.path, 1)
        defer { unsetenv("PHOTOS_LIBRARY") }
        let edited = try EditingSession(extension: broken, asset: fixture.asset, settings: ["fault": "open-library"]).run()
        let resource = try #require(PHAssetResource.assetResources(for: edited).first { $0.type == .adjustmentData }?.fileURL)
        let plist = try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: resource), format: nil) as? [String: Any])
        let report = String(decoding: try #require(plist["adjustmentData"] as? Data), as: UTF8.self)
        #expect(report.contains("assets=0"), "\(report)")
        #expect(report.contains("env=[]"), "\(report)")
        #expect(report.contains("display=48x64"), "the display-size image, upright, made in the extension: \(report)")
        #expect(!report.contains(fixture.library.url.path), "\(report)")
        #expect(plist["adjustmentEditorBundleID"] == nil, "the host's client, not the extension, made the edit")
    }

    /// A hostile extension looks for the library everywhere a process of the same user could: the host's /proc entries
    /// (command line, working folder, descriptors — the way one set every asset hidden and favourite), its own inherited
    /// descriptors, temporary folders and homes directly, through /proc/1/root and through symbolic links, and the
    /// user's real home. In its sandbox it reaches none of them.
    @Test func aHostileExtensionReachesNothingOutsideItsSession() throws {
        let fixture = try Fixture()
        defer { fixture.library.remove() }
        let broken = try Self.install("broken-extension", into: fixture.extensions)
        // The library is open in this process (its database's descriptors are in /proc/<pid>/fd) and named in a
        // child's command line, as `photos edit --library PATH` would name it.
        let named = Process()
        named.executableURL = URL(fileURLWithPath: "/bin/sleep")
        named.arguments = ["30", fixture.library.url.path]
        try named.run()
        defer { named.terminate() }
        let edited = try EditingSession(extension: broken, asset: fixture.asset, settings: ["fault": "escape-library"]).run()
        let resource = try #require(PHAssetResource.assetResources(for: edited).first { $0.type == .adjustmentData }?.fileURL)
        let plist = try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: resource), format: nil) as? [String: Any])
        let report = String(decoding: try #require(plist["adjustmentData"] as? Data), as: UTF8.self)
        #expect(report.hasSuffix("reached=[]"), "\(report)")
        let options = fixture.library.options { $0.includeHiddenAssets = true }
        #expect(PHAsset.fetchAssets(with: options).count == 1)
        #expect(
            PHAsset.fetchAssets(with: fixture.library.options { $0.predicate = NSPredicate(format: "hidden == YES OR favorite == YES") }).count == 0)
    }

    /// An extension that ignores SIGTERM and leaves a detached child that ignores it too: both are gone once the
    /// session has ended (the sandbox's PID namespace ends with its first process, which the host kills).
    @Test func nothingAnExtensionStartedOutlivesItsSession() async throws {
        let fixture = try Fixture()
        defer { fixture.library.remove() }
        let broken = try Self.install("broken-extension", into: fixture.extensions)
        let edited = try EditingSession(
            extension: broken, asset: fixture.asset, settings: ["fault": "daemon"], timeouts: .init(cancel: 1)
        ).run()
        let resource = try #require(PHAssetResource.assetResources(for: edited).first { $0.type == .adjustmentData }?.fileURL)
        let plist = try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: resource), format: nil) as? [String: Any])
        let report = String(decoding: try #require(plist["adjustmentData"] as? Data), as: UTF8.self)
        #expect(report.hasSuffix("seen=true"), "the daemon ran: \(report)")
        let marker = String(try #require(report.split(separator: " ").first { $0.hasPrefix("daemon=") }?.dropFirst("daemon=".count)))
        @Sendable func running() -> Bool {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).contains { pid in
                guard Int32(pid) != nil, let line = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
                return String(decoding: line, as: UTF8.self).contains(marker)
            }
        }
        // The session's process is stopped off the caller's path (1 s of grace, then killed): wait for it, bounded,
        // on a thread of its own (the live-server tests beside this one need the pool's threads).
        let gone = try await blockingOffThePool { () -> Bool in
            let deadline = Date().addingTimeInterval(60)
            while running(), Date() < deadline { usleep(50_000) }
            return !running()
        }
        #expect(gone, "the extension's daemon \(marker) outlived its session")
    }

    /// An extension's session folder (the input's copies, what it wrote, its log) is gone once the session ends; while
    /// it lasts, the log keeps at most 1 MiB of what the extension printed (it printed 3 MiB).
    @Test func aSessionLeavesNoFolderBehind() async throws {
        let fixture = try Fixture()
        defer { fixture.library.remove() }
        let broken = try Self.install("broken-extension", into: fixture.extensions)
        let edited = try EditingSession(extension: broken, asset: fixture.asset, settings: ["fault": "report-session"]).run()
        let resource = try #require(PHAssetResource.assetResources(for: edited).first { $0.type == .adjustmentData }?.fileURL)
        let plist = try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: resource), format: nil) as? [String: Any])
        let report = String(decoding: try #require(plist["adjustmentData"] as? Data), as: UTF8.self)
        let session = try #require(report.split(separator: " ").first { $0.hasPrefix("session=") }?.dropFirst("session=".count))
        #expect(session.contains("OpenPhotoKit-Editing-"), "\(report)")
        // The process is stopped and its folder removed off the caller's path: wait for it, bounded.
        let log = "\(session)/extension.log"
        let folder = String(session)
        let largestLog = try await blockingOffThePool { () -> Int in
            var largest = 0
            let deadline = Date().addingTimeInterval(60)
            while FileManager.default.fileExists(atPath: folder), Date() < deadline {
                largest = max(largest, (try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0)
                usleep(10_000)
            }
            return largest
        }
        #expect(!FileManager.default.fileExists(atPath: String(session)), "\(session) is still there")
        #expect(largestLog <= (1 << 20) + 100, "the log grew to \(largestLog) bytes")
    }

    @Test func anAssetInRecentlyDeletedIsNotEdited() throws {
        let fixture = try Fixture()
        defer { fixture.library.remove() }
        let look = try Self.install("look-extension", into: fixture.extensions)
        try fixture.library.library.performChangesAndWait { PHAssetChangeRequest.deleteAssets([fixture.asset] as NSArray) }
        do {
            try EditingSession(extension: look, asset: fixture.asset).run()
            Issue.record("an asset in Recently Deleted was edited")
        } catch {
            guard case .inputUnavailable(let name, let reason) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(name == "Looks" && reason.contains("Recently Deleted"), "\(reason)")
        }
    }

    @Test func unsupportedMediaIsRefusedBeforeLaunch() throws {
        let fixture = try Fixture()
        defer { fixture.library.remove() }
        let look = try Self.install("look-extension", into: fixture.extensions)
        let movie = fixture.library.scratch.appendingPathComponent("clip.mov")
        try TestMedia.writeMovie(to: movie, width: 32, height: 24, seconds: 0.2)
        let id = try #require(try fixture.library.library.importItems(at: [movie]).importedLocalIdentifiers.first)
        let video = try #require(PHAsset.fetchAssets(withLocalIdentifiers: [id], options: fixture.library.options()).firstObject)
        #expect(throws: EditingExtensionError.unsupportedMediaType(extension: "Looks", mediaType: "Video")) {
            try EditingSession(extension: look, asset: video).run()
        }
    }

    @Test func manifestsThatDoNotDescribeAPhotoEditingExtensionAreListedAsProblems() throws {
        let folder = try TestMedia.temporaryDirectory("manifests")
        defer { try? FileManager.default.removeItem(at: folder) }
        func bundle(_ name: String, _ plist: [String: Any], executable: Bool = true) throws {
            let url = folder.appendingPathComponent("\(name).photoextension")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: url.appendingPathComponent("Info.plist"))
            if executable {
                _ = FileManager.default.createFile(
                    atPath: url.appendingPathComponent("run").path, contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755])
            }
        }
        let good = EditingExtension.infoPlist(
            bundleIdentifier: "a.good", displayName: "Good", executableName: "run", supportedMediaTypes: [.image, .video],
            settings: [.init(name: "x", kind: .number(minimum: 0, maximum: 1), defaultValue: "0.5")])
        try bundle("good", good)
        var share = good
        share["NSExtension"] = ["NSExtensionPointIdentifier": "com.apple.share-services"]
        try bundle("share", share)
        var escape = good
        escape["CFBundleExecutable"] = "../../bin/sh"
        try bundle("escape", escape)
        try bundle("missing", good, executable: false)
        var badDefault = good
        badDefault["NSExtension"] = [
            "NSExtensionPointIdentifier": "com.apple.photo-editing",
            "NSExtensionAttributes": [
                "PHSupportedMediaTypes": ["Image"],
                "OpenPhotoKitSettings": [["Name": "x", "Type": "Number", "Minimum": 0, "Maximum": 1, "Default": "7"]],
            ],
        ]
        try bundle("default", badDefault)
        // Identifiers name the install folder: a path, "..", or what is not reverse-DNS is refused.
        for (label, identifier) in [
            ("dotdot", "../../x"), ("slash", "a/b"), ("empty-part", "a..b"), ("space", "a b"), ("long", String(repeating: "a", count: 256)),
        ] {
            var bad = good
            bad["CFBundleIdentifier"] = identifier
            try bundle("id-\(label)", bad)
        }
        let found = EditingExtension.installed(in: [folder])
        #expect(found.extensions.map(\.bundleIdentifier) == ["a.good"])
        #expect(found.extensions.first?.supportedMediaTypes == [.image, .video])
        #expect(
            found.problems.map(\.bundleURL.lastPathComponent).sorted() == [
                "default.photoextension", "escape.photoextension", "id-dotdot.photoextension", "id-empty-part.photoextension",
                "id-long.photoextension", "id-slash.photoextension", "id-space.photoextension", "missing.photoextension",
                "share.photoextension",
            ])
    }
}

/// `photos extensions` and `photos edit --with` end to end.
@Suite("photos extensions")
struct ExtensionCommandTests {
    func photos(_ arguments: [String], extensions: URL) throws -> PhotosCommandLine.Run {
        try PhotosCommandLine.run(
            arguments,
            environment: ["OPENPHOTOKIT_EXTENSIONS": extensions.path, "XDG_DATA_HOME": extensions.appendingPathComponent("xdg").path])
    }

    @Test func installListAndEditFromTheCommandLine() throws {
        let fixture = try EditingExtensionTests.Fixture()
        defer { fixture.library.remove() }
        let folder = fixture.extensions
        let install = try photos(["extensions", "install", ChildProcess.builtProduct("redact-extension").path, "--json"], extensions: folder)
        #expect(install.status == 0, "\(install.stderr)")
        let list = try photos(["extensions", "--json"], extensions: folder)
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])
        let extensions = try #require(listed["extensions"] as? [[String: Any]])
        #expect(extensions.map { $0["bundleIdentifier"] as? String } == ["org.openphotokit.example.redact"])
        #expect((extensions.first?["settings"] as? [[String: Any]])?.map { $0["name"] as? String } == ["region", "style", "scale"])

        let library = ["--library", fixture.library.url.path]
        let edit = try photos(
            ["edit", fixture.asset.localIdentifier, "--with", "redact", "--set", "style=blur", "--set", "region=0,0,1,0.5", "--json"] + library,
            extensions: folder)
        #expect(edit.status == 0, "\(edit.stderr)")
        let edited = try #require(try JSONSerialization.jsonObject(with: Data(edit.stdout.utf8)) as? [String: Any])
        #expect(edited["hasAdjustments"] as? Bool == true && edited["extension"] as? String == "org.openphotokit.example.redact")

        for (arguments, message) in [
            (["--with", "redact", "--set", "style=smudge"], "style"), (["--with", "nothing"], "no extension nothing"),
            (["--with", "redact", "--exposure", "1"], "--with edits with an extension"),
        ] {
            let run = try photos(["edit", fixture.asset.localIdentifier] + arguments + library, extensions: folder)
            #expect(run.status != 0 && run.stderr.contains(message) && run.stderr.split(separator: "\n").count == 1, "\(arguments): \(run.stderr)")
        }
    }
}
