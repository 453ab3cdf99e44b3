import Foundation
import OpenPhotos
import PhotoEditingProtocol

/// OpenPhotoKit: why an edit through a photo editing extension did not happen. Every case names the extension;
/// whatever the case, nothing was committed to the library.
public enum EditingExtensionError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The extension does not edit this kind of asset (its `PHSupportedMediaTypes`).
    case unsupportedMediaType(extension: String, mediaType: String)
    /// A setting the host was given is not declared, or its value does not fit the declaration.
    case invalidSetting(extension: String, name: String, reason: String)
    /// The asset's editing input could not be made (access, a missing file, a deleted asset); the extension did not
    /// get to edit it.
    case inputUnavailable(extension: String, reason: String)
    /// The extension's program could not be started.
    case launchFailed(extension: String, reason: String)
    /// The extension exited or was killed before it answered (`phase` is the call it did not answer).
    case crashed(extension: String, phase: String, status: String)
    /// The extension did not answer `phase` within `seconds`; it was killed.
    case timedOut(extension: String, phase: String, seconds: Double)
    /// The extension wrote something that is not the protocol, or answered out of order.
    case protocolViolation(extension: String, detail: String)
    /// The extension's output was refused: outside its folder, not a file, or the library's validation failed.
    case invalidOutput(extension: String, reason: String)
    /// The extension finished without an output (its completion handler was given nil).
    case noOutput(extension: String)
    /// The edit was cancelled.
    case cancelled(extension: String)

    public var description: String {
        switch self {
        case .unsupportedMediaType(let name, let type): "\(name) does not edit \(type) assets"
        case .invalidSetting(let name, let setting, let reason): "\(name): the setting \(setting): \(reason)"
        case .inputUnavailable(let name, let reason): "the asset cannot be edited with \(name): \(reason)"
        case .launchFailed(let name, let reason): "\(name) could not be started: \(reason)"
        case .crashed(let name, let phase, let status): "\(name) stopped during \(phase) (\(status)); nothing was changed"
        case .timedOut(let name, let phase, let seconds): "\(name) did not answer \(phase) within \(seconds) s; it was stopped"
        case .protocolViolation(let name, let detail): "\(name) broke the extension protocol: \(detail)"
        case .invalidOutput(let name, let reason): "\(name) gave an output that was refused: \(reason)"
        case .noOutput(let name): "\(name) finished without an output; nothing was changed"
        case .cancelled(let name): "the edit with \(name) was cancelled; nothing was changed"
        }
    }

    /// The extension the error names.
    public var extensionName: String {
        switch self {
        case .unsupportedMediaType(let name, _), .invalidSetting(let name, _, _), .inputUnavailable(let name, _), .launchFailed(let name, _),
            .crashed(let name, _, _),
            .timedOut(let name, _, _), .protocolViolation(let name, _), .invalidOutput(let name, _), .noOutput(let name), .cancelled(let name):
            name
        }
    }
}

extension EditingExtensionError: LocalizedError {
    public var errorDescription: String? { description }
}
