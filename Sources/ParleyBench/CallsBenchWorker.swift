import Foundation
import Glibc
import ParleyCrypto
import ParleyNet
import Synchronization

/// A client process of `parley-bench calls` (`parley-bench calls-client`, started by the bench
/// itself): the legs of calls `first..<first+count`, driven over stdin/stdout with one line per
/// message. Clients run in their own processes, pinned to CPU 1, so that the server's figures are
/// its own. (They were first split for a reason that is gone: with libsrtp2's NSS backend every
/// live SRTP context in a process slowed all the others; see docs/PERFORMANCE.md.)
///
/// ```
/// worker → bench   LEG <leg> <base64 offer> … READY
/// bench → worker   CRED <baseURL> <accountSid> <apiKeySid> <apiSecret>   (before any PLACE)
///                  PLACE <call>          → PLACED <call> <setup s> <answer s> <incoming s> | PLACEFAILED <call> <why>
///                  ANSWER <leg> <base64 sdp>   → CONNECTED <leg> | FAILED <leg> <why>
///                  START                 → STARTED
///                  MARK                  → COUNTS <sent> <received> <cpu s>, HIST <i:n,…> <max ns>, LAG <ns> <late>, END
///                  STOP                  → L <leg> <sent> <received> <played> <srtpErrors> <sendDropped> <jitter ns> …, END
///                  QUIT                  (exits)
/// ```
enum CallsBenchWorker {
    static func run(_ arguments: ArraySlice<String>) async throws {
        BenchSystem.lineBufferStandardOutput()
        let options = BenchOptions(arguments)
        let first = options.int("--first-call", 0), count = options.int("--calls", 1)
        if options.int("--pin", 1) != 0 { BenchSystem.pinProcess(cpu: options.int("--cpu", 1)) }
        let loop = try EventLoop(name: "bench-calls-client")
        let certificate = try CertificateIdentity(commonName: "bench-calls")
        let delays = DelayHistogram()
        var built: [Int: CallsBenchLeg] = [:]
        for leg in (2 * first)..<(2 * (first + count)) {
            built[leg] = try CallsBenchLeg(index: leg, loop: loop, delays: delays)
        }
        let legs = built
        let out = LineWriter()
        for leg in legs.keys.sorted() {
            out.write("LEG \(leg) \(Data(legs[leg]!.offer(fingerprint: certificate.fingerprint).utf8).base64EncodedString())")
        }
        out.write("READY")

        let ordered = legs.keys.sorted().map { legs[$0]! }
        let pacer = CallsBenchPacer(loop: loop, legs: ordered)
        var server: CallsBenchSignalingCall.Server?
        var signalingCalls: [CallsBenchSignalingCall] = []
        var keepAlive: Task<Void, Never>?
        for await line in StandardInputLines.stream() {
            let fields = line.split(separator: " ")
            guard let command = fields.first else { continue }
            switch command {
            case "CRED" where fields.count == 5:
                server = .init(baseURL: String(fields[1]), accountSid: String(fields[2]), apiKeySid: String(fields[3]),
                               apiSecret: String(fields[4]))
            case "PLACE" where fields.count == 2:
                guard let call = Int(fields[1]), let caller = legs[2 * call], let callee = legs[2 * call + 1], let server else {
                    out.write("PLACEFAILED \(fields[1]) bad-request")
                    continue
                }
                do {
                    let placed = try await CallsBenchSignalingCall.place(index: call, server: server, callerLeg: caller,
                                                                         calleeLeg: callee, certificate: certificate)
                    signalingCalls.append(placed)
                    out.write("PLACED \(call) \(placed.setupSeconds) \(placed.answerSeconds) \(placed.incomingSeconds)")
                } catch {
                    out.write("PLACEFAILED \(call) \(oneLine(error))")
                }
            case "ANSWER" where fields.count == 3:
                guard let index = Int(fields[1]), let leg = legs[index], let data = Data(base64Encoded: String(fields[2])) else {
                    out.write("FAILED \(fields[1]) bad-request")
                    continue
                }
                let answer = String(decoding: data, as: UTF8.self)
                Task {
                    do {
                        try await leg.connect(answer: answer, certificate: certificate)
                        out.write("CONNECTED \(index)")
                    } catch {
                        out.write("FAILED \(index) \(oneLine(error))")
                    }
                }
            case "START":
                let calls = signalingCalls
                keepAlive = Task {   // the server closes a signaling socket silent for 3 heartbeats (60 s)
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .seconds(20))
                        for call in calls { await call.ping() }
                    }
                }
                loop.execute { pacer.start() }
                out.write("STARTED")
            case "MARK":
                let counts = await ForwardBench.onLoop(loop) {
                    markReply(sent: ordered.reduce(0) { $0 + $1.sent }, received: ordered.reduce(0) { $0 + $1.received },
                              delays: delays, pacer: pacer)
                }
                for line in counts { out.write(line) }
                out.write("END")
            case "STOP":
                loop.execute { pacer.stop() }
                keepAlive?.cancel()
                try? await Task.sleep(for: .milliseconds(500))   // packets in flight arrive
                let lines = await ForwardBench.onLoop(loop) {
                    ordered.map { "L \($0.index) \($0.sent) \($0.received) \($0.played) \($0.srtpErrors) \($0.sendDropped) "
                                  + "\(Int($0.jitterNanos))" }
                }
                for line in lines { out.write(line) }
                out.write("END")
            case "QUIT":
                for leg in ordered { leg.close() }
                for call in signalingCalls { await call.close() }
                loop.stop()
                exit(0)
            default:
                FileHandle.standardError.write(Data("calls-client: unknown command \(line.prefix(40))\n".utf8))
            }
        }
        exit(0)   // stdin closed: the bench is gone
    }

    /// `MARK`'s reply lines (loop thread): counts since the start, the delays and pacer lag since
    /// the previous mark (both reset).
    static func markReply(sent: Int, received: Int, delays: DelayHistogram, pacer: CallsBenchPacer) -> [String] {
        let reply = ["COUNTS \(sent) \(received) \(ForwardBench.threadCPUSeconds())",
                     "HIST \(delays.encoded.isEmpty ? "-" : delays.encoded) \(delays.maxNanos)",
                     "LAG \(pacer.maxLagNanos) \(pacer.lateSends)"]
        delays.reset()
        pacer.resetLag()
        return reply
    }

    static func oneLine(_ error: any Error) -> String {
        "\(error)".replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ")
    }
}

/// Writes whole lines to standard output, one writer at a time.
final class LineWriter: Sendable {
    private let lock = Mutex<Void>(())
    func write(_ line: String) {
        lock.withLock { _ in FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    }
}

/// Standard input as lines, read on a thread of its own.
enum StandardInputLines {
    static func stream() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream()
        Thread.detachNewThread {
            while let line = readLine(strippingNewline: true) { continuation.yield(line) }
            continuation.finish()
        }
        return stream
    }
}
