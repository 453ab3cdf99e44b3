import Foundation

/// The one shortcut past libvips: an 8-bit sRGB bitmap, through at most one affine colour step (Core Image's colour
/// matrices, exposure, temperature, saturation… merged into one by ``AffineColourNode``), rendered into an 8-bit sRGB
/// bitmap — what every frame of a filtered video is. libvips would run it as a float image of a dozen passes
/// (16 bytes a pixel through each); this is one pass over the bytes with the same arithmetic: each byte to linear
/// light through a 256-entry table, the 3×3 matrix and offset in `Float`, back through a 16,384-entry table of the
/// sRGB curve (within ½ of an 8-bit level of the exact curve), or, when the matrix keeps channels apart, three
/// byte-to-byte tables of the same arithmetic; rows split over the cores. Anything else goes through the graph as
/// before; tests hold the two paths to the same pixels (±1).
enum DirectColourRender {
    /// What the shortcut reads: the source bitmap and the colour step over it.
    struct Plan {
        let source: CGImage
        let bytes: NSData
        let matrix: [Float]
        let offset: [Float]
    }

    /// The plan for rendering `node` into `region` as 8-bit sRGB RGBA, nil when the graph is not that shape.
    static func plan(_ node: ImageNode, region: PixelRect, layout: BitmapLayout, colorSpace: CGColorSpace) -> Plan? {
        guard layout.components == 4, layout.bitsPerComponent == 8, !layout.half, !layout.gray, layout.order == nil,
            colorSpace.isPlainSRGB
        else { return nil }
        var current = node
        while let crop = current as? CropNode {
            guard let inside = crop.pixelExtent, inside.contains(region) else { return nil }
            current = crop.input
        }
        var matrix: [Double] = AffineColourNode.identity, offset: [Double] = [0, 0, 0]
        if let colour = current as? AffineColourNode {
            (matrix, offset) = (colour.matrix, colour.offset)
            current = colour.input
        }
        guard let source = current as? SourceNode, case .pixels(let image) = source.origin,
            source.colorSpace?.isPlainSRGB ?? true, image.bitsPerComponent == 8, image.bitsPerPixel == 32,
            image.alphaInfo == .noneSkipLast, image.bitmapInfo.byteOrder == .byteOrderDefault,
            PixelRect(x: 0, y: 0, width: image.width, height: image.height).contains(region)
        else { return nil }
        // Coefficients a float sum cannot overflow into a NaN with.
        guard (matrix + offset).allSatisfy({ $0.isFinite && abs($0) < 1e6 }) else { return nil }
        return Plan(source: image, bytes: image.bytes, matrix: matrix.map(Float.init), offset: offset.map(Float.init))
    }

    /// Sampled sRGB → linear light, per byte.
    static let decodeTable: [Float] = (0..<256).map { Float(ColourMath.decodeSRGB(Double($0) / 255)) }

    static let encodeSteps = 16_384
    /// Linear light in 0…1 (quantised to `encodeSteps`) → the sRGB byte.
    static let encodeTable: [UInt8] = (0...encodeSteps).map {
        UInt8((ColourMath.encodeSRGB(Double($0) / Double(encodeSteps)) * 255).rounded())
    }

    /// The linear value `x` (any float) as the sRGB byte: clipped to 0…1, through ``encodeTable``.
    @inline(__always) static func encoded(_ x: Float, _ encode: UnsafeBufferPointer<UInt8>) -> UInt8 {
        encode[Int(min(max(x, 0), 1) * Float(encodeSteps) + 0.5)]
    }

    /// Renders the plan's `region` (Core Image coordinates, origin bottom left) into `data`, opaque.
    static func render(_ plan: Plan, region: PixelRect, into data: UnsafeMutableRawPointer, rowBytes: Int) {
        let m = plan.matrix, b = plan.offset
        if m[1] == 0, m[2] == 0, m[3] == 0, m[5] == 0, m[6] == 0, m[7] == 0 {
            // Each channel alone: three byte → byte tables of the same arithmetic (what most video looks are).
            let tables = encodeTable.withUnsafeBufferPointer { encode in
                (0..<3).flatMap { c in decodeTable.map { encoded(m[4 * c] * $0 + b[c], encode) } }
            }
            tables.withUnsafeBufferPointer { table in
                nonisolated(unsafe) let table = table
                forEachRow(plan, region, data, rowBytes) { input, output, width in
                    for x in 0..<width {
                        output[4 * x] = table[Int(input[4 * x])]
                        output[4 * x + 1] = table[256 + Int(input[4 * x + 1])]
                        output[4 * x + 2] = table[512 + Int(input[4 * x + 2])]
                        output[4 * x + 3] = 255
                    }
                }
            }
            return
        }
        let (m0, m1, m2, m3, m4, m5, m6, m7, m8) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
        let (b0, b1, b2) = (b[0], b[1], b[2])
        decodeTable.withUnsafeBufferPointer { decode in
            encodeTable.withUnsafeBufferPointer { encode in
                nonisolated(unsafe) let (decode, encode) = (decode, encode)
                forEachRow(plan, region, data, rowBytes) { input, output, width in
                    for x in 0..<width {
                        let r = decode[Int(input[4 * x])], g = decode[Int(input[4 * x + 1])], bl = decode[Int(input[4 * x + 2])]
                        output[4 * x] = encoded(m0 * r + m1 * g + m2 * bl + b0, encode)
                        output[4 * x + 1] = encoded(m3 * r + m4 * g + m5 * bl + b1, encode)
                        output[4 * x + 2] = encoded(m6 * r + m7 * g + m8 * bl + b2, encode)
                        output[4 * x + 3] = 255
                    }
                }
            }
        }
    }

    /// Calls `body` with each row of the region's source pixels and its destination row, in bands of rows over the
    /// cores (the bands write disjoint rows and read the immutable source).
    static func forEachRow(
        _ plan: Plan, _ region: PixelRect, _ data: UnsafeMutableRawPointer, _ rowBytes: Int,
        _ body: @Sendable (UnsafePointer<UInt8>, UnsafeMutablePointer<UInt8>, Int) -> Void
    ) {
        let image = plan.source
        let rows = region.height, width = region.width, stride = image.bytesPerRow
        let bands = max(1, min(ProcessInfo.processInfo.activeProcessorCount, rows / 64))
        nonisolated(unsafe) let source = UnsafeRawPointer(plan.bytes.bytes) + (image.height - region.maxY) * stride + region.x * 4
        nonisolated(unsafe) let destination = data
        withExtendedLifetime(plan) {
            DispatchQueue.concurrentPerform(iterations: bands) { band in
                for row in (rows * band / bands)..<(rows * (band + 1) / bands) {
                    body(
                        (source + row * stride).assumingMemoryBound(to: UInt8.self),
                        (destination + row * rowBytes).assumingMemoryBound(to: UInt8.self), width)
                }
            }
        }
    }
}

extension CGColorSpace {
    /// Whether the space is sRGB itself (named or by profile), not extended, linear or another gamut.
    var isPlainSRGB: Bool { encoding == CGColorSpace(name: CGColorSpace.sRGB)!.encoding }
}
