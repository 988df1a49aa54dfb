import Foundation
import Glibc
import HTTPWire

/// A keep-alive HTTP/1.1 load generator: `connections` threads, each with one blocking socket,
/// sending GET requests back to back for `seconds`. Reports requests/s and latency percentiles.
struct HTTPLoad {
    let url: String
    let connections: Int
    let seconds: Double

    func run() {
        guard let target = Target(url) else {
            print("bad URL \(url): only http://HOST:PORT/PATH on an IPv4 address")
            return
        }
        let results = Results()
        let deadline = DispatchTime.now() + seconds
        let group = DispatchGroup()
        for _ in 0..<connections {
            group.enter()
            Thread.detachNewThread {
                results.merge(Self.worker(target, until: deadline))
                group.leave()
            }
        }
        group.wait()
        results.report(label: "GET \(target.path)", connections: connections, seconds: seconds)
    }

    struct Target {
        let host: String, port: UInt16, path: String
        init?(_ url: String) {
            guard url.hasPrefix("http://") else { return nil }
            let rest = url.dropFirst("http://".count)
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            let authority = rest[..<slash].split(separator: ":")
            guard authority.count == 2, let port = UInt16(authority[1]) else { return nil }
            host = String(authority[0]); self.port = port
            path = slash == rest.endIndex ? "/" : String(rest[slash...])
        }
    }

    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        var completed = 0, errors = 0
        var latencies: [UInt64] = []
        func merge(_ r: (Int, Int, [UInt64])) {
            lock.lock(); defer { lock.unlock() }
            completed += r.0; errors += r.1; latencies += r.2
        }
        func report(label: String, connections: Int, seconds: Double) {
            latencies.sort()
            func pct(_ p: Double) -> String {
                guard !latencies.isEmpty else { return "-" }
                let ns = latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]
                return String(format: "%.0f µs", Double(ns) / 1000)
            }
            print("\(label): \(format(Double(completed) / seconds)) requests/s over \(connections) keep-alive connections, "
                  + "\(completed) ok, \(errors) errors, latency p50 \(pct(0.5)) p99 \(pct(0.99))")
        }
    }

    /// One connection's loop; reconnects after an error.
    static func worker(_ target: Target, until deadline: DispatchTime) -> (Int, Int, [UInt64]) {
        let request = Array("GET \(target.path) HTTP/1.1\r\nHost: \(target.host):\(target.port)\r\n\r\n".utf8)
        var completed = 0, errors = 0
        var latencies: [UInt64] = []
        latencies.reserveCapacity(200_000)
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while DispatchTime.now() < deadline {
            let fd = connectTo(target)
            guard fd >= 0 else { errors += 1; usleep(1000); continue }
            var parser = HTTPResponseParser()
            outer: while DispatchTime.now() < deadline {
                let start = DispatchTime.now().uptimeNanoseconds
                guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
                    errors += 1; break
                }
                while true {
                    do {
                        if let response = try parser.next() {
                            if response.status == 200 { completed += 1 } else { errors += 1 }
                            latencies.append(DispatchTime.now().uptimeNanoseconds - start)
                            break
                        }
                    } catch { errors += 1; break outer }
                    let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                    if n <= 0 { errors += 1; break outer }
                    buffer.withUnsafeBytes { parser.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
                }
            }
            close(fd)
        }
        return (completed, errors, latencies)
    }

    static func connectTo(_ target: Target) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = target.port.bigEndian
        addr.sin_addr.s_addr = inet_addr(target.host)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if rc != 0 { close(fd); return -1 }
        return fd
    }
}
