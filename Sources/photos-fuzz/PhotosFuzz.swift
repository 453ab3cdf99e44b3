import Foundation
import PhotosFuzzing

#if FUZZING
    import CFuzzerDriver

    /// The target libFuzzer drives: $PHOTOS_FUZZ_TARGET (see `scripts/fuzz.sh`).
    let selectedTarget = FuzzTarget(rawValue: ProcessInfo.processInfo.environment["PHOTOS_FUZZ_TARGET"] ?? "") ?? .predicate

    /// The executable's entry point in a fuzzing build (built with `-sanitize=fuzzer,address -DFUZZING`): SwiftPM
    /// links an executable's `main` to `<module>_main`, so it hands the command line to libFuzzer's driver here.
    @_cdecl("photos_fuzz_main")
    public func photosFuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
        var count = argc
        var arguments = argv
        return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
            selectedTarget.run(UnsafeRawBufferPointer(start: data, count: size))
            return 0
        }
    }
#else
    /// Without libFuzzer: `photos-fuzz TARGET FILE...` runs inputs (a crasher, a corpus) through a target once.
    @main
    struct PhotosFuzz {
        static func main() throws {
            let arguments = Array(CommandLine.arguments.dropFirst())
            guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
                let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
                FileHandle.standardError.write(Data("usage: photos-fuzz \(names) FILE...\n".utf8))
                exit(64)
            }
            for path in arguments.dropFirst() {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                data.withUnsafeBytes { target.run($0) }
            }
            print("\(name): \(arguments.count - 1) inputs ran")
        }
    }
#endif
