import Foundation

/// Options of an app's background uploads (iOS 27).
open class PHAssetResourceUploadJobOptions: NSObject, NSCopying, @unchecked Sendable {
    /// Whether uploads keep off expensive networks (cellular). A server's network is never expensive: OpenPhotoKit
    /// keeps the option and sends jobs on any network.
    open var preventsExpensiveNetworkAccess = false

    public override init() {}

    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = PHAssetResourceUploadJobOptions()
        copy.preventsExpensiveNetworkAccess = preventsExpensiveNetworkAccess
        return copy
    }

    open override func isEqual(_ object: Any?) -> Bool {
        (object as? PHAssetResourceUploadJobOptions)?.preventsExpensiveNetworkAccess == preventsExpensiveNetworkAccess
    }

    open override var hash: Int { preventsExpensiveNetworkAccess.hashValue }

    var json: String { "{\"preventsExpensiveNetworkAccess\":\(preventsExpensiveNetworkAccess)}" }

    convenience init(json: String) {
        self.init()
        let object = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
        preventsExpensiveNetworkAccess = object?["preventsExpensiveNetworkAccess"] as? Bool ?? false
    }
}
