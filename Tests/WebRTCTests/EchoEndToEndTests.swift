import ICE
import ParleyCore
import ParleyCrypto
import ParleyNet
import ParleySRTP
import RTCP
import RTP
import SDP
import STUN
import Synchronization
import Testing
@testable import WebRTC

/// Datagrams received by the test client's socket, polled with a deadline.
final class Inbox: Sendable {
    private let queue = Mutex<[Datagram]>([])

    func push(_ datagrams: [Datagram]) { queue.withLock { $0.append(contentsOf: datagrams) } }

    /// The next datagram matching `filter`, or nil after `timeout`.
    func next(timeout: Duration = .seconds(3), where filter: @Sendable (MediaPacketClass) -> Bool = { _ in true })
        async -> Datagram? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let found = queue.withLock { q -> Datagram? in
                guard let i = q.firstIndex(where: { filter(MediaPacketClass.classify($0.bytes)) }) else { return nil }
                return q.remove(at: i)
            }
            if let found { return found }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return nil
    }
}

/// Our own DTLS client and hand-built STUN checks against a `MediaTransportServer` over real
/// loopback UDP: ICE (USE-CANDIDATE), DTLS-SRTP, then SRTP packets come back echoed with the
/// server's SSRC and the same payload, and an SRTCP report arrives.
@Suite struct EchoEndToEndTests {
    @Test(.timeLimit(.minutes(1))) func clientCompletesICEAndDTLSAndGetsEcho() async throws {
        let server = try MediaTransportServer()
        let loop = try EventLoop(name: "test-client")
        let inbox = Inbox()
        let socket = try UDPSocket(host: "127.0.0.1", port: 0, loop: loop) { inbox.push($0) }
        let serverAddress = try SocketAddress.resolve(host: "127.0.0.1", port: server.localPort)
        func send(_ bytes: [UInt8]) { socket.send([Datagram(address: serverAddress, bytes: bytes)]) }

        let certificate = try CertificateIdentity(commonName: "test-client")
        let offer = makeOffer(fingerprint: certificate.fingerprint, candidatePort: UInt16(socket.localPort))
        let started = ContinuousClock.now
        let answer = try await server.createEchoSession(offer: offer)
        let sdp = try SessionDescription(parsing: answer.sdp)
        let audio = try #require(sdp.media.first)
        let serverUfrag = try #require(audio.iceUfrag), serverPwd = try #require(audio.icePwd)
        let serverSSRC = try #require(audio.ssrcs.first)
        let fp = try #require(audio.fingerprints.first)
        let serverFingerprint = try #require(DTLSFingerprint(algorithm: .sha256, digest: fp.bytes))
        #expect(audio.candidates.first?.port == UInt16(server.localPort))

        // ICE: one nominating check, as a controlling full agent (RFC 8445 §7.2.2, §8.1.1).
        let check = STUNMessage(type: .bindingRequest, transactionID: STUNTransactionID(high: 7, low: 99), attributes: [
            .username("\(serverUfrag):cliU"), .priority(0x6E00_1EFF), .iceControlling(1234), .useCandidate,
        ])
        send(try check.serialized(integrity: .sha1(key: Array(serverPwd.utf8), hmac: { HMAC.sha1(key: $0, message: $1) }),
                                  fingerprint: true))
        let response = try #require(await inbox.next(where: { $0 == .stun }), "no STUN response")
        let parsed = try STUNMessage(parsing: response.bytes)
        #expect(parsed.type == .bindingSuccess)
        #expect(parsed.xorMappedAddress?.port == UInt16(socket.localPort))

        // DTLS: we are the client (the offer said actpass, the answer passive).
        #expect(audio.setup == .passive)
        let dtls = try DTLSSession(role: .client, certificate: certificate, remoteFingerprint: serverFingerprint)
        for d in dtls.start() { send(d) }
        let handshakeDeadline = ContinuousClock.now + .seconds(10)
        while dtls.state != .connected, ContinuousClock.now < handshakeDeadline {
            if case .failed(let error) = dtls.state { Issue.record("DTLS failed: \(error)"); break }
            if let datagram = await inbox.next(timeout: .milliseconds(200), where: { $0 == .dtls }) {
                for d in dtls.receive(datagram.bytes).datagrams { send(d) }
            } else {
                for d in dtls.handleTimeout().datagrams { send(d) }
            }
        }
        try #require(dtls.state == .connected, "DTLS did not connect")
        let srtp = try DTLSSRTPKeying.context(for: dtls)
        print("in-process echo: offer → DTLS connected in \(ContinuousClock.now - started)")

        // Media: 20 packets, each with a recognisable payload.
        let clientSSRC: UInt32 = 0x1234
        var echoed: [(seq: UInt16, ts: UInt32, payload: [UInt8])] = []
        for i in 0..<20 {
            let payload = (0..<40).map { UInt8(truncatingIfNeeded: $0 &+ i &* 7) }
            let seq = UInt16(1000 + i), ts = UInt32(5000 + 960 * i)
            var packet: [UInt8] = [0x80, 111, UInt8(seq >> 8), UInt8(seq & 0xFF),
                                   UInt8(ts >> 24), UInt8((ts >> 16) & 0xFF), UInt8((ts >> 8) & 0xFF), UInt8(ts & 0xFF),
                                   0, 0, 0x12, 0x34] + payload
            let length = packet.count
            packet += [UInt8](repeating: 0, count: SRTPContext.maxTrailerLength)
            let protected = try srtp.protect(&packet, length: length)
            send(Array(packet[0..<protected]))
            guard let back = await inbox.next(where: { $0 == .rtp }) else {
                Issue.record("packet \(i) not echoed")
                break
            }
            var buffer = back.bytes + [UInt8](repeating: 0, count: 16)
            let plain = try srtp.unprotect(&buffer, length: back.bytes.count)
            try buffer.withUnsafeBytes { raw in
                let view = try RTPPacketView(UnsafeRawBufferPointer(rebasing: raw[0..<plain]))
                #expect(view.ssrc == serverSSRC)
                #expect(view.ssrc != clientSSRC)
                #expect(view.payloadType == 111)
                echoed.append((view.sequenceNumber, view.timestamp, Array(view.payload)))
            }
            #expect(echoed.last?.payload == payload)
        }
        #expect(echoed.count == 20)
        for (a, b) in zip(echoed, echoed.dropFirst()) {
            #expect(b.seq == a.seq &+ 1)
            #expect(b.ts == a.ts &+ 960)
        }

        // RTCP: the server reports on our stream every second (the first, at connect, may be an
        // empty RR); wait for one that covers all 20 packets.
        var report: ReceptionReport?
        var sawSenderReport = false
        let rtcpDeadline = ContinuousClock.now + .seconds(4)
        while report?.extendedHighestSequenceNumber != 1019, ContinuousClock.now < rtcpDeadline {
            guard let rtcp = await inbox.next(timeout: .milliseconds(500), where: { $0 == .rtcp }) else { continue }
            var rtcpBuffer = rtcp.bytes
            let rtcpLength = try srtp.unprotectRTCP(&rtcpBuffer, length: rtcp.bytes.count)
            for packet in try RTCPPacket.parseCompound(Array(rtcpBuffer[0..<rtcpLength])) {
                switch packet {
                case .senderReport(let sr):
                    sawSenderReport = true
                    #expect(sr.ssrc == serverSSRC)
                    report = sr.reports.first ?? report
                case .receiverReport(let rr): report = rr.reports.first ?? report
                default: break
                }
            }
        }
        #expect(sawSenderReport)
        #expect(report?.ssrc == clientSSRC)
        #expect(report?.extendedHighestSequenceNumber == 1019)
        #expect(report?.totalLost == 0)

        let snapshot = try #require(await server.session(id: answer.id))
        #expect(snapshot.state == .connected)
        #expect(snapshot.counters.rtpEchoed == 20)
        #expect(snapshot.iceConnectedAfter != nil && snapshot.dtlsConnectedAfter != nil)

        // Garbage is counted and dropped; unknown senders are unrouted.
        send([0xFF, 1, 2, 3])
        try await Task.sleep(for: .milliseconds(100))
        let stats = await server.statistics()
        #expect(stats.unknownDropped >= 1)

        #expect(await server.closeSession(id: answer.id))
        #expect(await server.closeSession(id: answer.id) == false)
        #expect(await server.statistics().sessions == 0)
        socket.close()
        await server.shutdown()
        loop.stop()
    }

    @Test func offerWithoutAudioIsRejectedWith53404() async throws {
        let server = try MediaTransportServer()
        do {
            _ = try await server.createEchoSession(offer: makeOffer(codecs: "a=rtpmap:9 G722/8000\r\n", formats: "9"))
            Issue.record("accepted an offer without a supported codec")
        } catch {
            #expect(error.code == .mediaNoSupportedCodec)
        }
        #expect(await server.statistics().sessionsCreated == 0)
        await server.shutdown()
    }
}
