import ArgumentParser
import CommandLineSupport
import Foundation
import OpenPhotos

struct Grant: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decide what a client (PHOTOS_CLIENT_ID) may do: readWrite, addOnly, limited, denied, restricted or forget.",
        discussion: """
            On Apple platforms a system prompt decides; here the library's owner does (a process without
            PHOTOS_CLIENT_ID; a client cannot grant, not even to itself). Clients are processes that set
            PHOTOS_CLIENT_ID. `photos grant --default LEVEL` sets what clients get when they request authorization.
            Access levels keep cooperating programs of one user apart; they are not a security boundary against
            that user, who owns the files (see the AccessOnLinux article).
            """)
    @OptionGroup var global: GlobalOptions
    @Flag(name: .customLong("default"), help: "Set the level new clients get when they request authorization.") var isDefault = false
    @Argument(help: "CLIENT LEVEL, or LEVEL alone with --default. LEVEL: readWrite, addOnly, limited, denied, restricted or forget.")
    var values: [String]

    var client: String? { isDefault ? nil : values.first }
    var level: String { values.last ?? "" }

    func validate() throws {
        if isDefault, values.count != 1 { throw ValidationError("with --default, give only the level: photos grant --default readWrite") }
        if !isDefault, values.count != 2 { throw ValidationError("give the client and the level: photos grant CLIENT LEVEL") }
    }
    @Option(name: .customLong("asset"), help: "With limited: an asset of the client's selection (repeatable).") var assets: [String] = []

    func run() throws {
        let library = try global.open()
        let status: PHAuthorizationStatus
        var accessLevel = PHAccessLevel.readWrite
        switch level.lowercased() {
        case "readwrite": status = .authorized
        case "addonly":
            status = .authorized
            accessLevel = .addOnly
        case "limited": status = .limited
        case "denied": status = .denied
        case "restricted": status = .restricted
        case "forget": status = .notDetermined
        default: throw CLIError("unknown level '\(level)'; use readWrite, addOnly, limited, denied, restricted or forget")
        }
        do {
            if isDefault {
                try library.setDefaultAuthorization(status, accessLevel: accessLevel)
            } else {
                guard let client else { throw CLIError("name the client, or use --default") }
                let selection = try assets.map { try resolveAsset($0, in: library, global: global).localIdentifier }
                try library.setAuthorization(status, for: client, accessLevel: accessLevel, selection: selection)
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError(describe(error))
        }
        let who = isDefault ? "new clients" : client ?? ""
        if global.json { Output.printJSON(["client": who, "level": level]) } else { print("\(who): \(level)") }
    }
}
