import Foundation
import Glibc

/// Process and machine figures for `parley-bench calls` and `signaling-idle`, read from /proc.
enum BenchSystem {
    /// This process's resident set in bytes (`/proc/self/statm`, second field, in pages), after
    /// returning free heap pages to the kernel (`malloc_trim`), so that memory freed by earlier
    /// phases (handshake temporaries) neither inflates this reading nor hides later allocations.
    static func residentBytes(trim: Bool = true) -> Int {
        if trim { mallocTrim() }
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The calling thread's time on a CPU and time runnable but waiting for one, in seconds
    /// (`/proc/thread-self/schedstat`): a large wait means other work held the thread's CPU.
    static func threadSchedule() -> (running: Double, waiting: Double) {
        guard let text = try? String(contentsOfFile: "/proc/thread-self/schedstat", encoding: .utf8) else { return (0, 0) }
        let f = text.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        return f.count >= 2 ? (f[0] / 1e9, f[1] / 1e9) : (0, 0)
    }

    /// `VmRSS` of another process, in bytes.
    static func residentBytes(pid: pid_t) -> Int {
        statusField(pid: pid, "VmRSS:").map { $0 * 1024 } ?? 0
    }

    /// A `kB` field of `/proc/PID/status`.
    static func statusField(pid: pid_t, _ name: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
        }
        return nil
    }

    /// User + system CPU seconds of process `pid` (`/proc/PID/stat` fields 14 and 15).
    static func cpuSeconds(pid: pid_t) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, so utime (14) and stime (15) are at 11 and 12.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Line-buffers standard output, so progress shows when it is redirected to a file.
    static func lineBufferStandardOutput() {
        // `stdout` is a C global that Swift 6 will not touch directly; look it up instead.
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "stdout"),
              let file = symbol.assumingMemoryBound(to: UnsafeMutablePointer<FILE>?.self).pointee else { return }
        setvbuf(file, nil, _IOLBF, 0)
    }

    /// Pins every thread of this process to `cpu` (threads started later inherit their creator's
    /// mask). `sched_setaffinity` on a thread id moves that thread only, so each is moved in turn.
    static func pinProcess(cpu: Int) {
        let tids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        for tid in tids.compactMap({ Int32($0) }) { setAffinity(thread: tid, cpu: cpu) }
    }

    /// Pins one thread (`tid` 0: the calling thread).
    static func setAffinity(thread tid: Int32, cpu: Int) {
        var set = cpu_set_t()
        withUnsafeMutableBytes(of: &set) { raw in
            for i in raw.indices { raw[i] = 0 }
            raw[cpu / 8] = UInt8(1 << (cpu % 8))
        }
        // Glibc declares sched_setaffinity only under _GNU_SOURCE, which the Swift overlay lacks.
        typealias SetAffinity = @convention(c) (pid_t, Int, UnsafeRawPointer) -> Int32
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "sched_setaffinity") else { return }
        let setAffinity = unsafeBitCast(symbol, to: SetAffinity.self)
        _ = withUnsafeBytes(of: &set) { setAffinity(tid, $0.count, $0.baseAddress!) }
    }

    /// Experiment: gives this process's UDP socket bound to `port` a receive buffer of `bytes`
    /// (`SO_RCVBUFFORCE`, root only), found by its local port among the open descriptors, since
    /// the media server does not set one. Returns the kernel's `SO_RCVBUF` afterwards (0: not found).
    static func setReceiveBuffer(udpPort port: Int, bytes: Int) -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in fds.compactMap({ Int32($0) }) {
            var type: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0, type == Int32(SOCK_DGRAM.rawValue) else { continue }
            var address = sockaddr_in()
            var addressLength = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &addressLength) == 0 }
            }
            guard named, Int(UInt16(bigEndian: address.sin_port)) == port else { continue }
            var size = Int32(bytes)
            _ = setsockopt(fd, SOL_SOCKET, 33 /* SO_RCVBUFFORCE */, &size, socklen_t(MemoryLayout<Int32>.size))
            var actual: Int32 = 0
            length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &actual, &length)
            return Int(actual)
        }
        return 0
    }

    static func mallocTrim() {
        typealias Trim = @convention(c) (Int) -> Int32
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }

    /// The 1-minute load average.
    static var loadAverage: String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init) ?? "?"
    }

    /// Whether a `parley-fuzz` process is running (the lead's background fuzzer takes one core).
    static var fuzzerRunning: Bool {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.contains { entry in
            guard entry.first?.isNumber == true,
                  let comm = try? String(contentsOfFile: "/proc/\(entry)/comm", encoding: .utf8) else { return false }
            return comm.hasPrefix("parley-fuzz")
        }
    }

    /// The kernel's UDP counters (`/proc/net/snmp`): `InErrors` and `RcvbufErrors` count
    /// datagrams dropped because a socket's receive buffer was full.
    static func udpCounters() -> [String: Int] {
        guard let text = try? String(contentsOfFile: "/proc/net/snmp", encoding: .utf8) else { return [:] }
        let lines = text.split(separator: "\n").filter { $0.hasPrefix("Udp:") }
        guard lines.count >= 2 else { return [:] }
        let names = lines[0].split(separator: " ").dropFirst()
        let values = lines[1].split(separator: " ").dropFirst()
        var out: [String: Int] = [:]
        for (name, value) in zip(names, values) { out[String(name)] = Int(value) }
        return out
    }

    /// `/proc/meminfo` fields in kB (`Slab`, `MemAvailable`, …).
    static func meminfo(_ name: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) } ?? 0
        }
        return 0
    }

    /// The `TCP: … mem N` pages of `/proc/net/sockstat` (socket buffer memory of all TCP sockets).
    static func tcpSocketMemoryPages() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/net/sockstat", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("TCP:") {
            let f = line.split(separator: " ")
            if let i = f.firstIndex(of: "mem"), i + 1 < f.count { return Int(f[i + 1]) ?? 0 }
        }
        return 0
    }

    /// Raises the open-file limit (soft and hard) to at least `count`; returns the soft limit now in force.
    @discardableResult
    static func raiseFileLimit(to count: Int) -> Int {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if Int(limit.rlim_cur) >= count { return Int(limit.rlim_cur) }
        var wanted = limit
        wanted.rlim_cur = rlim_t(count)
        wanted.rlim_max = max(limit.rlim_max, rlim_t(count))
        if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &wanted) != 0 {
            print("setrlimit(RLIMIT_NOFILE, \(count)) failed: errno \(errno) (raising the hard limit needs CAP_SYS_RESOURCE); "
                  + "using the hard limit \(limit.rlim_max)")
            wanted.rlim_cur = min(rlim_t(count), limit.rlim_max)
            wanted.rlim_max = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &wanted)
        }
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return Int(limit.rlim_cur)
    }

    static func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }
    static func kilobytes(_ bytes: Double) -> String { String(format: "%.1f kB", bytes / 1e3) }

    /// Percentile (0…1) of already sorted values.
    static func percentile(_ sorted: [Double], _ q: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((Double(sorted.count) * q).rounded(.up)) - 1
        return sorted[min(sorted.count - 1, max(0, rank))]
    }
}
