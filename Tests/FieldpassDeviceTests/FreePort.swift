import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP port nobody listens on, for a server the test starts (and may restart on
/// the same port) a moment later.
///
/// Not one the kernel hands out for port 0: those come from the ephemeral range (32768–60999
/// on Linux), from which every outgoing connection of the test run (HTTP clients, PostgreSQL
/// pools) also takes its local port, so a port released after `bind(0)` was at times taken by
/// a connection before the server could listen on it ("address already in use"). Ports below
/// that range are only ever taken by a listener that asks for them.
enum FreePort {
    static func take() throws -> Int {
        for _ in 0..<200 {
            let port = Int.random(in: 20_000..<32_768)
            if try isFree(port) { return port }
        }
        throw POSIXError(.EADDRINUSE)
    }

    /// Whether a listener could bind `port` on 127.0.0.1 now.
    private static func isFree(_ port: Int) throws -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
