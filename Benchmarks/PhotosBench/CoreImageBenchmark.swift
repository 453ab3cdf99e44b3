import ArgumentParser
import CBenchBaselines
import CVipsShims
import CommandLineSupport
import Foundation
import OpenPhotos
import PhotosTestHarness
import PhotosTesting

struct BenchCoreImage: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coreimage",
        abstract: "Measure OpenCoreImage against the same edits written directly against libvips.",
        discussion: """
            On a generated 12-MP JPEG, in one run, alternating which goes first, medians of --repetitions:
            an edit (straighten 2.5°, crop to the central 90 %, exposure +0.3 EV, saturation 1.15 / brightness 0.02 /
            contrast 1.1, vignette 0.4) written as a JPEG at quality 0.9, through CIImage / CIFilter / CIContext and
            through libvips directly (the ratio is the figure); a 1024-px preview of the same chain beginning with a
            downscale (shrink-on-load); a CIColorCube look and a CIPhotoEffectChrome against their libvips
            equivalents. Then the peak resident memory of a process that renders a 48-MP HEIC through the chain
            (generated as a grid of HEVC tiles like an iPhone's, 8064×6048, unless --heic names one), beside a
            process doing the same edit directly with libvips (whose heifload decodes the whole image). Build with
            -c release:
            swift run -c release photos-bench coreimage
            """)
    @Option(help: "Timed repetitions per measurement.") var repetitions = 7
    @Option(help: "A large HEIC for the memory figure (default: a generated 48-MP one).") var heic: String?
    @Flag(help: "Skip the 48-MP memory figure (encoding the file takes a minute).") var skipMemory = false
    @Flag(help: "Print JSON.") var json = false
    @Option(help: .hidden) var renderOnly: String?
    @Option(help: .hidden) var renderOnlyVips: String?

    static let angle = 2.5 * Double.pi / 180

    /// The edit as Core Image code writes it.
    static func edit(_ input: CIImage) -> CIImage {
        let straight = input.applyingFilter("CIStraightenFilter", parameters: [kCIInputAngleKey: angle])
        let e = straight.extent
        let (w, h) = (Int(e.width), Int(e.height))
        let (cw, ch) = (Int(Double(w) * 0.9), Int(Double(h) * 0.9))
        let (left, top) = ((w - cw) / 2, (h - ch) / 2)
        let cropped = straight.cropped(to: CGRect(x: Int(e.minX) + left, y: Int(e.minY) + h - top - ch, width: cw, height: ch))
        return
            cropped
            .applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: 0.3])
            .applyingFilter("CIColorControls", parameters: [kCIInputSaturationKey: 1.15, kCIInputBrightnessKey: 0.02, kCIInputContrastKey: 1.1])
            .applyingFilter("CIVignette", parameters: [kCIInputIntensityKey: 0.4, kCIInputRadiusKey: 1])
    }

    func run() throws {
        if let renderOnlyVips {
            // The baseline child of the memory figure: the same edit written against libvips.
            let out = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString).jpg")
            defer { try? FileManager.default.removeItem(at: out) }
            _ = CIContext()  // libvips initialised as in the other child
            guard cbench_edit_chain(renderOnlyVips, out.path, 1, 1, Self.angle, 0.9, 0.3, 1.15, 0.02, 1.1, 0.4, 90) == 0 else {
                throw CLIError("libvips: \(String(cString: vips_error_buffer()))")
            }
            return
        }
        if let renderOnly {
            // The child of the memory figure: render one file through the chain, print nothing but errors.
            let context = CIContext()
            guard let input = CIImage(contentsOf: URL(fileURLWithPath: renderOnly), options: [.applyOrientationProperty: true]) else {
                throw CLIError("cannot read \(renderOnly)")
            }
            let out = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString).jpg")
            defer { try? FileManager.default.removeItem(at: out) }
            try context.writeJPEGRepresentation(
                of: Self.edit(input), to: out, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!,
                options: [kCGImageDestinationLossyCompressionQuality as CIImageRepresentationOption: 0.9])
            return
        }
        let scratch = try TestMedia.temporaryDirectory("OpenPhotoKit-bench-coreimage")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let jpeg = scratch.appendingPathComponent("12mp.jpg")
        try TestMedia.writeImage(to: jpeg, width: 4032, height: 3024, quality: 92)
        let context = CIContext()
        let sRGB = CGColorSpace(name: CGColorSpace.sRGB)!
        let quality: [CIImageRepresentationOption: Any] = [kCGImageDestinationLossyCompressionQuality as CIImageRepresentationOption: 0.9]
        let outCI = scratch.appendingPathComponent("ci.jpg"), outVips = scratch.appendingPathComponent("vips.jpg")

        func pair(_ ours: () throws -> Void, _ theirs: () throws -> Void) throws -> (Double, Double) {
            try alternatingMedians(repetitions: repetitions, ours, theirs)
        }
        func vips(_ status: Int32) throws { if status != 0 { throw CLIError("libvips: \(String(cString: vips_error_buffer()))") } }

        let full = try pair(
            {
                let input = CIImage(contentsOf: jpeg)!
                try context.writeJPEGRepresentation(of: Self.edit(input), to: outCI, colorSpace: sRGB, options: quality)
            },
            { try vips(cbench_edit_chain(jpeg.path, outVips.path, 1, 1, Self.angle, 0.9, 0.3, 1.15, 0.02, 1.1, 0.4, 90)) })
        let fullSize = CIImage(contentsOf: outCI)?.extent.size ?? .zero
        let baselineSize = CIImage(contentsOf: outVips)?.extent.size ?? .zero

        let scale = 1024.0 / 4032
        let preview = try pair(
            {
                let input = CIImage(contentsOf: jpeg)!.transformed(by: CGAffineTransform(scaleX: scale, y: scale))
                try context.writeJPEGRepresentation(of: Self.edit(input), to: outCI, colorSpace: sRGB, options: quality)
            },
            { try vips(cbench_edit_chain(jpeg.path, outVips.path, 2, 1024.0 / 2016, Self.angle, 0.9, 0.3, 1.15, 0.02, 1.1, 0.4, 90)) })
        let previewSize = CIImage(contentsOf: outCI)?.extent.size ?? .zero

        // A warming look as a 33³ cube.
        let n = 33
        var cube: [Float] = [], laid = [Float](repeating: 0, count: n * n * n * 3)
        for b in 0..<n {
            for g in 0..<n {
                for r in 0..<n {
                    let rgb = [Float(r), Float(g), Float(b)].map { $0 / Float(n - 1) }
                    let looked = [min(1, rgb[0] * 1.08 + 0.02), rgb[1], rgb[2] * 0.9]
                    cube += looked + [1]
                    let at = (g * n * n + b * n + r) * 3
                    (laid[at], laid[at + 1], laid[at + 2]) = (looked[0], looked[1], looked[2])
                }
            }
        }
        let cubeData = cube.withUnsafeBytes { Data($0) }
        let cubeTimes = try pair(
            {
                let look = CIImage(contentsOf: jpeg)!.applyingFilter("CIColorCube", parameters: ["inputCubeDimension": n, "inputCubeData": cubeData])
                try context.writeJPEGRepresentation(of: look, to: outCI, colorSpace: sRGB, options: quality)
            }, { try vips(cbench_cube(jpeg.path, outVips.path, laid, Int32(n), 90)) })
        let chrome = try pair(
            {
                let look = CIImage(contentsOf: jpeg)!.applyingFilter("CIPhotoEffectChrome")
                try context.writeJPEGRepresentation(of: look, to: outCI, colorSpace: sRGB, options: quality)
            }, { try vips(cbench_chrome(jpeg.path, outVips.path, 90)) })

        var memory: (file: String, kilobytes: Int, vipsKilobytes: Int)?
        if !skipMemory {
            let file: URL
            if let heic {
                file = URL(fileURLWithPath: heic)
            } else {
                // A grid of 504×504 HEVC tiles, as an iPhone writes its 48-MP photos (512×512 there).
                file = scratch.appendingPathComponent("48mp.heic")
                let gradient = CIFilter(
                    name: "CILinearGradient",
                    parameters: [
                        "inputPoint0": CIVector(x: 0, y: 0), "inputPoint1": CIVector(x: 8064, y: 6048),
                        "inputColor0": CIColor(red: 0.9, green: 0.3, blue: 0.1), "inputColor1": CIColor(red: 0.1, green: 0.4, blue: 0.9),
                    ])!.outputImage!.cropped(to: CGRect(x: 0, y: 0, width: 8064, height: 6048))
                let pixels = try context.makeCGImage(
                    gradient, from: gradient.extent, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!)
                let rgba = pixels.dataProvider!.data! as Data
                var rgb = [UInt8](repeating: 0, count: 8064 * 6048 * 3)
                rgba.withUnsafeBytes { (source: UnsafeRawBufferPointer) in
                    for i in 0..<(8064 * 6048) { for k in 0..<3 { rgb[i * 3 + k] = source[i * 4 + k] } }
                }
                var encoded: UnsafeMutableRawPointer?
                var length = 0
                var message: UnsafePointer<CChar>?
                guard cheif_encode_grid(rgb, 8064, 6048, 504, 80, &encoded, &length, &message) == 0, let encoded else {
                    throw CLIError("cannot encode the 48-MP grid: \(message.map { String(cString: $0) } ?? "libheif failed")")
                }
                try Data(bytesNoCopy: encoded, count: length, deallocator: .custom { pointer, _ in cvips_free(pointer) }).write(to: file)
            }
            let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            let outcome = try ChildProcess(executable, ["coreimage", "--render-only", file.path]).wait()
            guard outcome.status == 0 else { throw CLIError("the 48-MP render failed (status \(outcome.status))") }
            let baseline = try ChildProcess(executable, ["coreimage", "--render-only-vips", file.path]).wait()
            guard baseline.status == 0 else { throw CLIError("the 48-MP libvips render failed (status \(baseline.status))") }
            memory = (file.lastPathComponent, outcome.maxRSSKilobytes, baseline.maxRSSKilobytes)
        }

        let rows: [(String, Double, Double, String)] = [
            (
                "12-MP edit → JPEG q0.9 (\(Int(fullSize.width))×\(Int(fullSize.height)); libvips \(Int(baselineSize.width))×\(Int(baselineSize.height)))",
                full.0, full.1, "≤ 1.15×"
            ),
            ("1024-px preview of the edit (\(Int(previewSize.width))×\(Int(previewSize.height)), shrink-on-load)", preview.0, preview.1, "≤ 60 ms"),
            ("CIColorCube 33³ look, 12 MP → JPEG", cubeTimes.0, cubeTimes.1, "≤ 1.2×"),
            ("CIPhotoEffectChrome, 12 MP → JPEG", chrome.0, chrome.1, "≤ 1.2×"),
        ]
        if json {
            var object: [String: Any] = [
                "repetitions": repetitions,
                "rows": rows.map {
                    ["measurement": $0.0, "openCoreImageMilliseconds": $0.1, "libvipsMilliseconds": $0.2, "ratio": $0.1 / $0.2, "goal": $0.3]
                },
            ]
            if let memory {
                object["peakResidentKilobytes48MP"] = memory.kilobytes
                object["libvipsPeakResidentKilobytes48MP"] = memory.vipsKilobytes
            }
            printBenchJSON(object)
            return
        }
        print("OpenCoreImage against libvips (medians of \(repetitions), one run, same files)")
        for row in rows {
            print(String(format: "  %@: %.1f ms vs libvips %.1f ms = %.2f× (goal %@)", row.0, row.1, row.2, row.1 / row.2, row.3))
        }
        if let memory {
            print(
                String(
                    format: "  peak resident memory rendering %@ (8064×6048) through the edit: %.0f MB vs libvips %.0f MB (goal ≤ 200 MB)",
                    memory.file, Double(memory.kilobytes) / 1024, Double(memory.vipsKilobytes) / 1024))
        }
    }
}
