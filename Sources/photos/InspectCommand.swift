import ArgumentParser
import CommandLineSupport
import Foundation
import PhotoMedia

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read files as import would (format from the content, size, dates, place, camera, Live Photo and burst keys).",
        discussion: "Nothing is written. With no files, prints which decoders serve which formats.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Image or video files.") var files: [String] = []

    func run() throws {
        let probe = MediaProbe()
        MediaProbe.initializeLibraries()
        if files.isEmpty {
            for line in MediaProbe.decoders { print(line) }
            return
        }
        var objects: [[String: Any]] = []
        var failed = false
        for path in files {
            do {
                if let problem = undecodableArgument(path) {
                    failed = true
                    if global.json { objects.append(["path": path, "error": problem]) } else { print(Output.printable(problem)) }
                    continue
                }
                let info = try probe.probe(URL(fileURLWithPath: path))
                let object = Self.object(path: path, info: info)
                if global.json { objects.append(object) } else { print(Self.line(object)) }
            } catch {
                failed = true
                if global.json {
                    objects.append(["path": path, "error": error.description])
                } else {
                    print(Output.printable("\(path): \(error.description)"))
                }
            }
        }
        if global.json { Output.printJSON(objects) }
        if failed { throw ExitCode(1) }
    }

    static func object(path: String, info: MediaInfo) -> [String: Any] {
        let m = info.metadata
        var object: [String: Any] = [
            "path": path, "format": info.format.rawValue, "uniformTypeIdentifier": info.format.uniformTypeIdentifier,
            "mediaType": info.isImage ? "image" : "video", "pixelWidth": info.pixelWidth, "pixelHeight": info.pixelHeight,
            "rawPixelWidth": info.storedPixelWidth, "rawPixelHeight": info.storedPixelHeight, "orientation": info.orientation,
        ]
        if !info.isImage {
            object["duration"] = info.duration
            object["rotation"] = info.rotation
            object["frameRate"] = info.frameRate
        }
        object["creationDate"] =
            m.creationDate.map { date -> String in
                let formatter = ISO8601DateFormatter()
                formatter.formatOptions = [.withInternetDateTime]
                formatter.timeZone = m.timeZoneOffset.flatMap { TimeZone(secondsFromGMT: $0) } ?? TimeZone(identifier: "UTC")
                return formatter.string(from: date)
            } ?? NSNull()
        object["timezoneOffset"] =
            m.timeZoneOffset.map { offset -> String in
                String(format: "%@%02d:%02d", offset < 0 ? "-" : "+", abs(offset) / 3600, abs(offset) % 3600 / 60)
            } ?? NSNull()
        object["creationDateSource"] = m.creationDateSource ?? NSNull()
        object["creationDateConfidence"] = m.creationDate == nil ? NSNull() : (m.creationDateIsLowConfidence ? "low" : "high")
        if let latitude = m.latitude, let longitude = m.longitude {
            object["location"] = ["latitude": latitude, "longitude": longitude, "altitude": m.altitude.map { $0 as Any } ?? NSNull()]
        } else {
            object["location"] = NSNull()
        }
        for (key, value) in [
            ("make", m.make), ("model", m.model), ("lensModel", m.lensModel), ("software", m.software),
            ("contentIdentifier", m.contentIdentifier), ("burstUUID", m.burstIdentifier),
        ] {
            object[key] = value ?? NSNull()
        }
        object["hints"] = [
            "hdr": m.isHDR, "panorama": m.isPanorama, "portrait": m.isPortrait, "screenshot": m.isScreenshot, "selfie": m.isSelfie,
        ]
        return object
    }

    static func line(_ object: [String: Any]) -> String {
        let keys = [
            "format", "pixelWidth", "pixelHeight", "orientation", "creationDate", "creationDateSource", "make", "model", "contentIdentifier",
            "burstUUID",
        ]
        let fields = keys.compactMap { key -> String? in
            guard let value = object[key], !(value is NSNull) else { return nil }
            return "\(key)=\(value)"
        }
        var line = Output.printable("\(object["path"] ?? "")") + "  " + fields.joined(separator: "  ")
        if let location = object["location"] as? [String: Any] {
            line += "  location=\(location["latitude"] ?? ""),\(location["longitude"] ?? "")"
        }
        return line
    }
}

/// The decoders report, for commands that read media.
enum PhotoMediaReport {
    static var decoders: [String] { MediaProbe.decoders }
}
