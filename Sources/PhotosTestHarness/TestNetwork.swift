import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Hosts for cluster fault tests: network namespaces made by the test (`ip netns`), each joined by a veth pair to a
/// bridge of the test's own in this namespace, on a /24 of 10.213.0.0/16 — so a process runs "on another host" with
/// its own loopback and address, and a host can be cut off the network (its link down) and brought back. Needs root
/// and iproute2; ``isAvailable`` says whether this machine can.
public final class TestNetwork: @unchecked Sendable {
    /// One host: its namespace, its address, and its link's end on the bridge.
    public struct Host: Sendable {
        public let namespace: String
        public let address: String
        let link: String
    }

    /// The first three numbers of the subnet (`10.213.N`).
    public let subnet: String
    /// This namespace's address on the bridge (`10.213.N.1`): where the test reaches the hosts from.
    public var gateway: String { "\(subnet).1" }
    private let tag: String
    private var hosts: [Host] = []

    /// Whether namespaces can be made here (root, iproute2, a trial namespace made and removed).
    public static let isAvailable: Bool = {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") else { return false }
        let name = "opk-probe-\(getpid())"
        defer { _ = try? run(["netns", "del", name]) }
        return (try? run(["netns", "add", name])) == 0
    }()

    /// A new bridge with its own subnet.
    public init() throws {
        tag = String(format: "%04x", UInt32.random(in: 0...0xFFFF))
        subnet = "10.213.\(Int.random(in: 1...250))"
        try Self.check(["link", "add", "opkb\(tag)", "type", "bridge"])
        try Self.check(["addr", "add", "\(subnet).1/24", "dev", "opkb\(tag)"])
        try Self.check(["link", "set", "opkb\(tag)", "up"])
    }

    /// A new host (namespace) with the next address of the subnet.
    public func addHost(_ label: String) throws -> Host {
        let host = Host(namespace: "opk-\(tag)-\(label)", address: "\(subnet).\(hosts.count + 2)", link: "opk\(tag)h\(hosts.count)")
        try Self.check(["netns", "add", host.namespace])
        try Self.check(["link", "add", host.link, "type", "veth", "peer", "name", "eth0", "netns", host.namespace])
        try Self.check(["link", "set", host.link, "master", "opkb\(tag)", "up"])
        try Self.check(["-n", host.namespace, "addr", "add", "\(host.address)/24", "dev", "eth0"])
        try Self.check(["-n", host.namespace, "link", "set", "eth0", "up"])
        try Self.check(["-n", host.namespace, "link", "set", "lo", "up"])
        hosts.append(host)
        return host
    }

    /// Cuts the host off the network (its link down: its packets go nowhere, as a pulled cable).
    public func cut(_ host: Host) throws { try Self.check(["link", "set", host.link, "down"]) }

    /// Puts the host back on the network.
    public func restore(_ host: Host) throws { try Self.check(["link", "set", host.link, "up"]) }

    /// Runs `executable` in the host's namespace, in the background (``ChildProcess``: its pid is the program's own,
    /// `ip netns exec` execs it).
    public func start(
        on host: Host, _ executable: String, _ arguments: [String], environment: [String: String], standardError: URL? = nil
    ) throws -> ChildProcess {
        try ChildProcess(
            URL(fileURLWithPath: "/usr/sbin/ip"), ["netns", "exec", host.namespace, executable] + arguments, environment: environment,
            standardError: standardError)
    }

    /// Runs a shell command in the host's namespace to its end (killed after `limit` seconds); its exit status and
    /// standard output.
    @discardableResult
    public func shell(on host: Host, _ command: String, environment: [String: String], limit: Int = 120) throws -> (status: Int32, output: String) {
        // Not Foundation's Process: a daemon the command starts (a database) would inherit its pipe and hold it open.
        let outcome = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/timeout"),
            ["-s", "KILL", String(limit), "/usr/sbin/ip", "netns", "exec", host.namespace, "/bin/bash", "-c", command], environment: environment,
            samplingMemory: false)
        return (outcome.status, String(decoding: outcome.standardOutput, as: UTF8.self))
    }

    /// Removes the hosts and the bridge (their processes must have been stopped: a namespace's processes outlive it).
    public func remove() {
        for host in hosts {
            _ = try? Self.run(["link", "del", host.link])
            _ = try? Self.run(["netns", "del", host.namespace])
        }
        _ = try? Self.run(["link", "del", "opkb\(tag)"])
    }

    @discardableResult
    static func run(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    static func check(_ arguments: [String]) throws {
        let status = try run(arguments)
        guard status == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "ip \(arguments.joined(separator: " ")) failed (\(status))"])
        }
    }
}
