import CVipsShims
import Foundation

/// A libvips operation called by name with typed arguments, the way libvips' own language bindings call it:
///
/// ```swift
/// let out = try VipsCall("linear").image("in", input).doubles("a", [2]).doubles("b", [0]).output()
/// ```
///
/// Building runs no pixels: it adds a node to the lazy pipeline.
struct VipsCall: ~Copyable {
    private var op: UnsafeMutablePointer<CVipsShims.VipsOperation>?
    private let name: String

    init(_ name: String) {
        VipsRuntime.start()
        self.name = name
        self.op = cvips_operation_new(name)
        precondition(op != nil, "OpenCoreImage: libvips has no operation \(name)")
    }

    deinit { if let op { cvips_operation_discard(op) } }

    consuming func image(_ argument: String, _ value: VImage) -> VipsCall {
        check(argument)
        cvips_set_image(op, argument, value.pointer)
        return self
    }

    consuming func images(_ argument: String, _ values: [VImage]) -> VipsCall {
        check(argument)
        var pointers: [UnsafeMutablePointer<VipsImage>?] = values.map(\.pointer)
        cvips_set_images(op, argument, &pointers, Int32(pointers.count))
        withExtendedLifetime(values) {}
        return self
    }

    consuming func int(_ argument: String, _ value: Int) -> VipsCall {
        check(argument)
        cvips_set_int(op, argument, Int32(value))
        return self
    }

    consuming func double(_ argument: String, _ value: Double) -> VipsCall {
        check(argument)
        cvips_set_double(op, argument, value)
        return self
    }

    consuming func bool(_ argument: String, _ value: Bool) -> VipsCall {
        check(argument)
        cvips_set_bool(op, argument, value ? 1 : 0)
        return self
    }

    consuming func string(_ argument: String, _ value: String) -> VipsCall {
        check(argument)
        cvips_set_string(op, argument, value)
        return self
    }

    /// An enumeration argument by libvips' nickname ("centre", "srgb", "copy").
    consuming func enumeration(_ argument: String, _ nickname: String) -> VipsCall {
        check(argument)
        let status = cvips_set_enum(op, argument, nickname)
        precondition(status == 0, "OpenCoreImage: libvips \(name) has no \(argument) \(nickname)")
        return self
    }

    consuming func doubles(_ argument: String, _ values: [Double]) -> VipsCall {
        check(argument)
        cvips_set_doubles(op, argument, values, Int32(values.count))
        return self
    }

    consuming func ints(_ argument: String, _ values: [Int]) -> VipsCall {
        check(argument)
        cvips_set_ints(op, argument, values.map { Int32($0) }, Int32(values.count))
        return self
    }

    consuming func blob(_ argument: String, _ data: Data) -> VipsCall {
        check(argument)
        data.withUnsafeBytes { cvips_set_blob(op, argument, $0.baseAddress, $0.count) }
        return self
    }

    consuming func interpolate(_ argument: String, _ nickname: String) -> VipsCall {
        check(argument)
        let status = cvips_set_interpolate(op, argument, nickname)
        precondition(status == 0, "OpenCoreImage: libvips has no interpolator \(nickname)")
        return self
    }

    private func check(_ argument: String) {
        precondition(cvips_has_argument(op, argument) != 0, "OpenCoreImage: libvips \(name) has no argument \(argument)")
    }

    /// Builds the operation and returns its image output (`out` unless named).
    consuming func output(_ argument: String = "out") throws(VipsError) -> VImage {
        let operation = name
        let built = try build()
        defer { cvips_operation_release(built) }
        guard let image = cvips_get_image(built, argument) else { throw VipsError(operation: operation, message: "no \(argument)") }
        return VImage(owning: image)
    }

    /// Builds the operation and returns a double output (`out` unless named): statistics, averages.
    consuming func doubleOutput(_ argument: String = "out") throws(VipsError) -> Double {
        let built = try build()
        defer { cvips_operation_release(built) }
        return cvips_get_double(built, argument)
    }

    /// Builds the operation and returns a blob output (`buffer` unless named): what a `…save_buffer` encoded.
    consuming func blobOutput(_ argument: String = "buffer") throws(VipsError) -> Data {
        let operation = name
        let built = try build()
        defer { cvips_operation_release(built) }
        var length = 0
        guard let bytes = cvips_get_blob(built, argument, &length) else { throw VipsError(operation: operation, message: "no \(argument)") }
        return Data(bytesNoCopy: bytes, count: length, deallocator: .custom { pointer, _ in g_free(pointer) })
    }

    /// Builds an operation that only has side effects (a save to a file).
    consuming func run() throws(VipsError) {
        let built = try build()
        cvips_operation_release(built)
    }

    private consuming func build() throws(VipsError) -> UnsafeMutablePointer<CVipsShims.VipsOperation> {
        var pointer = op
        op = nil
        guard cvips_operation_build(&pointer) == 0, let pointer else { throw VipsError.take(name) }
        return pointer
    }
}
