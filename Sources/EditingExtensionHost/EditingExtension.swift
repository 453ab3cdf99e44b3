import Foundation
import OpenPhotos
import PhotoEditingProtocol
import Synchronization

/// OpenPhotoKit: a photo editing extension installed on this machine — a separate program, hosted as Photos hosts
/// the extensions of `com.apple.photo-editing` on Apple platforms (see the WritingAPhotoEditingExtension article).
///
/// An installed extension is a folder `NAME.photoextension` holding an `Info.plist` with Apple's keys
/// (`CFBundleIdentifier`, `CFBundleDisplayName`, `CFBundleExecutable`, `NSExtension` → `NSExtensionPointIdentifier`
/// `com.apple.photo-editing`, `NSExtensionAttributes` → `PHSupportedMediaTypes` `Image` / `Video`) and the
/// executable. Linux has no view controllers to show, so the attributes also declare the extension's settings
/// (`OpenPhotoKitSettings`: name, type, range, default), which the host passes in.
public struct EditingExtension: Sendable, Hashable, CustomStringConvertible {
    /// The media an extension edits.
    public enum MediaType: String, Sendable, Hashable, CaseIterable {
        case image = "Image"
        case video = "Video"
    }

    /// A setting the extension declares.
    public struct Setting: Sendable, Hashable {
        /// The values a setting takes.
        public enum Kind: Sendable, Hashable {
            /// A number in a closed range.
            case number(minimum: Double, maximum: Double)
            /// true or false.
            case boolean
            /// One of a list of names.
            case choice([String])
            /// A rectangle in unit coordinates of the upright image, from the top left: "X,Y,W,H".
            case unitRect
        }

        public var name: String
        public var kind: Kind
        /// The value when the host passes none, as it would be typed ("0.8", "true", "noir", "0,0,0.5,0.5").
        public var defaultValue: String
        /// What the setting does (shown by `photos extensions`).
        public var summary: String

        public init(name: String, kind: Kind, defaultValue: String, summary: String = "") {
            self.name = name
            self.kind = kind
            self.defaultValue = defaultValue
            self.summary = summary
        }

        /// The value typed as `text`, checked against the declaration; nil when it does not fit.
        package func value(_ text: String) -> EditingExtensionWire.SettingValue? {
            switch kind {
            case .number(let minimum, let maximum):
                guard let number = Double(text.trimmingCharacters(in: .whitespaces)), number.isFinite, number >= minimum, number <= maximum
                else { return nil }
                return .number(number)
            case .boolean:
                switch text.lowercased() {
                case "true", "yes", "1", "on": return .boolean(true)
                case "false", "no", "0", "off": return .boolean(false)
                default: return nil
                }
            case .choice(let names):
                return names.contains(text) ? .text(text) : nil
            case .unitRect:
                let v = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
                guard v.count == 4, v.allSatisfy(\.isFinite), v[0] >= 0, v[1] >= 0, v[2] > 0, v[3] > 0, v[0] + v[2] <= 1 + 1e-9,
                    v[1] + v[3] <= 1 + 1e-9
                else { return nil }
                return .text(v.map { String($0) }.joined(separator: ","))
            }
        }

        /// The declaration's range or values, for people.
        public var range: String {
            switch kind {
            case .number(let minimum, let maximum): "\(minimum)…\(maximum)"
            case .boolean: "true|false"
            case .choice(let names): names.joined(separator: "|")
            case .unitRect: "X,Y,W,H (unit square, from the top left)"
            }
        }
    }

    /// The extension point every photo editing extension names.
    public static let extensionPointIdentifier = "com.apple.photo-editing"

    /// The bundle identifier (`CFBundleIdentifier`).
    public var bundleIdentifier: String
    /// The name people see (`CFBundleDisplayName`).
    public var displayName: String
    /// The program the host runs.
    public var executableURL: URL
    /// The installed folder.
    public var bundleURL: URL
    /// `PHSupportedMediaTypes`.
    public var supportedMediaTypes: Set<MediaType>
    /// The declared settings.
    public var settings: [Setting]

    public var description: String { "\(displayName) (\(bundleIdentifier))" }

    // MARK: - Info.plist

    /// The manifest as an `Info.plist` dictionary (Apple's keys, plus `OpenPhotoKitSettings`).
    public static func infoPlist(
        bundleIdentifier: String, displayName: String, executableName: String, supportedMediaTypes: [MediaType], settings: [Setting]
    ) -> [String: Any] {
        [
            "CFBundleIdentifier": bundleIdentifier, "CFBundleDisplayName": displayName, "CFBundleExecutable": executableName,
            "CFBundlePackageType": "XPC!",
            "NSExtension": [
                "NSExtensionPointIdentifier": extensionPointIdentifier,
                "NSExtensionAttributes": [
                    "PHSupportedMediaTypes": supportedMediaTypes.map(\.rawValue),
                    "OpenPhotoKitSettings": settings.map { setting -> [String: Any] in
                        var entry: [String: Any] = ["Name": setting.name, "Default": setting.defaultValue, "Summary": setting.summary]
                        switch setting.kind {
                        case .number(let minimum, let maximum):
                            entry["Type"] = "Number"
                            entry["Minimum"] = minimum
                            entry["Maximum"] = maximum
                        case .boolean: entry["Type"] = "Boolean"
                        case .choice(let names):
                            entry["Type"] = "Choice"
                            entry["Values"] = names
                        case .unitRect: entry["Type"] = "UnitRect"
                        }
                        return entry
                    },
                ],
            ],
        ]
    }

    /// Why an installed extension cannot be used.
    public struct ManifestError: Error, CustomStringConvertible, Sendable {
        public var bundleURL: URL
        public var reason: String
        public var description: String { "\(bundleURL.lastPathComponent): \(reason)" }
    }

    /// Reads an installed extension's folder; the manifest is checked (extension point, executable inside the
    /// folder, media types, settings with defaults that fit their declarations).
    public init(bundleURL: URL) throws(ManifestError) {
        func fail(_ reason: String) -> ManifestError { ManifestError(bundleURL: bundleURL, reason: reason) }
        let plistURL = bundleURL.appendingPathComponent("Info.plist")
        guard let data = try? Data(contentsOf: plistURL), data.count <= 1 << 20,
            let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
        else { throw fail("no readable Info.plist") }
        guard let identifier = plist["CFBundleIdentifier"] as? String, !identifier.isEmpty else { throw fail("no CFBundleIdentifier") }
        // Apple's rule for bundle identifiers (letters, digits, hyphens and periods), and the install folder is named by
        // it: "../../x" named a folder outside the one installed into.
        guard Self.isValidBundleIdentifier(identifier) else {
            throw fail("CFBundleIdentifier \(identifier.prefix(80).debugDescription) is not a reverse-DNS identifier (letters, digits, - and .)")
        }
        guard let executable = plist["CFBundleExecutable"] as? String, !executable.isEmpty, !executable.contains("/"), executable != "..",
            executable != "."
        else { throw fail("CFBundleExecutable must name a file in the bundle") }
        guard let ext = plist["NSExtension"] as? [String: Any], ext["NSExtensionPointIdentifier"] as? String == Self.extensionPointIdentifier
        else { throw fail("not a photo editing extension (NSExtensionPointIdentifier is not \(Self.extensionPointIdentifier))") }
        let attributes = ext["NSExtensionAttributes"] as? [String: Any] ?? [:]
        let types = (attributes["PHSupportedMediaTypes"] as? [String] ?? []).map { ($0, MediaType(rawValue: $0)) }
        if let unknown = types.first(where: { $0.1 == nil }) { throw fail("unknown PHSupportedMediaTypes entry \(unknown.0)") }
        guard !types.isEmpty else { throw fail("PHSupportedMediaTypes is empty") }
        var settings: [Setting] = []
        for entry in attributes["OpenPhotoKitSettings"] as? [[String: Any]] ?? [] {
            guard let name = entry["Name"] as? String, !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }),
                let defaultValue = entry["Default"] as? String
            else { throw fail("a setting needs a Name (letters, digits, - and _) and a Default") }
            let kind: Setting.Kind
            switch entry["Type"] as? String {
            case "Number":
                guard let minimum = (entry["Minimum"] as? NSNumber)?.doubleValue, let maximum = (entry["Maximum"] as? NSNumber)?.doubleValue,
                    minimum <= maximum
                else { throw fail("the number setting \(name) needs Minimum ≤ Maximum") }
                kind = .number(minimum: minimum, maximum: maximum)
            case "Boolean": kind = .boolean
            case "Choice":
                guard let values = entry["Values"] as? [String], !values.isEmpty else { throw fail("the choice setting \(name) needs Values") }
                kind = .choice(values)
            case "UnitRect": kind = .unitRect
            default: throw fail("the setting \(name) has an unknown Type")
            }
            let setting = Setting(name: name, kind: kind, defaultValue: defaultValue, summary: entry["Summary"] as? String ?? "")
            guard setting.value(defaultValue) != nil else { throw fail("the default of \(name) does not fit its declaration") }
            settings.append(setting)
        }
        let executableURL = bundleURL.appendingPathComponent(executable)
        guard access(executableURL.path, X_OK) == 0 else { throw fail("\(executable) is not an executable file in the bundle") }
        self.bundleIdentifier = identifier
        self.displayName = plist["CFBundleDisplayName"] as? String ?? identifier
        self.executableURL = executableURL
        self.bundleURL = bundleURL
        self.supportedMediaTypes = Set(types.compactMap(\.1))
        self.settings = settings
    }

    /// Whether `identifier` is a bundle identifier as Apple defines one: ASCII letters, digits, hyphens and periods, at
    /// most 255 characters, made of non-empty components (so never `.`, `..` or a path).
    static func isValidBundleIdentifier(_ identifier: String) -> Bool {
        guard identifier.utf8.count <= 255 else { return false }
        let components = identifier.split(separator: ".", omittingEmptySubsequences: false)
        return components.allSatisfy { component in
            !component.isEmpty && component.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2D }
        }
    }

    // MARK: - Installing

    /// Installs an extension program: runs `PROGRAM --print-info-plist` (for at most 10 seconds), checks the manifest,
    /// and makes `FOLDER/<bundle identifier>.photoextension` with the `Info.plist` and a copy of the program, replacing
    /// an earlier install of the same identifier.
    /// - parameter name: the program's name in the bundle (default: its file name).
    @discardableResult
    public static func install(executable: URL, into folder: URL, as name: String? = nil) throws(ManifestError) -> EditingExtension {
        let fm = FileManager.default
        let staging = folder.appendingPathComponent(".install-\(UUID().uuidString)")
        func fail(_ reason: String) -> ManifestError { ManifestError(bundleURL: executable, reason: reason) }
        defer { try? fm.removeItem(at: staging) }
        let program = staging.appendingPathComponent(name ?? executable.lastPathComponent)
        do {
            try fm.createDirectory(at: staging, withIntermediateDirectories: true)
            try ExtensionSandbox.copyProgram(executable, to: program)
        } catch {
            throw fail("cannot copy it into \(folder.path): \(error.localizedDescription)")
        }
        // Even asked for its manifest, the program is someone else's: it runs in the sandbox, in an empty folder.
        let scratch: EditingWorkspace
        do { scratch = try EditingWorkspace() } catch { throw fail("cannot make a folder to run it in: \(error)") }
        let process = Process()
        do {
            let (launcher, arguments) = try ExtensionSandbox.command(executable: program, arguments: ["--print-info-plist"], workspace: scratch.url)
            process.executableURL = launcher
            process.arguments = arguments
        } catch {
            throw fail(error.description)
        }
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": scratch.url.path, "TMPDIR": scratch.url.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        let errors = Pipe()
        process.standardError = errors
        do { try ExtensionSandbox.run(process) } catch { throw fail("it cannot be run: \(error.localizedDescription)") }
        try? errors.fileHandleForWriting.close()
        let errorText = Mutex<Data>(Data())
        Thread.detachNewThread {
            let data = errors.fileHandleForReading.readDataToEndOfFile()
            errorText.withLock { $0 = data.prefix(2000) }
        }
        let reader = Mutex<Data>(Data())
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            reader.withLock { $0 = data }
            done.signal()
        }
        if done.wait(timeout: .now() + 30) == .timedOut {
            process.terminate()
            throw fail("it did not print its Info.plist within 30 s (is it a photo editing extension?)")
        }
        process.waitUntilExit()
        let plist = reader.withLock { $0 }
        guard process.terminationStatus == 0, !plist.isEmpty else {
            let printed = String(decoding: errorText.withLock { $0 }, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw fail("it did not print an Info.plist (--print-info-plist)\(printed.isEmpty ? "" : ": \(printed)")")
        }
        do { try plist.write(to: staging.appendingPathComponent("Info.plist")) } catch { throw fail("cannot write its Info.plist") }
        let checked: EditingExtension
        do { checked = try EditingExtension(bundleURL: staging) } catch { throw fail(error.reason) }
        let target = folder.appendingPathComponent("\(checked.bundleIdentifier).photoextension")
        try? fm.removeItem(at: target)
        do { try fm.moveItem(at: staging, to: target) } catch { throw fail("cannot install into \(target.path): \(error.localizedDescription)") }
        return try EditingExtension(bundleURL: target)
    }

    // MARK: - Discovery

    /// Where extensions are found, in order: the folders of `$OPENPHOTOKIT_EXTENSIONS` (colon-separated), the
    /// user's data folder (`$XDG_DATA_HOME/openphotokit/extensions`, else `~/.local/share/openphotokit/extensions`),
    /// then the system's (`/usr/local/share/openphotokit/extensions`, `/usr/share/openphotokit/extensions`).
    public static var searchPaths: [URL] {
        let environment = ProcessInfo.processInfo.environment
        var paths = (environment["OPENPHOTOKIT_EXTENSIONS"] ?? "").split(separator: ":").map { URL(fileURLWithPath: String($0)) }
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty {
            paths.append(URL(fileURLWithPath: data).appendingPathComponent("openphotokit/extensions"))
        } else {
            paths.append(FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share/openphotokit/extensions"))
        }
        paths += ["/usr/local/share/openphotokit/extensions", "/usr/share/openphotokit/extensions"].map { URL(fileURLWithPath: $0) }
        return paths
    }

    /// The extensions installed in `searchPaths`, and the folders that look like extensions but cannot be used. An
    /// identifier found twice is taken from the first folder (so `$OPENPHOTOKIT_EXTENSIONS` overrides the others).
    public static func installed(in searchPaths: [URL] = EditingExtension.searchPaths) -> (
        extensions: [EditingExtension], problems: [ManifestError]
    ) {
        var found: [EditingExtension] = []
        var problems: [ManifestError] = []
        var seen = Set<String>()
        for folder in searchPaths {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { continue }
            for name in names.sorted() where name.hasSuffix(".photoextension") {
                do {
                    let candidate = try EditingExtension(bundleURL: folder.appendingPathComponent(name))
                    if seen.insert(candidate.bundleIdentifier).inserted { found.append(candidate) }
                } catch {
                    problems.append(error)
                }
            }
        }
        return (found, problems)
    }

    /// The installed extension with a bundle identifier or display name (case-insensitive), or a unique prefix of one.
    public static func named(_ name: String, in searchPaths: [URL] = EditingExtension.searchPaths) -> EditingExtension? {
        let all = installed(in: searchPaths).extensions
        let lower = name.lowercased()
        if let exact = all.first(where: { $0.bundleIdentifier.lowercased() == lower || $0.displayName.lowercased() == lower }) { return exact }
        let prefixed = all.filter { $0.bundleIdentifier.lowercased().hasPrefix(lower) || $0.displayName.lowercased().hasPrefix(lower) }
        return prefixed.count == 1 ? prefixed[0] : nil
    }

    /// Checks settings typed as NAME=VALUE against the declarations; the declared defaults fill the rest.
    /// - throws: ``EditingExtensionError/invalidSetting(extension:name:reason:)``.
    package func resolveSettings(_ given: [String: String]) throws(EditingExtensionError) -> [String: EditingExtensionWire.SettingValue] {
        var values: [String: EditingExtensionWire.SettingValue] = [:]
        for (name, text) in given {
            guard let setting = settings.first(where: { $0.name == name }) else {
                throw .invalidSetting(
                    extension: displayName, name: name,
                    reason: "not a setting of this extension (\(settings.map(\.name).joined(separator: ", ").nilIfEmpty ?? "it has none"))")
            }
            guard let value = setting.value(text) else {
                throw .invalidSetting(extension: displayName, name: name, reason: "\(text) is not in \(setting.range)")
            }
            values[name] = value
        }
        for setting in settings where values[setting.name] == nil { values[setting.name] = setting.value(setting.defaultValue) }
        return values
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}

extension Process {
    /// Starts the process, trying again for a moment when the start fails while the executable is there.
    ///
    /// A program copied a moment ago (an extension just installed) cannot be executed while any process still
    /// holds it open for writing (ETXTBSY), and a child that another thread forked during the copy holds the copy's
    /// descriptor until that child calls exec. The window is short; Foundation reports it only as a generic error.
    func runRetryingBusyExecutable() throws {
        var attempt = 0
        while true {
            do {
                try run()
                return
            } catch {
                attempt += 1
                guard attempt < 40, let path = executableURL?.path, FileManager.default.isExecutableFile(atPath: path) else { throw error }
                Thread.sleep(forTimeInterval: 0.025)
            }
        }
    }
}
