import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The libheif that libvips' HEIF loader uses — the system's `libheif.so.1`, the one way libheif is loaded.
///
/// HEIC files from iOS 18 need libheif 1.17 or newer (HDR gain maps and depth maps as auxiliary images); Debian 12
/// ships 1.15, which refuses them, and `scripts/setup.sh` installs 1.19 from Debian's bookworm-backports. When the
/// libheif in use is older, a HEIC it cannot read fails with ``MediaError/decoderTooOld(path:format:needs:found:)``
/// ("needs libheif ≥ 1.17, found 1.15"), never as a damaged file.
package enum HEIFRuntime {
    /// The libheif version HEIC from current iPhones needs.
    package static let versionForCurrentIPhoneHEIC = "1.17"

    /// The libheif in use, as one line for start-up reports ("libheif 1.19.7 (system)").
    package static var summary: String {
        guard let version else { return "no libheif: HEIC and AVIF will not load" }
        return readsCurrentIPhoneHEIC
            ? "libheif \(version) (system)"
            : "libheif \(version) (system): HEIC from iOS 18 needs libheif ≥ \(versionForCurrentIPhoneHEIC); run scripts/setup.sh"
    }

    /// Whether the libheif in use reads HEIC from iOS 18.
    package static var readsCurrentIPhoneHEIC: Bool { version.map(isCurrent) ?? false }

    /// The version of the `libheif.so.1` this process uses (nil when there is none).
    package static let version: String? = {
        #if canImport(Glibc)
            guard let handle = dlopen("libheif.so.1", RTLD_NOW | RTLD_GLOBAL), let symbol = dlsym(handle, "heif_get_version") else {
                return nil
            }
            typealias GetVersion = @convention(c) () -> UnsafePointer<CChar>?
            return unsafeBitCast(symbol, to: GetVersion.self)().map { String(cString: $0) }
        #else
            return nil
        #endif
    }()

    static func isCurrent(_ version: String) -> Bool {
        let parts = version.split(separator: ".").compactMap { Int($0) }
        guard parts.count >= 2 else { return false }
        return parts[0] > 1 || (parts[0] == 1 && parts[1] >= 17)
    }
}
