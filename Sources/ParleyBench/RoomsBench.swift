import Foundation
import Glibc
import ParleyNet
import ParleyServer
import ParleyStore
import WebRTC

/// The SFU's data path under a group-room load: `publishers` raw clients each send an audio
/// stream (50 packets/s of 12 + 80 bytes) and a video stream at `videoKbps` (1,200-byte packets
/// every 20 ms) into their room sessions on an in-process `PlatformServer`'s media socket;
/// `subscribers` raw clients each have a receive slot per published section, routed with
/// `MediaTransportServer.route` as the room service routes them. Every packet a subscriber gets
/// is unprotected and its send time (in the payload) gives the SFU's added latency on loopback.
/// The media loop thread's CPU time gives the forwarded packets per server CPU-second. Pinning as
/// in `ForwardBench` (media loop on CPU 0, the rest on CPU 1).
enum RoomsBench {
    @discardableResult
    static func run(seconds: Double, publishers: Int, subscribers: Int, videoKbps: Int, pin: Bool) async throws -> RoomsFigures {
        let cpus = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        let pinned = pin && cpus >= 2
        if pinned { ForwardBench.setAffinity(cpu: 1) }
        let rssBefore = Double(BenchSystem.residentBytes(trim: false)) / 1_048_576
        var config = ServerConfiguration()
        config.port = 0
        config.mediaPort = 0
        config.mediaMaxSessions = publishers + subscribers + 8
        config.recordingsDirectory = NSTemporaryDirectory() + "parley-bench-recordings"
        let server = try PlatformServer(configuration: config, store: InMemoryAccountStore())
        try server.start()
        let media = server.media
        if pinned { await ForwardBench.onLoop(media.loop) { ForwardBench.setAffinity(cpu: 0) } }
        let videoPerTick = max(1, Int((Double(videoKbps) * 1000 / 8 / 50 / 1200).rounded()))
        print("# Rooms (SFU data path: \(publishers) publisher(s) × \(subscribers) subscriber(s), audio 50 packets/s + "
              + "video \(videoKbps) kbit/s (\(videoPerTick) × 1,200 bytes per 20 ms) each, \(seconds) s; "
              + (pinned ? "media loop pinned to CPU 0, load to CPU 1)" : "unpinned)"))

        let clientLoop = try EventLoop(name: "bench-rooms")
        if pinned { await ForwardBench.onLoop(clientLoop) { ForwardBench.setAffinity(cpu: 1) } }
        var senders: [RoomPublisher] = []
        for index in 0..<publishers {
            senders.append(try await RoomPublisher.connect(media: media, loop: clientLoop, index: index,
                                                           videoPacketsPerTick: videoPerTick))
        }
        var receivers: [RoomSubscriber] = []
        for index in 0..<subscribers {
            receivers.append(try await RoomSubscriber.connect(media: media, loop: clientLoop, index: publishers + index,
                                                              slots: publishers))
        }
        var routed = 0
        for receiver in receivers {
            for (k, sender) in senders.enumerated() {
                for (source, slot) in [("0", "a\(k)"), ("1", "v\(k)")] {
                    if await media.route(MediaSectionAddress(session: sender.sessionID, mid: source),
                                         to: MediaSectionAddress(session: receiver.sessionID, mid: slot)) { routed += 1 }
                }
            }
        }
        let rssConnected = Double(BenchSystem.residentBytes(trim: false)) / 1_048_576
        print("sessions \(publishers + subscribers), routes \(routed) of \(2 * publishers * subscribers); "
              + "process RSS \(String(format: "%.1f", rssBefore)) → \(String(format: "%.1f", rssConnected)) MB (clients in the same process)")
        let figures = try await measure(seconds: seconds, senders: senders, receivers: receivers, clientLoop: clientLoop,
                                        serverCPU: { await ForwardBench.onLoop(media.loop) { ForwardBench.threadCPUSeconds() } },
                                        forwarded: { await media.statistics().rtpForwarded })
        report(figures, subscribers: subscribers, serverCPU: "media loop thread CPU")
        for client in senders as [BenchMediaClient] + receivers { client.close() }
        try await Task.sleep(for: .milliseconds(50))
        clientLoop.stop()
        await server.shutdown()
        return figures
    }

    struct Counts: Sendable { var sent = 0, received = 0, errors = 0 }

    static func counts(_ receivers: [RoomSubscriber], _ senders: [RoomPublisher], loop: EventLoop) async -> Counts {
        let (r, s) = (receivers, senders)
        return await ForwardBench.onLoop(loop) {
            var c = Counts()
            for receiver in r { c.received += receiver.received; c.errors += receiver.errors }
            for sender in s { c.sent += sender.sent }
            return c
        }
    }

}

/// A publisher: Opus-typed audio (mid 0) and VP8-typed video (mid 1), sendonly, paced every 20 ms;
/// each payload starts with its send time.
final class RoomPublisher: BenchMediaClient, @unchecked Sendable {
    private(set) var sessionID = ""
    private let videoPacketsPerTick: Int
    let ssrcs: (audio: UInt32, video: UInt32)
    private var sequence: (audio: UInt16, video: UInt16) = (0, 0)
    private var ticks: UInt32 = 0
    private var running = false
    var sent = 0

    init(loop: EventLoop, index: Int, videoPacketsPerTick: Int) {
        self.videoPacketsPerTick = videoPacketsPerTick
        ssrcs = (0x2000_0000 + UInt32(index) * 2, 0x2000_0001 + UInt32(index) * 2)
        super.init(loop: loop)
    }

    static func connect(media: MediaTransportServer, loop: EventLoop, index: Int, videoPacketsPerTick: Int) async throws -> RoomPublisher {
        let client = RoomPublisher(loop: loop, index: index, videoPacketsPerTick: videoPacketsPerTick)
        try await client.handshake(media: media, index: index, offer: { fingerprint, port in
            sessionLines(index: index, bundle: ["0", "1"])
                + section("audio", mid: "0", port: port, index: index, fingerprint: fingerprint, direction: "sendonly",
                          rtpmap: "111 opus/48000/2", ssrc: client.ssrcs.audio, first: true)
                + section("video", mid: "1", port: port, index: index, fingerprint: fingerprint, direction: "sendonly",
                          rtpmap: "96 VP8/90000", ssrc: client.ssrcs.video, first: false)
        }, create: { offer in
            let answer = try await media.createRoomSession(offer: offer) { _ in }
            client.sessionID = answer.id
            return answer.sdp
        })
        return client
    }

    func start() {
        running = true
        tick()
    }

    func stop() { running = false }

    private func tick() {
        guard running else { return }
        ticks &+= 1
        var out: [Datagram] = []
        out.reserveCapacity(1 + videoPacketsPerTick)
        sequence.audio &+= 1
        if let d = packet(payloadType: 111, ssrc: ssrcs.audio, sequence: sequence.audio, timestamp: ticks &* 960,
                          marker: false, payloadBytes: 80) { out.append(d) }
        for i in 0..<videoPacketsPerTick {
            sequence.video &+= 1
            if let d = packet(payloadType: 96, ssrc: ssrcs.video, sequence: sequence.video, timestamp: ticks &* 1800,
                              marker: i == videoPacketsPerTick - 1, payloadBytes: 1188) { out.append(d) }
        }
        sent += out.count
        socket.send(out)
        if ticks % 250 == 0 { sendConsentCheck() }
        loop.schedule(after: .milliseconds(20)) { [self] in tick() }
    }

    private func packet(payloadType: UInt8, ssrc: UInt32, sequence: UInt16, timestamp: UInt32, marker: Bool,
                        payloadBytes: Int) -> Datagram? {
        scratch[0] = 0x80
        scratch[1] = (marker ? 0x80 : 0) | payloadType
        scratch.storeBytes(of: sequence.bigEndian, toByteOffset: 2, as: UInt16.self)
        scratch.storeBytes(of: timestamp.bigEndian, toByteOffset: 4, as: UInt32.self)
        scratch.storeBytes(of: ssrc.bigEndian, toByteOffset: 8, as: UInt32.self)
        scratch.storeBytes(of: DispatchTime.now().uptimeNanoseconds, toByteOffset: 12, as: UInt64.self)
        for i in 20..<(12 + payloadBytes) { scratch[i] = UInt8(truncatingIfNeeded: i) }
        return protectScratch(length: 12 + payloadBytes)
    }
}

/// A subscriber: `slots` recvonly audio sections (`a0`…) and as many video (`v0`…).
final class RoomSubscriber: BenchMediaClient, @unchecked Sendable {
    private(set) var sessionID = ""
    var received = 0, errors = 0
    /// Send → receive times, milliseconds (every 10th packet, bounded).
    var latencies: [Double] = []

    static func connect(media: MediaTransportServer, loop: EventLoop, index: Int, slots: Int) async throws -> RoomSubscriber {
        let client = RoomSubscriber(loop: loop)
        client.latencies.reserveCapacity(100_000)
        let mids = (0..<slots).flatMap { ["a\($0)", "v\($0)"] }
        try await client.handshake(media: media, index: index, offer: { fingerprint, port in
            sessionLines(index: index, bundle: mids) + mids.enumerated().map { i, mid in
                section(mid.hasPrefix("a") ? "audio" : "video", mid: mid, port: port, index: index, fingerprint: fingerprint,
                        direction: "recvonly", rtpmap: mid.hasPrefix("a") ? "111 opus/48000/2" : "96 VP8/90000", ssrc: nil,
                        first: i == 0)
            }.joined()
        }, create: { offer in
            let answer = try await media.createRoomSession(offer: offer) { _ in }
            client.sessionID = answer.id
            return answer.sdp
        })
        return client
    }

    override func media(_ datagrams: [Datagram]) {
        let now = DispatchTime.now().uptimeNanoseconds
        for datagram in datagrams where MediaPacketClass.classify(datagram.bytes) == .rtp {
            guard let length = unprotect(datagram), length >= 20 else {
                errors += 1
                continue
            }
            received += 1
            if received % 10 == 0, latencies.count < 100_000 {
                let sentAt = scratch.loadUnaligned(fromByteOffset: 12, as: UInt64.self)
                latencies.append(Double(now &- sentAt) / 1e6)
            }
        }
    }
}
