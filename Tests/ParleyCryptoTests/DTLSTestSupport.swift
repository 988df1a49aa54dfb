import Foundation
import ParleyCore
#if canImport(Glibc)
import Glibc
#endif
import ParleyCrypto

/// In-memory plumbing for DTLS tests (the aiortc `tests/utils.py` idea): datagrams move between
/// two sessions, optionally through a filter that drops some.
enum DTLSHarness {
    struct Delivered {
        var toClient: [[UInt8]] = []
        var toServer: [[UInt8]] = []
    }

    /// Delivers datagrams back and forth until both directions are quiet (or `rounds` runs out).
    /// `drop` sees each datagram with its direction (`true` = client → server) and may discard it.
    @discardableResult
    static func pump(client: DTLSSession, server: DTLSSession, toServer: [[UInt8]], toClient: [[UInt8]] = [],
                     rounds: Int = 30, drop: (Bool, [UInt8]) -> Bool = { _, _ in false }) -> Delivered {
        var delivered = Delivered()
        var forServer = toServer, forClient = toClient
        for _ in 0..<rounds where !(forServer.isEmpty && forClient.isEmpty) {
            var nextServer: [[UInt8]] = [], nextClient: [[UInt8]] = []
            for datagram in forServer where !drop(true, datagram) {
                let out = server.receive(datagram)
                nextClient += out.datagrams
                delivered.toServer += out.applicationData
            }
            for datagram in forClient where !drop(false, datagram) {
                let out = client.receive(datagram)
                nextServer += out.datagrams
                delivered.toClient += out.applicationData
            }
            forServer = nextServer
            forClient = nextClient
        }
        return delivered
    }

    /// A client and a server that trust each other's certificates.
    static func pair(profiles: [UInt16] = DTLSSession.defaultSRTPProtectionProfiles,
                     serverProfiles: [UInt16]? = nil,
                     timeout: Duration = .seconds(1)) throws -> (client: DTLSSession, server: DTLSSession) {
        let clientIdentity = try CertificateIdentity(), serverIdentity = try CertificateIdentity()
        let client = try DTLSSession(role: .client, certificate: clientIdentity,
                                     remoteFingerprint: serverIdentity.fingerprint, srtpProtectionProfiles: profiles,
                                     initialRetransmissionTimeout: timeout)
        let server = try DTLSSession(role: .server, certificate: serverIdentity,
                                     remoteFingerprint: clientIdentity.fingerprint,
                                     srtpProtectionProfiles: serverProfiles ?? profiles, initialRetransmissionTimeout: timeout)
        return (client, server)
    }
}

/// Runs a command-line tool; returns its standard output.
enum CommandLineTool {
    static func run(_ path: String, _ arguments: [String], input: String? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let out = Pipe(), inPipe = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = inPipe
        try process.runWithDefaultSignals()
        if let input { inPipe.fileHandleForWriting.write(Data(input.utf8)) }
        try inPipe.fileHandleForWriting.close()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    static let openssl = "/usr/bin/openssl"
    static var hasOpenSSL: Bool { FileManager.default.isExecutableFile(atPath: openssl) }
}

/// A connected UDP socket on 127.0.0.1 with a short receive timeout (tests only).
final class LoopbackUDPSocket {
    let fd: Int32

    init(connectingTo port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var timeout = timeval(tv_sec: 0, tv_usec: 20_000)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = Self.loopback(port: port)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { Glibc.close(fd); throw POSIXError(.ECONNREFUSED) }
    }

    deinit { Glibc.close(fd) }

    func send(_ datagram: [UInt8]) {
        datagram.withUnsafeBytes { _ = Glibc.send(fd, $0.baseAddress, $0.count, 0) }
    }

    /// One datagram, or nil after the receive timeout.
    func receive() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return n > 0 ? Array(buffer[0..<n]) : nil
    }

    /// A UDP port that was free a moment ago.
    static func freePort() -> UInt16? {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { Glibc.close(fd) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        return ok ? UInt16(bigEndian: address.sin_port) : nil
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
