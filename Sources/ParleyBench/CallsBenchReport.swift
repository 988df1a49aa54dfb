import Foundation
import ParleyCrypto
import ParleySRTP
import WebRTC

/// The figures `parley-bench calls` prints, from the server's own counters and the client
/// processes' replies.
struct CallsBenchReport {
    let calls: Int
    let viaSignaling: Int
    let wall: Double
    let workers: Int

    /// One leg's final counts (`L …` from a client process).
    struct LegCounts {
        var leg = 0, sent = 0, received = 0, played = 0, srtpErrors = 0, sendDropped = 0, jitterNanos = 0

        init?(line: String) {
            let f = line.split(separator: " ").dropFirst().compactMap { Int($0) }
            guard line.hasPrefix("L "), f.count == 7 else { return nil }
            (leg, sent, received, played, srtpErrors, sendDropped, jitterNanos) = (f[0], f[1], f[2], f[3], f[4], f[5], f[6])
        }
    }

    /// What the client processes said at a `MARK`.
    struct Window {
        var sent = 0, received = 0, clientCPU = 0.0, maxLagNanos = 0, lateSends = 0
        let delays = DelayHistogram()

        mutating func add(_ lines: [String]) {
            for line in lines {
                let f = line.split(separator: " ")
                switch f.first {
                case "COUNTS" where f.count == 4:
                    sent += Int(f[1]) ?? 0
                    received += Int(f[2]) ?? 0
                    clientCPU += Double(f[3]) ?? 0
                case "HIST" where f.count == 3:
                    if f[1] != "-" { delays.merge(encoded: f[1], maxNanos: Int64(f[2]) ?? 0) }
                case "LAG" where f.count == 3:
                    maxLagNanos = max(maxLagNanos, Int(f[1]) ?? 0)
                    lateSends += Int(f[2]) ?? 0
                default:
                    break
                }
            }
        }

        /// Makes the counts relative to an earlier mark.
        mutating func subtractCounts(_ earlier: Window) {
            sent -= earlier.sent
            received -= earlier.received
            clientCPU -= earlier.clientCPU
        }
    }

    func setup(direct: Int, wall setupWall: Double, cpu: Double, failures: Int,
               signaling: [(setup: Double, answer: Double, incoming: Double)]) {
        print("setup: \(direct) direct calls in \(String(format: "%.1f", setupWall)) s (\(CallsBench.setupConcurrency) at a time); "
              + "media loop CPU \(String(format: "%.2f", cpu * 1000 / Double(max(direct, 1)))) ms per call "
              + "(2 ICE checks + 2 DTLS handshakes); direct sessions failed during the whole run: \(failures)")
        guard !signaling.isEmpty else { return }
        let setup = signaling.map(\.setup).sorted(), answer = signaling.map(\.answer).sorted()
        let incoming = signaling.map(\.incoming).sorted()
        func ms(_ s: [Double], _ q: Double) -> String { String(format: "%.1f", BenchSystem.percentile(s, q) * 1000) }
        print("signaling calls (\(signaling.count), one at a time): invite → both legs connected p50 \(ms(setup, 0.5)) ms, "
              + "p95 \(ms(setup, 0.95)) ms, max \(ms(setup, 1)) ms; invite → caller's answer p50 \(ms(answer, 0.5)) ms; "
              + "invite → callee's incoming p50 \(ms(incoming, 0.5)) ms")
    }

    func cpu(media: Double, process: Double, forwarded: Double, window: Window, waiting: Double, live: Int) {
        let perCall = media / Double(calls)
        print("media loop thread CPU                 \(String(format: "%.1f", media * 100)) % of one core for \(calls) calls "
              + "→ \(String(format: "%.3f", perCall * 100)) % per call → \(format(1 / max(perCall, 1e-9))) calls per core "
              + "(whole server process \(String(format: "%.1f", process * 100)) %)")
        print(String(format: "  per forwarded packet %.1f µs of media loop CPU; the loop thread waited for its CPU %.1f %% of "
                     + "the window (other work on CPU 0)", media / max(forwarded, 1) * 1e6, waiting * 100)
              + (live < 2 * calls ? "; only \(live) of \(2 * calls) sessions still live (the rest failed: consent checks lost "
                 + "with the media), so these CPU figures describe an overloaded server" : ""))
        print("forwarded packets/s (server)          \(format(forwarded))  (clients: sent \(format(Double(window.sent) / wall))/s, "
              + "received \(format(Double(window.received) / wall))/s, window \(String(format: "%.1f", wall)) s)")
        print(String(format: "client processes: %d, client loop threads %.0f %% of a core in all; pacer max lag %.1f ms, "
                     + "%d sends > 5 ms late", workers, window.clientCPU / wall * 100, Double(window.maxLagNanos) / 1e6,
                     window.lateSends))
    }

    /// Loss per leg: what the peer leg sent that this leg did not receive (after a drain).
    func loss(_ final: [Int: LegCounts], sessions: [PeerSessionSnapshot], udpBefore: [String: Int], udpAfter: [String: Int]) {
        var sent = 0, lost = 0, worst = 0.0, legsWithLoss = 0, bad: [Int] = []
        for (leg, counts) in final.sorted(by: { $0.key < $1.key }) {
            let peerSent = final[leg ^ 1]?.sent ?? 0
            let missing = max(0, peerSent - counts.received)
            sent += peerSent
            lost += missing
            if missing > 0 { legsWithLoss += 1 }
            if peerSent > 0 {
                worst = max(worst, Double(missing) / Double(peerSent))
                if Double(missing) / Double(peerSent) > 0.01 { bad.append(leg) }
            }
        }
        let all = Array(final.values)
        print(String(format: "loss                                  %.4f %% (%@ of %@ packets over the whole media phase); "
                     + "worst leg %.3f %%, %d of %d legs lost any", 100 * Double(lost) / Double(max(sent, 1)),
                     format(Double(lost)), format(Double(sent)), worst * 100, legsWithLoss, final.count))
        let rcvbuf = (udpAfter["RcvbufErrors"] ?? 0) - (udpBefore["RcvbufErrors"] ?? 0)
        let inErrors = (udpAfter["InErrors"] ?? 0) - (udpBefore["InErrors"] ?? 0)
        print("  server: \(sessions.filter { $0.state == .connected }.count) of \(sessions.count) sessions connected, "
              + "forwardDropped \(sessions.reduce(0) { $0 + $1.counters.forwardDropped }), SRTP errors "
              + "\(sessions.reduce(0) { $0 + $1.counters.srtpErrors }); clients: SRTP errors \(all.reduce(0) { $0 + $1.srtpErrors }), "
              + "send ring full \(all.reduce(0) { $0 + $1.sendDropped }), frames played by the server \(all.reduce(0) { $0 + $1.played }); "
              + "kernel UDP RcvbufErrors +\(rcvbuf), InErrors +\(inErrors) (whole machine)")
        let bySSRC = Dictionary(sessions.compactMap { s in s.remoteSSRC.map { ($0, s) } }, uniquingKeysWith: { a, _ in a })
        for leg in bad.prefix(6) {
            let s = bySSRC[0x2000_0000 &+ UInt32(leg)], peer = bySSRC[0x2000_0000 &+ UInt32(leg ^ 1)]
            print("  leg \(leg) (\(leg / 2 < viaSignaling ? "signaling" : "direct") call \(leg / 2)): received "
                  + "\(final[leg]?.received ?? 0) of \(final[leg ^ 1]?.sent ?? 0); server session \(s?.id.prefix(8) ?? "?") "
                  + "\(s.map { "\($0.state)" } ?? "?"), source \(s?.forwardingSource?.prefix(8) ?? "none"), forwarded "
                  + "\(s?.counters.rtpForwarded ?? 0); its peer's session received \(peer?.counters.rtpReceived ?? 0)")
        }
    }

    func delay(_ window: Window, final: [Int: LegCounts]) {
        let jitters = final.values.map { Double($0.jitterNanos) }.sorted()
        let d = window.delays
        print(String(format: "one-way delay client → server → client: p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms; "
                     + "RFC 3550 jitter per leg: mean %.0f µs, max %.0f µs", d.quantileMillis(0.5), d.quantileMillis(0.99),
                     d.quantileMillis(0.999), Double(d.maxNanos) / 1e6,
                     jitters.reduce(0, +) / Double(max(jitters.count, 1)) / 1000, (jitters.last ?? 0) / 1000))
    }

    func memory(start: Int, signaling: Int, calls rssCalls: Int, direct: Int) {
        print("server RSS \(BenchSystem.megabytes(start)) → \(BenchSystem.megabytes(signaling)) after \(viaSignaling) signaling "
              + "calls → \(BenchSystem.megabytes(rssCalls)) with all \(calls)")
        print("memory per call (server)              \(BenchSystem.kilobytes(Double(rssCalls - signaling) / Double(max(direct, 1)))) "
              + "per direct call (2 call sessions: ICE, DTLS, SRTP, RTCP, forwarding)"
              + (viaSignaling > 0 ? "; \(BenchSystem.kilobytes(Double(signaling - start) / Double(viaSignaling))) per signaling call "
                 + "(+ 2 signaling WebSockets and the call's state)" : ""))
    }
}

/// The cost of one SRTP protect in this process, with a fresh context. With libsrtp2's NSS backend
/// it grew with the number of live contexts in the process; `SRTPContext` on OpenSSL should not.
enum CallsBenchProbe {
    static func protectNanoseconds(packets: Int = 5000) throws -> Double {
        let context = try SRTPContext(keyingMaterial: SRTPKeyingMaterial(
            profile: .aeadAES128GCM, localKey: SecureRandom.bytes(16), localSalt: SecureRandom.bytes(12),
            remoteKey: SecureRandom.bytes(16), remoteSalt: SecureRandom.bytes(12)))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 16)
        defer { buffer.deallocate() }
        let start = DispatchTime.now().uptimeNanoseconds
        for i in 0..<packets {
            SRTPBench.writePacket(buffer, sequence: UInt16(truncatingIfNeeded: i + 1), timestamp: UInt32(i) * 960)
            _ = try context.protect(buffer, length: 12 + 80)
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(packets)
    }
}
