import Foundation
import PhotoLibraryEngine

/// The abstract base of change requests. Requests exist only inside a change block
/// (``PHPhotoLibrary/performChanges(_:completionHandler:)``); creating one elsewhere traps, as Apple raises.
open class PHChangeRequest: NSObject, @unchecked Sendable {
    let context: ChangeBlockContext

    /// Registers the request with the running change block (traps outside one).
    override init() {
        self.context = ChangeBlockContext.require()
        super.init()
        context.requests.append(self)
    }

    /// What the request asks of the engine, read when the change block returns.
    func intents() -> [ChangeIntent] { [] }

    /// Checks that the request is used inside its change block.
    func checkInsideBlock() {
        guard ChangeBlockContext.current === context else {
            photoKitMisuse("A change request can only be used inside the change block that created it")
        }
    }
}

/// A request whose intents are fixed when it is made (deletions, recoveries).
final class FixedIntentRequest: PHChangeRequest, @unchecked Sendable {
    private let fixed: [ChangeIntent]

    init(_ intents: [ChangeIntent]) {
        self.fixed = intents
        super.init()
    }

    override func intents() -> [ChangeIntent] { fixed }
}
