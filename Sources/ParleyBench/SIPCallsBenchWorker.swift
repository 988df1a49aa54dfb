import Foundation
import ParleyCrypto
import ParleyNet
import ParleyOpus

/// A client process of `parley-bench sip-calls` (`parley-bench sip-calls-client`, started by the
/// bench): for each call, a raw WebRTC leg (`CallsBenchLeg`, leg 2i: PCMU, or Opus sending a real
/// encoded frame when the server transcodes) and a raw RTP phone (`SIPCallsBenchPhone`, leg
/// 2i+1: PCMU). The same line protocol as `calls-client` (`CallsBenchWorker`), without PLACE:
///
/// ```
/// worker → bench   LEG <leg> <base64 offer> … READY
/// bench → worker   ANSWER <leg> <base64 sdp> → CONNECTED <leg> | FAILED <leg> <why>
///                  START → STARTED;  MARK → COUNTS …, HIST …, LAG …, END
///                  STOP → L <leg> <sent> <received> <played> 0 <sendDropped> <jitter ns> …, END;  QUIT
/// ```
enum SIPCallsBenchWorker {
    static func run(_ arguments: ArraySlice<String>) async throws {
        BenchSystem.lineBufferStandardOutput()
        let options = BenchOptions(arguments)
        let first = options.int("--first-call", 0), count = options.int("--calls", 1)
        let opus = options.values["--webrtc-codec"] == "opus"
        if options.int("--pin", 1) != 0 { BenchSystem.pinProcess(cpu: options.int("--cpu", 1)) }
        let loop = try EventLoop(name: "bench-sip-calls-client")
        let certificate = try CertificateIdentity(commonName: "bench-sip-calls")
        let delays = DelayHistogram()
        let frame = opus ? try opusFrame() : nil
        var webrtc: [Int: CallsBenchLeg] = [:], phones: [Int: SIPCallsBenchPhone] = [:]
        let out = LineWriter()
        for call in first..<(first + count) {
            let leg = try CallsBenchLeg(index: 2 * call, loop: loop, delays: delays, pcmu: !opus)
            leg.fixedPayload = frame
            let phone = try SIPCallsBenchPhone(index: 2 * call + 1, loop: loop, delays: delays)
            webrtc[2 * call] = leg
            phones[2 * call + 1] = phone
            out.write("LEG \(2 * call) \(Data(leg.offer(fingerprint: certificate.fingerprint).utf8).base64EncodedString())")
            out.write("LEG \(2 * call + 1) \(Data(phone.offer.utf8).base64EncodedString())")
        }
        out.write("READY")
        let (legs, sipPhones) = (webrtc, phones)
        let paced: [any CallsBenchPaced] = (first..<(first + count)).flatMap { [legs[2 * $0]! as any CallsBenchPaced, sipPhones[2 * $0 + 1]!] }
        let pacer = CallsBenchPacer(loop: loop, legs: paced)
        /// sent, received, played, sendDropped, jitter of every leg, by index (loop thread).
        let counters: @Sendable () -> [(Int, Int, Int, Int, Int, Double)] = {
            legs.map { ($0.key, $0.value.sent, $0.value.received, $0.value.played, $0.value.sendDropped, $0.value.jitterNanos) }
                + sipPhones.map { ($0.key, $0.value.sent, $0.value.received, $0.value.played, $0.value.sendDropped, $0.value.jitterNanos) }
        }
        for await line in StandardInputLines.stream() {
            let fields = line.split(separator: " ")
            switch fields.first {
            case "ANSWER" where fields.count == 3:
                guard let index = Int(fields[1]), let data = Data(base64Encoded: String(fields[2])) else {
                    out.write("FAILED \(fields[1]) bad-request")
                    continue
                }
                let answer = String(decoding: data, as: UTF8.self)
                Task {
                    do {
                        if let leg = legs[index] { try await leg.connect(answer: answer, certificate: certificate) }
                        if let phone = sipPhones[index] { try await phone.connect(answer: answer) }
                        out.write("CONNECTED \(index)")
                    } catch {
                        out.write("FAILED \(index) \(CallsBenchWorker.oneLine(error))")
                    }
                }
            case "START":
                loop.execute { pacer.start() }
                out.write("STARTED")
            case "MARK":
                let reply = await ForwardBench.onLoop(loop) {
                    let all = counters()
                    return CallsBenchWorker.markReply(sent: all.reduce(0) { $0 + $1.1 }, received: all.reduce(0) { $0 + $1.2 },
                                                      delays: delays, pacer: pacer)
                }
                for line in reply { out.write(line) }
                out.write("END")
            case "STOP":
                loop.execute { pacer.stop() }
                try? await Task.sleep(for: .milliseconds(500))   // packets in flight arrive
                let lines = await ForwardBench.onLoop(loop) {
                    counters().sorted { $0.0 < $1.0 }.map { "L \($0.0) \($0.1) \($0.2) \($0.3) 0 \($0.4) \(Int($0.5))" }
                }
                for line in lines { out.write(line) }
                out.write("END")
            case "QUIT":
                for leg in legs.values { leg.close() }
                for phone in sipPhones.values { phone.close() }
                loop.stop()
                exit(0)
            default:
                FileHandle.standardError.write(Data("sip-calls-client: unknown command \(line.prefix(40))\n".utf8))
            }
        }
        exit(0)
    }

    /// One 20 ms Opus frame of a 440 Hz tone at 32 kbit/s, sent over and over.
    static func opusFrame() throws -> [UInt8] {
        let encoder = try OpusEncoder(sampleRate: 48_000, channels: 1, bitrate: 32_000)
        let pcm = (0..<960).map { Int16(8_000 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }
        var out = [UInt8](repeating: 0, count: 1500)
        let count = try pcm.withUnsafeBufferPointer { p in try out.withUnsafeMutableBufferPointer { try encoder.encode(p, into: $0) } }
        return Array(out[0..<count])
    }
}
