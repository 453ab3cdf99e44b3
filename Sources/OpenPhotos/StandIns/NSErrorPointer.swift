import Foundation

/// Foundation's error out-parameter on Apple platforms (`AutoreleasingUnsafeMutablePointer<NSError?>?`), which
/// Linux's Foundation lacks: blocks such as `PHLivePhotoFrameProcessingBlock` set `error?.pointee` to report why
/// they failed.
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?
