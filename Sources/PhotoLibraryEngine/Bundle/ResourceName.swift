import Foundation

/// Original file names of resources: checked when they come in, and made safe before they name a file.
package enum ResourceName {
    /// The longest name a Linux file system takes (NAME_MAX, in bytes).
    package static let maximumLength = 255

    /// Refuses a name that could not be a file's own name: empty, `.` or `..`, with a `/`, NUL or another
    /// control character, or longer than ``maximumLength`` bytes of UTF-8.
    package static func validate(_ name: String) throws(LibraryError) {
        if name.isEmpty || name == "." || name == ".." || name.contains("/")
            || name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) || name.utf8.count > maximumLength
        {
            throw .invalidResource(
                "the original file name \(name.debugDescription.prefix(80)) is not a file name (no '/', no control characters, at most \(maximumLength) bytes)"
            )
        }
    }

    /// A name that is safe to create in a folder the caller chose: the last component only, control characters
    /// replaced, a leading dot removed (no hidden files, no `..`), at most ``maximumLength`` bytes with the
    /// extension kept; `fallback` when nothing is left. Names from the database are never trusted as paths.
    package static func safeFileName(_ name: String, fallback: String) -> String {
        let last = name.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? ""
        var cleaned = String(String.UnicodeScalarView(last.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "_" : $0 }))
        while cleaned.hasPrefix(".") { cleaned.removeFirst() }
        if cleaned.isEmpty { cleaned = fallback }
        guard cleaned.utf8.count > maximumLength else { return cleaned }
        let ext = (cleaned as NSString).pathExtension
        let suffix = ext.isEmpty || ext.utf8.count > 16 ? "" : "." + ext
        var stem = suffix.isEmpty ? cleaned : String(cleaned.dropLast(suffix.count))
        while stem.utf8.count + suffix.utf8.count > maximumLength { stem.removeLast() }
        return stem + suffix
    }
}
