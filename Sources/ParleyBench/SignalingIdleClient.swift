import Foundation
import Glibc
import ParleyCrypto
import WebSocketWire

/// A minimal blocking WebSocket client for `parley-bench signaling-idle`: one TCP socket bound to
/// a chosen loopback source address before `connect` (ParleyNet's client cannot bind one, and
/// 50,000 connections to one server port need more than the 28,232 ephemeral ports of a single
/// source address), the RFC 6455 §4.1 upgrade, a masked `hello` text frame, and the server's
/// `welcome` read back. It keeps nothing but the descriptor, so the bench process's own memory
/// stays out of the figures.
enum SignalingIdleClient {
    struct Failed: Error, CustomStringConvertible { let description: String }

    /// Opens one authenticated signaling connection; returns its descriptor.
    static func open(source: String, port: Int, token: String) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failed(description: "socket: errno \(errno)") }
        do {
            var timeout = timeval(tv_sec: 15, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var local = address(source, port: 0)
            guard withUnsafePointer(to: &local, { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }) == 0 else {
                throw Failed(description: "bind \(source): errno \(errno)")
            }
            var remote = address("127.0.0.1", port: port)
            guard withUnsafePointer(to: &remote, { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }) == 0 else {
                throw Failed(description: "connect from \(source): errno \(errno)")
            }
            let key = WebSocketHandshake.makeKey(randomBytes: SecureRandom.bytes(16))
            let request = "GET /v1/signaling HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n"
            try write(fd, Array(request.utf8))
            var buffer = try readHead(fd)
            let expected = WebSocketHandshake.acceptValue(forKey: key) { Digest.sha1($0) }
            guard let head = String(bytes: buffer.head, encoding: .utf8), head.hasPrefix("HTTP/1.1 101"),
                  head.contains(expected) else {
                throw Failed(description: "upgrade refused: \(String(decoding: buffer.head.prefix(200), as: UTF8.self))")
            }
            let hello = "{\"type\":\"hello\",\"id\":\"h\",\"v\":1,\"token\":\"\(token)\",\"client\":\"parley-bench\"}"
            try sendText(fd, hello)
            let welcome = try readTextFrame(fd, pending: &buffer.rest)
            guard welcome.contains("\"welcome\"") else { throw Failed(description: "hello answered: \(welcome.prefix(200))") }
            return fd
        } catch {
            close(fd)
            throw error
        }
    }

    /// Sends a masked text frame (RFC 6455 §5.3: clients mask every frame).
    static func sendText(_ fd: Int32, _ text: String, flags: Int32 = 0) throws {
        let frame = WebSocketFrame(opcode: .text, payload: Array(text.utf8), maskingKey: UInt32.random(in: .min ... .max))
        try write(fd, frame.serialized, flags: flags)
    }

    /// Reads and discards whatever the server sent (pongs); returns false once the peer closed.
    static func drain(_ fd: Int32) -> Bool {
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 { continue }
            if n == 0 { return false }
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR
        }
    }

    /// Whether the connection is still open (the peer has not closed it), without consuming data.
    static func isOpen(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if n > 0 { return true }
        if n == 0 { return false }
        return errno == EAGAIN || errno == EWOULDBLOCK
    }

    static func address(_ host: String, port: Int) -> sockaddr_in {
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &a.sin_addr)
        return a
    }

    private static func write(_ fd: Int32, _ bytes: [UInt8], flags: Int32 = 0) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, flags | Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failed(description: "send: errno \(errno)") }
            offset += n
        }
    }

    /// Reads up to the end of the HTTP response head; returns the head and any bytes after it.
    private static func readHead(_ fd: Int32) throws -> (head: [UInt8], rest: [UInt8]) {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while data.count < 16 * 1024 {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw Failed(description: "reading the upgrade response: \(n == 0 ? "closed" : "errno \(errno)")") }
            data.append(contentsOf: chunk[0..<n])
            if let end = headEnd(data) { return (Array(data[..<end]), Array(data[end...])) }
        }
        throw Failed(description: "upgrade response head too long")
    }

    private static func headEnd(_ data: [UInt8]) -> Int? {
        guard data.count >= 4 else { return nil }
        for i in 0...(data.count - 4) where data[i] == 13 && data[i + 1] == 10 && data[i + 2] == 13 && data[i + 3] == 10 {
            return i + 4
        }
        return nil
    }

    /// Reads one unfragmented, unmasked server text frame (RFC 6455 §5.2); skips control frames.
    private static func readTextFrame(_ fd: Int32, pending: inout [UInt8]) throws -> String {
        var chunk = [UInt8](repeating: 0, count: 2048)
        while true {
            if pending.count >= 2 {
                let opcode = pending[0] & 0x0F
                var length = Int(pending[1] & 0x7F)
                var header = 2
                if length == 126, pending.count >= 4 {
                    length = Int(pending[2]) << 8 | Int(pending[3])
                    header = 4
                } else if length == 127 {
                    throw Failed(description: "unexpected 64-bit frame length")
                }
                if length < 126 || header == 4, pending.count >= header + length {
                    let payload = Array(pending[header..<(header + length)])
                    pending.removeFirst(header + length)
                    if opcode == 0x1 { return String(decoding: payload, as: UTF8.self) }
                    if opcode == 0x8 { throw Failed(description: "closed by the server: \(payload)") }
                    continue
                }
            }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw Failed(description: "reading welcome: \(n == 0 ? "closed" : "errno \(errno)")") }
            pending.append(contentsOf: chunk[0..<n])
        }
    }
}
