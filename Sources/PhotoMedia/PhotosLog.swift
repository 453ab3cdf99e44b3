import Logging

/// The loggers of OpenPhotoKit (swift-log). A program chooses where they go and from which level with
/// `LoggingSystem.bootstrap`; the `photos` command shows warnings only with `--verbose`.
package enum PhotosLog {
    /// The library: failed fetches, recovery, access decisions.
    package static let library = Logger(label: "OpenPhotoKit")
    /// The media decoders: libvips, GLib and libheif warnings, with the file they concern.
    package static let media = Logger(label: "OpenPhotoKit.media")
}
