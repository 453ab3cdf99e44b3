import Foundation
import PhotosTesting

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP connection to a port on 127.0.0.1 with a receive timeout: what the tests' and benchmarks' raw HTTP clients
/// (WebDriver, pipelined requests, server-sent events, requests to a server about to be killed) start from.
/// - returns: the socket, to be closed by the caller, or nil when nothing listens.
public func connectToLoopback(port: Int, receiveTimeout seconds: Int) -> Int32? {
    connectToLoopback(host: "127.0.0.1", port: port, receiveTimeout: seconds)
}

/// A TCP connection to `host` (an IPv4 address: 127.0.0.1, or a test network's host) with a receive timeout; nil when
/// nothing listens there.
public func connectToLoopback(host: String, port: Int, receiveTimeout seconds: Int) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr(host)
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(fd)
        return nil
    }
    var timeout = timeval(tv_sec: seconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    return fd
}
