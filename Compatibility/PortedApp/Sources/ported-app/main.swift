// A command-line build of the ported client: proves the package builds with OpenPhotoKit's Apple-named products on
// Linux (and with Apple's frameworks elsewhere), and runs one export.
import CoreImage
import Foundation
import PortedClient

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    print("usage: ported-app IMAGE OUTPUT.jpg")
    exit(2)
}
do {
    let size = try PortedClient.exportSepia(of: URL(fileURLWithPath: arguments[1]), to: URL(fileURLWithPath: arguments[2]))
    print(size.map { "wrote \(Int($0.width))×\(Int($0.height)) sepia JPEG" } ?? "not an image")
} catch {
    print("error: \(error)")
    exit(1)
}
