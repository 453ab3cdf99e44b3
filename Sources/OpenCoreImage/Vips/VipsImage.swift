import CVipsShims
import Foundation

/// One reference to a libvips image: a node of a lazy, demand-driven pipeline. Nothing is computed until a sink
/// (a save, a copy to memory) pulls pixels through it. libvips images are immutable once built and may be read
/// from any thread.
final class VImage: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<VipsImage>

    /// Takes ownership of a reference.
    init(owning pointer: UnsafeMutablePointer<VipsImage>) { self.pointer = pointer }

    deinit { g_object_unref(pointer) }

    var width: Int { Int(vips_image_get_width(pointer)) }
    var height: Int { Int(vips_image_get_height(pointer)) }
    var bands: Int { Int(vips_image_get_bands(pointer)) }
    var format: VipsBandFormat { vips_image_get_format(pointer) }
    var interpretation: VipsInterpretation { vips_image_get_interpretation(pointer) }

    /// A metadata blob ("exif-data", "icc-profile-data", "xmp-data"), copied.
    func blob(_ name: String) -> Data? {
        var length = 0
        guard let bytes = cvips_blob(pointer, name, &length), length > 0 else { return nil }
        return Data(bytes: bytes, count: length)
    }

    func int(_ name: String) -> Int? {
        guard vips_image_get_typeof(pointer, name) != 0 else { return nil }
        var value: Int32 = 0
        guard vips_image_get_int(pointer, name, &value) == 0 else { return nil }
        return Int(value)
    }

    func double(_ name: String) -> Double? {
        guard vips_image_get_typeof(pointer, name) != 0 else { return nil }
        var value = 0.0
        guard vips_image_get_double(pointer, name, &value) == 0 else { return nil }
        return value
    }

    func string(_ name: String) -> String? {
        guard vips_image_get_typeof(pointer, name) != 0 else { return nil }
        var value: UnsafePointer<CChar>?
        guard vips_image_get_string(pointer, name, &value) == 0, let value else { return nil }
        return String(cString: value)
    }

    /// A copy sharing the pixels whose metadata is changed by `body`.
    func withMetadata(_ body: (UnsafeMutablePointer<VipsImage>) -> Void) throws(VipsError) -> VImage {
        guard let copy = cvips_copy(pointer) else { throw VipsError.take("copy") }
        body(copy)
        return VImage(owning: copy)
    }

    /// An image of pixels copied from memory (row by row, bands interleaved).
    static func fromMemory(
        _ bytes: UnsafeRawBufferPointer, width: Int, height: Int, bands: Int, format: VipsBandFormat,
        interpretation: VipsInterpretation
    ) throws(VipsError) -> VImage {
        guard let image = vips_image_new_from_memory_copy(bytes.baseAddress, bytes.count, Int32(width), Int32(height), Int32(bands), format)
        else { throw VipsError.take("new_from_memory_copy") }
        cvips_set_interpretation(image, Int32(interpretation.rawValue))
        return VImage(owning: image)
    }

    /// Computes every pixel into memory (the sink: the whole pipeline runs here, in parallel strips).
    func pixels() throws(VipsError) -> Data {
        var length = 0
        guard let memory = vips_image_write_to_memory(pointer, &length) else { throw VipsError.take("write_to_memory") }
        return Data(bytesNoCopy: memory, count: length, deallocator: .custom { pointer, _ in g_free(pointer) })
    }
}

/// A libvips failure, with libvips' own message.
struct VipsError: Error, CustomStringConvertible {
    var operation: String
    var message: String

    var description: String { message.isEmpty ? "libvips \(operation) failed" : "libvips \(operation): \(message)" }

    /// Takes (copies and clears) libvips' error buffer, atomically under libvips' own lock.
    static func take(_ operation: String) -> VipsError {
        var message = ""
        if let copy = vips_error_buffer_copy() {
            message = String(cString: copy)
            g_free(copy)
        }
        message = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "; ")
        return VipsError(operation: operation, message: message)
    }
}

/// libvips initialisation, once per process (idempotent with other modules that initialise it too).
enum VipsRuntime {
    static let initialized: Bool = {
        cvips_start() == 0
    }()

    static func start() {
        precondition(initialized, "OpenCoreImage: libvips could not be initialised")
    }
}
