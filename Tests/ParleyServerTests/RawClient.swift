import Foundation
import Glibc
import ParleyTestSupport
import WebSocketWire

/// A plain TCP client that does what a hostile one does: writes without reading, trickles bytes,
/// holds connections. Nonblocking, with a small receive buffer so that "not reading" fills the
/// server's side quickly. The descriptor is closed on `close()` or deinit.
final class RawClient {
    let fd: Int32
    private var closed = false

    /// Connects to 127.0.0.1:`port` (blocking connect, then nonblocking I/O).
    init(port: Int, receiveBuffer: Int32? = 4096) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: \(errno)") }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            let error = errno
            Glibc.close(fd)
            throw TestFailure("connect: \(error)")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    deinit { close() }

    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }

    /// Whether the server has closed or reset the connection, seen from our socket's TCP state
    /// (TCP_INFO) without reading: anything but ESTABLISHED.
    var isClosedByPeer: Bool {
        var info = tcp_info()
        var length = socklen_t(MemoryLayout<tcp_info>.size)
        guard getsockopt(fd, Int32(IPPROTO_TCP), TCP_INFO, &info, &length) == 0 else { return true }
        return info.tcpi_state != UInt8(TCP_ESTABLISHED)
    }

    /// Writes what the socket takes now; the count written (0 when full), or nil once the
    /// connection is reset or closed.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Int? {
        let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if n >= 0 { return n }
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : nil
    }

    /// Writes all of `bytes`, waiting for room up to `timeout`; false if the connection failed or stayed full.
    func sendAll(_ bytes: [UInt8], timeout: Duration = .seconds(5)) -> Bool {
        var offset = 0
        let deadline = ContinuousClock.now + timeout
        while offset < bytes.count {
            guard let n = send(Array(bytes[offset...])) else { return false }
            offset += n
            if n == 0 {
                if ContinuousClock.now > deadline { return false }
                usleep(1_000)
            }
        }
        return true
    }

    /// Reads until the peer closes or resets, or `timeout` passes; the bytes and whether it closed.
    func readUntilClosed(timeout: Duration) -> (bytes: [UInt8], closed: Bool) {
        receive(timeout: timeout) { _ in false }
    }

    /// Reads what arrives within `timeout` until `enough` says so; nil if the connection closed first.
    func read(timeout: Duration, until enough: ([UInt8]) -> Bool) -> [UInt8]? {
        let (bytes, closed) = receive(timeout: timeout, until: enough)
        return closed && !enough(bytes) ? nil : bytes
    }

    private func receive(timeout: Duration, until enough: ([UInt8]) -> Bool) -> (bytes: [UInt8], closed: Bool) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                received += buffer[0..<n]
                if enough(received) { return (received, false) }
            } else if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) {
                return (received, true)
            } else {
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                _ = poll(&pfd, 1, 20)
            }
        }
        return (received, false)
    }

    // MARK: WebSocket

    /// Sends a WebSocket upgrade for `path` and reads the 101 (false if refused).
    func upgradeToWebSocket(path: String) -> Bool {
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        guard sendAll(Array(request.utf8)) else { return false }
        guard let head = read(timeout: .seconds(5), until: { $0.count >= 4 && Array($0.suffix(4)) == [13, 10, 13, 10] })
        else { return false }
        return String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101")
    }

    /// A masked client frame (RFC 6455 §5.3).
    static func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8]) -> [UInt8] {
        var frame = WebSocketFrame(opcode: opcode, payload: payload)
        frame.maskingKey = 0x1234_5678
        return frame.serialized
    }

    static func textFrame(_ text: String) -> [UInt8] { frame(.text, Array(text.utf8)) }
}

/// Samples a server process while an attack runs: the peak resident memory above the baseline.
struct ResourceSampler {
    let server: ServerProcess
    let baselineKilobytes: Int
    private(set) var peakKilobytes: Int

    init(_ server: ServerProcess) {
        self.server = server
        baselineKilobytes = server.residentKilobytes()
        peakKilobytes = baselineKilobytes
    }

    mutating func sample() { peakKilobytes = max(peakKilobytes, server.residentKilobytes()) }

    var growthMegabytes: Double { Double(peakKilobytes - baselineKilobytes) / 1024 }

    /// CPU seconds the server uses over `window` once the attacker is gone: work it was left with.
    /// A measurement window, not a wait for a condition.
    func cpuAfterAttack(over window: Duration = .seconds(2)) async -> Double {
        let start = server.cpuSeconds()
        try? await Task.sleep(for: window)
        return server.cpuSeconds() - start
    }
}
