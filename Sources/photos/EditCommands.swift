import BuiltInEditor
import ArgumentParser
import CommandLineSupport
import EditingExtensionHost
import Foundation
import OpenPhotos
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

struct Edit: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Edit a photo with the built-in editor (non-destructive: the original is kept).",
        discussion: """
            The edit is a recipe (org.openphotokit.adjustment 1.0) rendered through Core Image from the asset's previous \
            version: editing again changes the recipe — a step given again replaces the earlier one — instead of \
            stacking renderings. --reset STEP removes a step (crop, rotate, flip, straighten, exposure, contrast, \
            saturation, vibrance, warmth, tint, highlights, shadows, look, vignette, or all). An asset whose recipe is \
            another editor's is edited on top of its current version. Looks: chrome, fade, instant, mono, noir, process, \
            tonal, transfer. `photos revert` goes back to the original.
            """)
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Local identifier (or a unique prefix).") var id: String
    @Option(help: "Keep X,Y,W,H of the upright original, in unit coordinates from the top left.") var crop: String?
    @Option(help: "Straighten by DEG degrees (−45…45), counter-clockwise.") var straighten: Double?
    @Option(help: "Rotate clockwise by 90, 180 or 270 degrees.") var rotate: Int?
    @Flag(help: "Mirror left to right.") var flip = false
    @Option(help: "Exposure in EV (−10…10).") var exposure: Double?
    @Option(help: "Contrast (0…4, 1 unchanged).") var contrast: Double?
    @Option(help: "Saturation (0…4, 1 unchanged).") var saturation: Double?
    @Option(help: "Vibrance (−1…1).") var vibrance: Double?
    @Option(help: "Warmth (−1 cooler … 1 warmer).") var warmth: Double?
    @Option(help: "Tint (−1 green … 1 magenta).") var tint: Double?
    @Option(help: "Highlights (−1…0).") var highlights: Double?
    @Option(help: "Shadows (−1…1).") var shadows: Double?
    @Option(help: "Vignette intensity (−1…1).") var vignette: Double?
    @Option(help: "A look: chrome, fade, instant, mono, noir, process, tonal or transfer.") var look: String?
    @Option(help: "Remove a step from the recipe (repeatable; 'all' removes every step).") var reset: [String] = []
    @Option(help: "Edit with a photo editing extension instead (its identifier or name; see photos extensions).") var with: String?
    @Option(name: .customLong("set"), help: "A setting of the extension, NAME=VALUE (repeatable).") var settings: [String] = []

    func steps() throws -> [PhotoEditRecipe.Step] {
        var steps: [PhotoEditRecipe.Step] = []
        if let crop {
            let v = crop.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard v.count == 4 else { throw CLIError("--crop wants X,Y,W,H in unit coordinates") }
            steps.append(.crop(x: v[0], y: v[1], width: v[2], height: v[3]))
        }
        if let rotate {
            guard [90, 180, 270].contains(rotate) else { throw CLIError("--rotate is 90, 180 or 270") }
            steps.append(.rotate(quarterTurns: rotate / 90))
        }
        if flip { steps.append(.flip) }
        if let straighten { steps.append(.straighten(degrees: straighten)) }
        if let exposure { steps.append(.exposure(ev: exposure)) }
        if let contrast { steps.append(.contrast(contrast)) }
        if let saturation { steps.append(.saturation(saturation)) }
        if let vibrance { steps.append(.vibrance(vibrance)) }
        if let warmth { steps.append(.warmth(warmth)) }
        if let tint { steps.append(.tint(tint)) }
        if let highlights { steps.append(.highlights(highlights)) }
        if let shadows { steps.append(.shadows(shadows)) }
        if let vignette { steps.append(.vignette(intensity: vignette)) }
        if let look { steps.append(.look(look.lowercased())) }
        if let problem = steps.lazy.compactMap(\.problem).first { throw CLIError(problem) }
        return steps
    }

    func run() throws {
        if let with { return try runExtension(with) }
        if !settings.isEmpty { throw CLIError("--set goes with --with EXTENSION") }
        let changes = try steps()
        let kinds = Set(PhotoEditRecipe.Step.order)
        for name in reset where name != "all" && !kinds.contains(name) {
            throw CLIError("--reset \(name): not a step (\(PhotoEditRecipe.Step.order.joined(separator: ", ")), or all)")
        }
        guard !changes.isEmpty || !reset.isEmpty else { throw CLIError("nothing to change: give a step (see photos edit --help)") }
        let library = try global.open()
        let asset = try resolveAsset(id, in: library, global: global)
        let reset = self.reset
        let result = try waitFor {
            try await PhotoEditRecipe.edit(asset) { recipe in
                var recipe = recipe
                for name in reset { recipe = name == "all" ? PhotoEditRecipe() : recipe.resetting(name) }
                for step in changes { recipe = recipe.setting(step) }
                guard recipe.steps.count <= PhotoEditRecipe.maximumSteps else { throw CLIError("the recipe would be too long") }
                return recipe
            }
        }
        let edited = try resolveAsset(asset.localIdentifier, in: library, global: global)
        if global.json {
            var object = Output.asset(edited)
            object["recipe"] = result.recipe.steps.map { "\($0)" }
            object["reopened"] = result.reopened
            Output.printJSON(object)
        } else {
            print(Output.assetLine(edited))
            print(
                "  recipe: \(result.recipe.steps.isEmpty ? "(none: reverted to the original)" : result.recipe.steps.map { "\($0)" }.joined(separator: ", "))"
            )
        }
    }
}

extension Edit {
    /// The edit by an extension: run as its own process, cancelled (after a confirmation when it asks for one and a
    /// terminal is attached) on Ctrl-C; nothing is committed unless it finishes.
    func runExtension(_ name: String) throws {
        guard try steps().isEmpty, reset.isEmpty else { throw CLIError("--with edits with an extension; give its settings with --set") }
        guard let editingExtension = EditingExtension.named(name) else {
            let known = EditingExtension.installed().extensions.map(\.bundleIdentifier)
            throw CLIError(
                "no extension \(name) (installed: \(known.isEmpty ? "none; see photos extensions install" : known.joined(separator: ", ")))")
        }
        var values: [String: String] = [:]
        for setting in settings {
            let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else { throw CLIError("--set wants NAME=VALUE, not \(setting)") }
            values[parts[0]] = parts[1]
        }
        let library = try global.open()
        let asset = try resolveAsset(id, in: library, global: global)
        let session = EditingSession(extension: editingExtension, asset: asset, settings: values)
        Interruption.cooperate()
        // The session runs on a thread of its own; this one looks for Ctrl-C while it waits.
        let cancelled = Mutex(false)
        let outcome = waitForCallback(
            { (done: @escaping @Sendable (Result<PHAsset, EditingExtensionError>) -> Void) in
                Thread.detachNewThread { done(Result { () throws(EditingExtensionError) -> PHAsset in try session.run() }) }
            },
            whileWaiting: {
                guard Interruption.requested, !cancelled.withLock({ $0 }) else { return }
                if session.shouldShowCancelConfirmation == true, isatty(STDIN_FILENO) == 1 {
                    FileHandle.standardError.write(Data("\(editingExtension.displayName) asks: discard the edit in progress? [y/N] ".utf8))
                    let answer = readLine()?.lowercased() ?? ""
                    if !answer.hasPrefix("y") {
                        Interruption.clear()
                        return
                    }
                }
                cancelled.withLock { $0 = true }
                session.cancel()
            })
        switch outcome {
        case .failure(.cancelled(let name)):
            FileHandle.standardError.write(Data("the edit with \(name) was cancelled; nothing was changed\n".utf8))
            throw ExitCode(Interruption.exitStatus)
        case .failure(let error):
            throw CLIError(error.description)
        case .success(let edited):
            if global.json {
                var object = Output.asset(edited)
                object["extension"] = editingExtension.bundleIdentifier
                Output.printJSON(object)
            } else {
                print(Output.assetLine(edited))
                print("  edited with \(editingExtension.displayName) (\(editingExtension.bundleIdentifier))")
            }
        }
    }
}

struct Extensions: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the photo editing extensions installed, or install one.",
        discussion: """
            Extensions are found in $OPENPHOTOKIT_EXTENSIONS (folders separated by ':'),             ~/.local/share/openphotokit/extensions (or $XDG_DATA_HOME/openphotokit/extensions),             /usr/local/share/openphotokit/extensions and /usr/share/openphotokit/extensions. Edit with one:             photos edit ID --with EXTENSION [--set NAME=VALUE]...
            """,
        subcommands: [ListExtensions.self, InstallExtension.self], defaultSubcommand: ListExtensions.self)

    struct ListExtensions: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "The installed extensions and their settings.")
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let (found, problems) = EditingExtension.installed()
            if global.json {
                Output.printJSON([
                    "extensions": found.map { ext -> [String: Any] in
                        [
                            "bundleIdentifier": ext.bundleIdentifier, "displayName": ext.displayName, "path": ext.bundleURL.path,
                            "supportedMediaTypes": ext.supportedMediaTypes.map(\.rawValue).sorted(),
                            "settings": ext.settings.map { ["name": $0.name, "range": $0.range, "default": $0.defaultValue, "summary": $0.summary] },
                        ]
                    },
                    "problems": problems.map(\.description),
                ])
                return
            }
            if found.isEmpty { print("no photo editing extensions installed (photos extensions install PROGRAM)") }
            for ext in found {
                print("\(ext.bundleIdentifier)  \(ext.displayName)  \(ext.supportedMediaTypes.map(\.rawValue).sorted().joined(separator: ", "))")
                for setting in ext.settings {
                    print(
                        "    --set \(setting.name)=…  \(setting.range), default \(setting.defaultValue)\(setting.summary.isEmpty ? "" : ": \(setting.summary)")"
                    )
                }
            }
            for problem in problems { FileHandle.standardError.write(Data("warning: \(problem)\n".utf8)) }
        }
    }

    struct InstallExtension: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "install", abstract: "Install an extension program (it prints its Info.plist with --print-info-plist).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The extension program.") var program: String
        @Option(help: "The folder to install into (default: the first of $OPENPHOTOKIT_EXTENSIONS, else the user's).") var into: String?

        func run() throws {
            let folder = into.map { URL(fileURLWithPath: $0) } ?? EditingExtension.searchPaths[0]
            do { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) } catch {
                throw CLIError("cannot create \(folder.path): \(error.localizedDescription)")
            }
            let installed: EditingExtension
            do { installed = try EditingExtension.install(executable: URL(fileURLWithPath: program), into: folder) } catch {
                throw CLIError(error.description)
            }
            if global.json {
                Output.printJSON(["bundleIdentifier": installed.bundleIdentifier, "path": installed.bundleURL.path])
            } else {
                print("installed \(installed.displayName) (\(installed.bundleIdentifier)) in \(installed.bundleURL.path)")
            }
        }
    }
}

struct Revert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Revert assets to their originals (PHAssetChangeRequest.revertAssetContentToOriginal).",
        discussion: "Every edit goes: renderings, previous versions and adjustment data are removed; the originals were never changed.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Local identifiers (or unique prefixes).") var ids: [String]

    func run() throws {
        let library = try global.open()
        let assets = try ids.map { try resolveAsset($0, in: library, global: global) }
        try perform(library) { for asset in assets where asset.hasAdjustments { PHAssetChangeRequest(for: asset).revertAssetContentToOriginal() } }
        let reverted = try assets.map { try resolveAsset($0.localIdentifier, in: library, global: global) }
        if global.json {
            Output.printJSON(reverted.map { Output.asset($0) })
        } else {
            for asset in reverted { print(Output.assetLine(asset)) }
        }
    }
}
