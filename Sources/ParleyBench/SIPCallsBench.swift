import Foundation
import Glibc
import ParleyCore
import ParleyNet
import ServerMedia
import SIPGateway
import SIPMedia
import VoiceEngine
import WebRTC

/// `parley-bench sip-calls`: N concurrent bridged SIP ↔ WebRTC calls on loopback, each a raw
/// WebRTC leg (DTLS-SRTP) and a raw RTP phone (plain RTP/AVP, PCMU, SDP offer/answer through
/// `SIPMediaBridge`) joined by the engine's `CompositeMediaBridge`, as `VoiceService` joins them:
/// `--mode forwarded` (the WebRTC leg offers PCMU: packets cross the two media loops without
/// decoding) or `--mode transcoded` (it offers Opus: a `TranscodingRelay` decodes and encodes on
/// the media clock). Every leg sends 50 packets/s (20 ms frames).
///
/// The whole bench process — the WebRTC media loop, the SIP media loop, the media clock and the
/// tasks between them — is pinned to CPU 0, so its CPU time is what one core spends on the calls;
/// the clients run in `sip-calls-client` processes on CPU 1 (`SIPCallsBenchWorker`).
enum SIPCallsBench {
    /// `sharedLoop`: the SIP legs on the WebRTC media loop (an experiment: no thread hop).
    static func run(calls: Int, seconds: Double, transcoded: Bool, pin: Bool, sharedLoop: Bool = false) async throws {
        BenchSystem.lineBufferStandardOutput()
        let pinned = pin && sysconf(Int32(_SC_NPROCESSORS_ONLN)) >= 2
        if pinned { BenchSystem.pinProcess(cpu: 0) }   // before any thread starts: all of them inherit it
        var mediaConfig = MediaTransportServer.Configuration(host: "127.0.0.1", port: 0)
        mediaConfig.maxSessions = calls + 16
        let media = try MediaTransportServer(configuration: mediaConfig)
        let sipServer = try SIPMediaServer(configuration: .init(host: "127.0.0.1", maxLegs: calls + 16),
                                           loop: sharedLoop ? media.loop : nil)
        let sip = SIPMediaBridge(server: sipServer)
        let clock = MediaClock()
        let bridge = CompositeMediaBridge(primary: WebRTCMediaBridge(media: media), others: [(SIPMediaBridge.idPrefix, sip)],
                                          clock: clock)
        clock.start()
        let workerCount = max(1, min((calls + 49) / 50, 16, calls))
        print("# SIP ↔ WebRTC calls: \(calls) calls, \(transcoded ? "TRANSCODED (WebRTC Opus ↔ SIP PCMU)" : "FORWARDED (PCMU ↔ PCMU)"), "
              + "50 packets/s per leg each way, \(seconds) s; "
              + (sharedLoop ? "SIP legs on the WebRTC media loop; " : "") + (pinned ? "server process pinned to CPU 0, \(workerCount) client processes on CPU 1" : "unpinned"))
        print("machine: \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) CPUs, load average \(BenchSystem.loadAverage)")

        var links: [CallsBenchWorkerLink] = []
        let perWorker = (calls + workerCount - 1) / workerCount
        for first in stride(from: 0, to: calls, by: perWorker) {
            links.append(try CallsBenchWorkerLink(first: first, count: min(perWorker, calls - first), pin: pinned,
                                                  command: "sip-calls-client",
                                                  extra: ["--webrtc-codec", transcoded ? "opus" : "pcmu"]))
        }
        var offers: [Int: String] = [:]
        for link in links { offers.merge(try await link.offers()) { a, _ in a } }
        func link(of call: Int) -> CallsBenchWorkerLink { links[call / perWorker] }
        let rssStart = BenchSystem.residentBytes()

        let failures = FailureCounter()
        let setupClock = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            func addCall() {
                let call = next, link = link(of: call), offerA = offers[2 * call] ?? "", offerB = offers[2 * call + 1] ?? ""
                group.addTask {
                    try await connect(call: call, bridge: bridge, sip: sip, offers: (offerA, offerB), link: link, failures: failures)
                }
                next += 1
            }
            while next < min(calls, CallsBench.setupConcurrency) { addCall() }
            var done = 0
            while try await group.next() != nil {
                done += 1
                if done % 100 == 0 { print("  … \(done) calls connected") }
                if next < calls { addCall() }
            }
        }
        let setupWall = (ContinuousClock.now - setupClock).seconds
        let figures = Dictionary(bridge.figures.map { ($0.name, $0.value) }) { a, _ in a }
        print(String(format: "setup: %d calls in %.1f s; bridge: %d forwarded across transports, %d transcoding relays",
                     calls, setupWall, figures["parley_media_cross_transport_forwards"] ?? 0,
                     figures["parley_media_transcoding_relays"] ?? 0))
        let rssCalls = BenchSystem.residentBytes()

        let udpBefore = BenchSystem.udpCounters()
        for link in links { link.send("START") }
        try await Task.sleep(for: .seconds(2))
        let start = await CallsBench.mark(links)
        let cpu0 = await threadCPU(media.loop, sipServer)
        let waiting0 = await waiting(media.loop, sipServer)
        let process0 = BenchSystem.cpuSeconds(pid: getpid())
        let sip0 = await sipServer.statistics(), web0 = await media.statistics()
        let windowStart = ContinuousClock.now
        try await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
        let cpu1 = await threadCPU(media.loop, sipServer)
        let waiting1 = await waiting(media.loop, sipServer)
        let process1 = BenchSystem.cpuSeconds(pid: getpid())
        let sip1 = await sipServer.statistics(), web1 = await media.statistics()
        var window = await CallsBench.mark(links)
        window.subtractCounts(start)
        let wall = (ContinuousClock.now - windowStart).seconds
        var final: [Int: CallsBenchReport.LegCounts] = [:]
        for link in links {
            for line in await link.request("STOP") {
                if let counts = CallsBenchReport.LegCounts(line: line) { final[counts.leg] = counts }
            }
        }
        let udpAfter = BenchSystem.udpCounters()
        let end = Dictionary(bridge.figures.map { ($0.name, $0.value) }) { a, _ in a }

        let webCPU = (cpu1.web - cpu0.web) / wall, sipCPU = (cpu1.sip - cpu0.sip) / wall, total = (process1 - process0) / wall
        print(String(format: "server CPU (of one core): WebRTC media loop %.1f %%, SIP media loop %.1f %%, whole process %.1f %% "
                     + "(the rest: media clock, taps, tasks) → per call %.3f %% (loops %.3f %%) → %@ calls per core at this load",
                     webCPU * 100, sipCPU * 100, total * 100, total * 100 / Double(calls), (webCPU + sipCPU) * 100 / Double(calls),
                     format(Double(calls) / max(total, 1e-9))))
        print(String(format: "packets/s: WebRTC received %@, sent %@ (of which from SIP legs %@); SIP received %@, sent %@ "
                     + "(of which from WebRTC legs %@); handed across loops %@/s, dropped %d",
                     format(Double(web1.rtp - web0.rtp) / wall),
                     format(Double(web1.datagramsSent - web0.datagramsSent) / wall),
                     format(Double(web1.handedOver - web0.handedOver) / wall),
                     format(Double(sip1.rtpReceived - sip0.rtpReceived) / wall), format(Double(sip1.forwarded + sip1.played
                        - sip0.forwarded - sip0.played) / wall), format(Double(sip1.handedOver - sip0.handedOver) / wall),
                     format(Double((end["parley_media_cross_transport_forwarded_packets_total"] ?? 0)
                        - (figures["parley_media_cross_transport_forwarded_packets_total"] ?? 0)) / (wall + 2.5)),
                     end["parley_media_cross_transport_dropped_total"] ?? 0))
        print(String(format: "the loop threads waited for a CPU %.1f %% (WebRTC) and %.1f %% (SIP) of the window (other work on CPU 0)",
                     (waiting1.web - waiting0.web) / wall * 100, (waiting1.sip - waiting0.sip) / wall * 100))
        SIPCallsBenchReport.loss(final, transcoded: transcoded, wall: wall, window: window, udpBefore: udpBefore, udpAfter: udpAfter,
                                 failures: failures.value)
        print("server RSS \(BenchSystem.megabytes(rssStart)) → \(BenchSystem.megabytes(rssCalls)) with \(calls) calls: "
              + "\(BenchSystem.kilobytes(Double(rssCalls - rssStart) / Double(calls))) per call")
        for link in links { link.quit() }
        clock.stop()
        await sipServer.shutdown()   // first: it may run on the media server's loop
        await media.shutdown()
    }

    /// One call: the WebRTC leg from its offer, the SIP leg answering the phone's, forwarded both
    /// ways through the composite bridge (a hand-off or a relay), the answers sent, both connected.
    static func connect(call: Int, bridge: CompositeMediaBridge, sip: SIPMediaBridge, offers: (String, String),
                        link: CallsBenchWorkerLink, failures: FailureCounter) async throws {
        let events: @Sendable (CallMediaEvent) -> Void = { event in
            if case .ended(_, let failure) = event, failure != nil { failures.increment() }
        }
        let web = try await bridge.createLegMedia(offer: offers.0, events: events)
        let phone = try await sip.createLegMedia(offer: offers.1, events: events)
        guard await bridge.forward(from: web.id, to: phone.id), await bridge.forward(from: phone.id, to: web.id) else {
            throw CallsBenchWorkerLink.Failed(description: "forward refused for call \(call)")
        }
        try await CallsBench.answer(call: call, (web.sdp, phone.sdp), link: link)
    }

    /// Seconds the two media loop threads waited for a CPU (runnable, not running).
    static func waiting(_ webLoop: EventLoop, _ sip: SIPMediaServer) async -> (web: Double, sip: Double) {
        (await ForwardBench.onLoop(webLoop) { BenchSystem.threadSchedule().waiting },
         await ForwardBench.onLoop(sip.loop) { BenchSystem.threadSchedule().waiting })
    }

    /// CPU seconds of the two media loop threads.
    static func threadCPU(_ webLoop: EventLoop, _ sip: SIPMediaServer) async -> (web: Double, sip: Double) {
        (await ForwardBench.onLoop(webLoop) { ForwardBench.threadCPUSeconds() },
         await ForwardBench.onLoop(sip.loop) { ForwardBench.threadCPUSeconds() })
    }
}
