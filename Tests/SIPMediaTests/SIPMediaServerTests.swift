import ParleyCore
import ParleyNet
import ParleyRTP
import ParleySRTP
import RTP
import SIPMedia
import Synchronization
import Testing

/// A SIP phone's RTP socket, as a test sees it: sends packets it builds and collects what arrives.
final class RTPPeer: Sendable {
    final class Received: Sendable {
        let packets = Mutex<[[UInt8]]>([])
    }

    let socket: UDPSocket
    private let received = Received()

    init(loop: EventLoop) throws {
        let received = self.received
        socket = try UDPSocket(loop: loop) { datagrams in
            received.packets.withLock { $0.append(contentsOf: datagrams.map(\.bytes)) }
        }
    }

    var address: SocketAddress { try! SocketAddress.resolve(host: "127.0.0.1", port: socket.localPort) }
    var packets: [[UInt8]] { received.packets.withLock { $0 } }

    func send(_ bytes: [UInt8], to port: Int) {
        socket.send([Datagram(address: try! SocketAddress.resolve(host: "127.0.0.1", port: port), bytes: bytes)])
    }

    /// Waits until `count` packets arrived (or 3 s passed) and returns them.
    func waitFor(_ count: Int) async -> [[UInt8]] {
        for _ in 0..<300 where packets.count < count { try? await Task.sleep(for: .milliseconds(10)) }
        return packets
    }

    static func rtp(payloadType: UInt8, sequence: UInt16, timestamp: UInt32, ssrc: UInt32, payload: [UInt8],
                    marker: Bool = false) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: RTPFixedHeader.size + payload.count)
        bytes.withUnsafeMutableBytes {
            RTPFixedHeader.write(to: $0.baseAddress!, payloadType: payloadType, marker: marker, sequenceNumber: sequence,
                                 timestamp: timestamp, ssrc: ssrc)
        }
        bytes.replaceSubrange(RTPFixedHeader.size..., with: payload)
        return bytes
    }
}

final class EventLog: Sendable {
    private let events = Mutex<[SIPMediaEvent]>([])
    func record(_ event: SIPMediaEvent) { events.withLock { $0.append(event) } }
    var all: [SIPMediaEvent] { events.withLock { $0 } }

    func waitFor(_ matching: (SIPMediaEvent) -> Bool) async -> Bool {
        for _ in 0..<300 {
            if all.contains(where: matching) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}

@Suite struct SIPMediaServerTests {
    /// Two legs bridged both ways: one peer's PCMU reaches the other with the leg's own SSRC and
    /// continuous numbering, its key press becomes a digit event (RFC 4733), and once the leg has
    /// latched onto the peer (RFC 4961), a stranger's RTP is dropped.
    @Test func plainRTPForwardingDigitsAndLatching() async throws {
        let loop = try EventLoop(name: "test-rtp-peers")
        let server = try SIPMediaServer()
        let alice = try RTPPeer(loop: loop), bob = try RTPPeer(loop: loop), stranger = try RTPPeer(loop: loop)
        let log = EventLog()
        let a = try await server.openLeg { log.record($0) }
        let b = try await server.openLeg { log.record($0) }
        try await server.configure(a.id, SIPMediaParameters(remote: alice.address, payloadType: 0, clockRate: 8000,
                                                             telephoneEventPayloadType: 101))
        try await server.configure(b.id, SIPMediaParameters(remote: bob.address, payloadType: 0, clockRate: 8000,
                                                             telephoneEventPayloadType: 101))
        #expect(await server.forward(from: a.id, to: b.id))
        #expect(await server.forward(from: b.id, to: a.id))
        let tapped = Mutex(0)
        #expect(await server.setAudioTap(a.id) { _ in tapped.withLock { $0 += 1 } })

        for n in 0..<5 {
            alice.send(RTPPeer.rtp(payloadType: 0, sequence: UInt16(100 + n), timestamp: UInt32(8000 + 160 * n), ssrc: 0xA11CE,
                                   payload: [UInt8](repeating: UInt8(n), count: 160)), to: a.port)
        }
        let got = await bob.waitFor(5)
        #expect(got.count == 5)
        let views = got.map { bytes in bytes.withUnsafeBytes { try! RTPPacketView($0) } }
        let ssrcs = Set(got.map { bytes in bytes.withUnsafeBytes { try! RTPPacketView($0).ssrc } })
        #expect(ssrcs.count == 1 && !ssrcs.contains(0xA11CE))
        let sequences = got.map { bytes in bytes.withUnsafeBytes { try! RTPPacketView($0).sequenceNumber } }
        #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $1 == $0 &+ 1 })
        #expect(views.count == 5)
        #expect(got.last.map { Array($0[12...]) } == [UInt8](repeating: 4, count: 160))
        #expect(await log.waitFor { if case .receiving(a.id, _) = $0 { true } else { false } })

        // Key 5: two packets, then the end packet (RFC 4733 §2.5.1).
        for (index, end) in [false, false, true].enumerated() {
            let event = TelephoneEvent(event: 5, isEnd: end, volume: 10, duration: UInt16(160 * (index + 1))).serialized
            alice.send(RTPPeer.rtp(payloadType: 101, sequence: UInt16(105 + index), timestamp: 8800, ssrc: 0xA11CE,
                                   payload: event, marker: index == 0), to: a.port)
        }
        #expect(await log.waitFor { $0 == .digit(legID: a.id, "5") })
        // The events went on to bob as telephone events of his own payload type.
        let withEvents = await bob.waitFor(8)
        #expect(withEvents.count == 8)
        #expect(withEvents.last.map { $0[1] & 0x7F } == 101)

        stranger.send(RTPPeer.rtp(payloadType: 0, sequence: 1, timestamp: 1, ssrc: 0xBAD, payload: [1, 2, 3]), to: a.port)
        try await Task.sleep(for: .milliseconds(100))
        #expect(bob.packets.count == 8)
        #expect(tapped.withLock { $0 } == 5)
        let statistics = await server.statistics()
        #expect(statistics.dropped == 1)
        #expect(statistics.digitsReceived == 1)
        #expect(statistics.forwarded == 8)
        await server.shutdown()
        #expect(await log.waitFor { $0 == .closed(legID: b.id) })
    }

    /// SDES-SRTP (RFC 4568): the leg decrypts the peer's SRTP with the peer's key and protects what
    /// the server plays with its own; the peer, holding the mirror keys, reads it back.
    @Test func srtpLegPlaysAndReceives() async throws {
        let loop = try EventLoop(name: "test-srtp-peer")
        let server = try SIPMediaServer()
        let phone = try RTPPeer(loop: loop)
        let ours = [UInt8](repeating: 0x11, count: 16), oursSalt = [UInt8](repeating: 0x22, count: 14)
        let theirs = [UInt8](repeating: 0x33, count: 16), theirsSalt = [UInt8](repeating: 0x44, count: 14)
        let serverKeys = SRTPKeyingMaterial(profile: .aes128CMHMACSHA1_80, localKey: ours, localSalt: oursSalt,
                                            remoteKey: theirs, remoteSalt: theirsSalt)
        let phoneContext = try SRTPContext(keyingMaterial: SRTPKeyingMaterial(
            profile: .aes128CMHMACSHA1_80, localKey: theirs, localSalt: theirsSalt, remoteKey: ours, remoteSalt: oursSalt))
        let tapped = Mutex<[[UInt8]]>([])
        let leg = try await server.openLeg()
        try await server.configure(leg.id, SIPMediaParameters(remote: phone.address, payloadType: 8, clockRate: 8000, srtp: serverKeys))
        #expect(await server.setAudioTap(leg.id) { packet in tapped.withLock { $0.append(packet.payload) } })

        for n in 0..<3 {
            server.play([UInt8](repeating: 0xD5, count: 160), samples: 160, to: leg.id)
            var packet = RTPPeer.rtp(payloadType: 8, sequence: UInt16(n), timestamp: UInt32(160 * n), ssrc: 77,
                                     payload: [UInt8](repeating: UInt8(n + 1), count: 160))
            packet += [UInt8](repeating: 0, count: 16)
            let length = try packet.withUnsafeMutableBytes { try phoneContext.protect($0, length: 172) }
            phone.send(Array(packet[0..<length]), to: leg.port)
        }
        let got = await phone.waitFor(3)
        #expect(got.count == 3)
        for datagram in got {
            var bytes = datagram
            let plain = try bytes.withUnsafeMutableBytes { try phoneContext.unprotect($0, length: datagram.count) }
            #expect(plain == 172)
            #expect(Array(bytes[12..<172]) == [UInt8](repeating: 0xD5, count: 160))
            #expect(bytes[1] & 0x7F == 8)
        }
        for _ in 0..<100 where tapped.withLock({ $0.count }) < 3 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(tapped.withLock { $0 } == (1...3).map { [UInt8](repeating: UInt8($0), count: 160) })
        // A packet under the wrong key fails authentication and is dropped.
        phone.send(RTPPeer.rtp(payloadType: 8, sequence: 9, timestamp: 9, ssrc: 77, payload: [UInt8](repeating: 1, count: 170)),
                   to: leg.port)
        try await Task.sleep(for: .milliseconds(100))
        #expect(await server.statistics().dropped == 1)
        await server.shutdown()
    }
}

/// Keys sent to a SIP peer (RFC 4733): each key's packets share one timestamp with a growing
/// duration, the first carries the marker, the end packet comes three times, and the next key
/// starts later.
@Suite struct SIPMediaDigitTests {
    @Test func keysGoOutAsTelephoneEvents() async throws {
        let loop = try EventLoop(name: "test-digit-peer")
        let server = try SIPMediaServer()
        let phone = try RTPPeer(loop: loop)
        let leg = try await server.openLeg()
        try await server.configure(leg.id, SIPMediaParameters(remote: phone.address, payloadType: 0, clockRate: 8000,
                                                               telephoneEventPayloadType: 101))
        #expect(await server.sendDigits("5#", to: leg.id))
        #expect(await server.sendDigits("x", to: leg.id) == false)
        let packets = await phone.waitFor(16)
        #expect(packets.count == 16)
        let events = packets.map { bytes in
            bytes.withUnsafeBytes { raw in
                let view = try! RTPPacketView(raw)
                return (view.payloadType, view.timestamp, view.marker, try! TelephoneEvent(parsing: Array(view.payload)))
            }
        }
        #expect(events.allSatisfy { $0.0 == 101 })
        let five = events.prefix(8), pound = events.suffix(8)
        #expect(five.allSatisfy { $0.3.event == 5 } && pound.allSatisfy { $0.3.event == 11 })
        #expect(Set(five.map(\.1)).count == 1 && Set(pound.map(\.1)).count == 1 && five.first!.1 != pound.first!.1)
        #expect(five.map(\.3.duration) == [160, 320, 480, 640, 800, 800, 800, 800])
        #expect(five.map(\.3.isEnd) == [false, false, false, false, false, true, true, true])
        #expect(five.map(\.2) == [true, false, false, false, false, false, false, false])
        // The second key starts after the first one's duration.
        #expect(pound.first!.1 &- five.first!.1 >= 800)
        #expect(await server.statistics().digitsSent == 2)
        await server.shutdown()
    }
}

/// A leg reports `.silent` only for a peer that sent media and stopped: a phone that has not
/// started (still ringing) is not taken for gone.
@Suite struct SIPMediaSilenceTests {
    @Test func silenceCountsOnlyAfterThePeersFirstPacket() async throws {
        let loop = try EventLoop(name: "test-silence-peer")
        let server = try SIPMediaServer(configuration: .init(silenceTimeout: .milliseconds(500)))
        let phone = try RTPPeer(loop: loop)
        let log = EventLog()
        let leg = try await server.openLeg { log.record($0) }
        try await server.configure(leg.id, SIPMediaParameters(remote: phone.address, payloadType: 0, clockRate: 8000))
        try await Task.sleep(for: .milliseconds(2_200))
        #expect(!log.all.contains(.silent(legID: leg.id)))
        phone.send(RTPPeer.rtp(payloadType: 0, sequence: 1, timestamp: 160, ssrc: 9, payload: [UInt8](repeating: 0xFF, count: 160)),
                   to: leg.port)
        #expect(await log.waitFor { $0 == .silent(legID: leg.id) })
        await server.shutdown()
    }
}
