import Foundation
import PhotosTesting

/// A WebDriver (W3C) client of Debian's chromedriver driving headless Chromium: just what the gallery's tests use.
public final class WebDriver: @unchecked Sendable {
    public static let chromium = "/usr/bin/chromium"
    public static let chromedriver = "/usr/bin/chromedriver"
    /// Whether Debian's chromium and chromium-driver are installed (`scripts/setup.sh` installs them).
    public static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: chromium) && FileManager.default.isExecutableFile(atPath: chromedriver)
    }

    private let driver: ChildProcess
    private let base: URL
    private var session = ""

    /// Starts chromedriver on a free port and a headless Chromium session with a window of this size — or, with
    /// `phone`, a touch device's screen of `width` × `height` CSS pixels at that pixel ratio (a desktop window cannot
    /// be narrower than 500 pixels).
    public init(width: Int = 1280, height: Int = 900, phone pixelRatio: Double? = nil) async throws {
        let port = try Self.freePort()
        driver = try ChildProcess(URL(fileURLWithPath: Self.chromedriver), ["--port=\(port)"])
        base = URL(string: "http://127.0.0.1:\(port)")!
        // Until it answers: on a loaded machine chromedriver can take many seconds to listen (a count of tries was a
        // timing assumption). Bounded, so that a driver that never starts fails the test rather than hanging it.
        let deadline = ContinuousClock.now + .seconds(120)
        while (try? await call("GET", "/status")) == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        var options: [String: Any] = [
            "binary": Self.chromium,
            "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=\(max(width, 500)),\(height)",
                "--autoplay-policy=no-user-gesture-required",
            ],
        ]
        if let pixelRatio {
            options["mobileEmulation"] = ["deviceMetrics": ["width": width, "height": height, "pixelRatio": pixelRatio, "touch": true]]
        }
        let capabilities: [String: Any] = [
            "capabilities": ["alwaysMatch": ["browserName": "chrome", "goog:chromeOptions": options]]
        ]
        let created = try await call("POST", "/session", capabilities) as? [String: Any]
        session = created?["sessionId"] as? String ?? ""
    }

    /// Closes the browser (bounded: a browser that does not close is killed with its driver).
    public func quit() async {
        let session = session
        await withTaskGroup(of: Void.self) { group in
            group.addTask { _ = try? await self.call("DELETE", "/session/\(session)") }
            group.addTask { try? await Task.sleep(for: .seconds(10)) }
            await group.next()
            group.cancelAll()
        }
        driver.kill()
        _ = driver.wait()
    }

    /// Navigates to a URL.
    public func open(_ url: String) async throws { _ = try await call("POST", "/session/\(session)/url", ["url": url]) }

    /// Runs JavaScript in the page (`arguments[0]` …) and returns its result.
    @discardableResult
    public func run(_ script: String, _ arguments: [Any] = []) async throws -> Any? {
        try await call("POST", "/session/\(session)/execute/sync", ["script": script, "args": arguments])
    }

    /// The first element matching a CSS selector (its WebDriver reference).
    public func element(_ selector: String) async throws -> String {
        let found = try await call("POST", "/session/\(session)/element", ["using": "css selector", "value": selector]) as? [String: Any]
        guard let reference = found?.values.first as? String else { throw WebDriverError(message: "no element \(selector)") }
        return reference
    }

    /// Types text into the first element matching a selector (a file input takes a path).
    /// Signs in to the gallery open in the browser: waits for its sign-in form, types `token`, submits.
    public func signIn(token: String) async throws {
        try await wait(10, "the sign-in form", until: "return !document.querySelector('#sign-in').hidden")
        try await type(token, into: "#token")
        try await click("#sign-in button[type=submit]")
    }

    public func type(_ text: String, into selector: String) async throws {
        _ = try await call("POST", "/session/\(session)/element/\(try await element(selector))/value", ["text": text])
    }

    /// Clicks the first element matching a selector.
    public func click(_ selector: String) async throws {
        _ = try await call("POST", "/session/\(session)/element/\(try await element(selector))/click", [:])
    }

    /// Keys sent to the focused element (WebDriver's key codes: "\u{E012}" is the left arrow).
    public func press(_ keys: String) async throws {
        let actions: [[String: Any]] = keys.map { ["type": "keyDown", "value": String($0)] } + keys.map { ["type": "keyUp", "value": String($0)] }
        _ = try await call("POST", "/session/\(session)/actions", ["actions": [["type": "key", "id": "keyboard", "actions": actions]]])
    }

    /// Drags the first element matching a selector with the mouse: pressed at its centre, moved by `dx`, `dy` CSS
    /// pixels, released (real pointer events, as a hand makes them).
    public func drag(_ selector: String, by dx: Int, _ dy: Int) async throws {
        let origin = ["element-6066-11e4-a52e-4f735466cecf": try await element(selector)]
        let actions: [[String: Any]] = [
            ["type": "pointerMove", "duration": 0, "origin": origin, "x": 0, "y": 0],
            ["type": "pointerDown", "button": 0],
            ["type": "pointerMove", "duration": 50, "origin": "pointer", "x": dx / 2, "y": dy / 2],
            ["type": "pointerMove", "duration": 50, "origin": "pointer", "x": dx - dx / 2, "y": dy - dy / 2],
            ["type": "pointerUp", "button": 0],
        ]
        let source: [String: Any] = ["type": "pointer", "id": "mouse", "parameters": ["pointerType": "mouse"], "actions": actions]
        _ = try await call("POST", "/session/\(session)/actions", ["actions": [source]])
    }

    /// Waits until the script returns true — at most `seconds`, and never less than a minute: the bound only turns a
    /// page that never gets there into a failure, and a browser, a server and the rest of the suite sharing two loaded
    /// cores can take many seconds to render what takes one alone (a wait ends as soon as the script says so).
    public func wait(_ seconds: Double = 10, _ what: String, until script: String) async throws {
        let deadline = Date().addingTimeInterval(max(seconds, 60))
        while Date() < deadline {
            if try await run(script) as? Bool == true { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw WebDriverError(message: "timed out waiting for \(what)")
    }

    /// A PNG of the window, written to `file`.
    public func screenshot(_ file: URL) async throws {
        guard let base64 = try await call("GET", "/session/\(session)/screenshot") as? String, let data = Data(base64Encoded: base64) else { return }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
    }

    /// One HTTP/1.1 exchange with chromedriver on a socket of its own (`Connection: close`), off the cooperative
    /// threads (the server under test runs in this process). FoundationNetworking's URLSession fails on some of
    /// chromedriver's responses ("Failed writing header"), and this needs nothing more.
    private func call(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> Any? {
        let payload = try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        let port = base.port ?? 80
        let data: Data = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try Self.exchange(port: port, method: method, path: path, body: payload) })
            }
        }
        let object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? [String: Any]
        if let value = object?["value"] as? [String: Any], let error = value["error"] as? String {
            throw WebDriverError(message: "\(error): \(value["message"] as? String ?? "")")
        }
        return object?["value"]
    }

    private static func exchange(port: Int, method: String, path: String, body: Data) throws -> Data {
        guard let fd = connectToLoopback(port: port, receiveTimeout: 120) else { throw WebDriverError(message: "chromedriver is not listening") }
        defer { close(fd) }
        var request = Data(
            "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
                .utf8)
        request.append(body)
        try request.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let count = send(fd, bytes.baseAddress! + sent, bytes.count - sent, 0)
                guard count > 0 else { throw WebDriverError(message: "cannot send to chromedriver") }
                sent += count
            }
        }
        // Read the head, then exactly the body it announces (chromedriver may keep the connection open).
        var response = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        func complete() -> Bool {
            guard let split = response.range(of: Data("\r\n\r\n".utf8)) else { return false }
            let head = String(decoding: response[..<split.lowerBound], as: UTF8.self).lowercased()
            let received = response.count - split.upperBound
            if let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                let length = Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces))
            {
                return received >= length
            }
            return head.contains("chunked") && response.suffix(5) == Data("0\r\n\r\n".utf8)
        }
        while !complete() {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { break }
            response.append(contentsOf: chunk[0..<count])
        }
        guard let split = response.range(of: Data("\r\n\r\n".utf8)) else { throw WebDriverError(message: "no response from chromedriver") }
        let head = String(decoding: response[..<split.lowerBound], as: UTF8.self).lowercased()
        var content = Data(response[split.upperBound...])
        if head.contains("transfer-encoding: chunked") {
            var decoded = Data()
            while let line = content.range(of: Data("\r\n".utf8)),
                let size = Int(String(decoding: content[..<line.lowerBound], as: UTF8.self).trimmingCharacters(in: .whitespaces), radix: 16), size > 0
            {
                decoded.append(content[line.upperBound..<(line.upperBound + size)])
                content = Data(content[(line.upperBound + size + 2)...])
            }
            content = decoded
        }
        return content
    }

    /// A port nothing listens on now.
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw WebDriverError(message: "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

public struct WebDriverError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
    public init(message: String) { self.message = message }
}
