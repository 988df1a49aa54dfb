import Foundation
import ParleyCrypto
import ParleyNet
import ParleySRTP
import SDP
import STUN
import Synchronization
import WebRTC

/// One call leg's client for `parley-bench calls`: a raw WebRTC endpoint (one UDP socket, one
/// nominating ICE check, a DTLS client handshake, an `SRTPContext`) like `ForwardClient`, but
/// offering Opus and sending paced, tagged packets instead of a window.
///
/// A full `PeerConnection` per leg (its own loop thread, ICE agent, RTCP, jitter buffer, Opus)
/// cannot produce 1,000 streams on one core; this client does only what the server sees on the
/// wire. After `connect`, everything runs on the shared client loop thread (`loop`).
///
/// Each packet is 12 bytes of RTP header and an 80-byte payload (32 kbit/s of 20 ms Opus frames):
/// a magic word, the sending leg's index and its send time (monotonic ns), so the far leg counts
/// exactly the packets that came from its peer (not ringback or hold frames the server plays) and
/// measures their one-way delay through the server.
final class CallsBenchLeg: @unchecked Sendable {
    struct SetupFailed: Error, CustomStringConvertible { var description: String }

    static let payloadBytes = 80
    static let headerBytes = 12
    static let opusPayloadType: UInt8 = 111
    static let magic: UInt32 = 0x5042_4348   // "PBCH"

    let index: Int
    let loop: EventLoop
    let ssrc: UInt32
    /// What the leg offers and sends: Opus (80-byte tagged payloads, or `fixedPayload`), or
    /// PCMU (`sip-calls`: 160-byte tagged payloads, 8 kHz timestamps).
    let pcmu: Bool
    /// Sent instead of the tagged payload (a real Opus frame, for a transcoding server to decode).
    var fixedPayload: [UInt8]?
    private(set) var socket: UDPSocket!
    private var inbox: LegInbox?
    private var srtp: SRTPContext?
    private var server: SocketAddress?
    private var consentCheck: [UInt8] = []
    private var sequence: UInt16 = 0
    private var timestamp: UInt32 = 0
    /// Shared by every leg on the loop (loop thread only).
    private let delays: DelayHistogram

    // Loop-thread counters.
    var sent = 0, received = 0, played = 0, srtpErrors = 0, rtcpReceived = 0, sendDropped = 0
    private var lastTransit: Int64?
    /// RFC 3550 §6.4.1 interarrival jitter of the one-way delay, in ns (×16 fixed point avoided: Double).
    private(set) var jitterNanos = 0.0
    /// Time (ns) the handshake finished; for setup figures.
    private(set) var connectedAt: UInt64 = 0

    init(index: Int, loop: EventLoop, delays: DelayHistogram, pcmu: Bool = false) throws {
        self.index = index
        self.pcmu = pcmu
        self.loop = loop
        self.delays = delays
        ssrc = 0x2000_0000 &+ UInt32(index)
        let inbox = LegInbox()
        self.inbox = inbox
        // Small batches: one leg receives 50 packets/s, so a 4-slot ring is plenty (and keeps memory per leg low).
        socket = try UDPSocket.inPlace(host: "127.0.0.1", port: 0, loop: loop, batchSize: 4, maxDatagramBytes: 2048,
                                       sendBatchSize: 4) { [unowned self] batch in receive(batch) }
    }

    var localPort: Int { socket.localPort }

    /// The SDP offer: Opus and RFC 4733 events at 48 kHz, one host candidate, ICE-lite server answers.
    func offer(fingerprint: DTLSFingerprint) -> String {
        """
        v=0\r
        o=- \(index + 1) 2 IN IP4 127.0.0.1\r
        s=-\r
        t=0 0\r
        a=group:BUNDLE 0\r
        m=audio \(localPort) UDP/TLS/RTP/SAVPF \(pcmu ? "0" : "111") 101\r
        c=IN IP4 127.0.0.1\r
        a=mid:0\r
        a=sendrecv\r
        a=ice-ufrag:leg\(index)\r
        a=ice-pwd:benchcallspassword0123456789\r
        a=fingerprint:\(fingerprint.sdpValue)\r
        a=setup:actpass\r
        a=rtcp-mux\r
        \(pcmu ? "a=rtpmap:0 PCMU/8000" : "a=rtpmap:111 opus/48000/2\r\na=fmtp:111 minptime=10;useinbandfec=1")\r
        a=rtpmap:101 telephone-event/\(pcmu ? 8000 : 48000)\r
        a=fmtp:101 0-16\r
        a=ssrc:\(ssrc) cname:bench\(index)\r
        a=candidate:1 1 udp 2130706431 127.0.0.1 \(localPort) typ host\r
        a=end-of-candidates\r

        """
    }

    /// ICE (one nominating check) and the DTLS client handshake against the server's `answer`;
    /// then hands the SRTP context to the loop.
    func connect(answer: String, certificate: CertificateIdentity) async throws {
        guard let inbox else { throw SetupFailed(description: "leg \(index) already connected") }
        let sdp = try SessionDescription(parsing: answer)
        guard let audio = sdp.media.first, let ufrag = audio.iceUfrag ?? sdp.iceUfrag, let pwd = audio.icePwd ?? sdp.icePwd,
              let fp = audio.fingerprints.first ?? sdp.fingerprints.first,
              let serverFingerprint = DTLSFingerprint(algorithm: .sha256, digest: fp.bytes),
              let candidate = audio.candidates.first else {
            throw SetupFailed(description: "unusable answer:\n\(answer)")
        }
        let address = try SocketAddress.resolve(host: candidate.address, port: Int(candidate.port))
        let socket = socket!
        func send(_ bytes: [UInt8]) { socket.send([Datagram(address: address, bytes: bytes)]) }

        let check = STUNMessage(type: .bindingRequest, transactionID: STUNTransactionID(high: 9, low: UInt64(index)),
                                attributes: [.username("\(ufrag):leg\(index)"), .priority(0x6E00_1EFF),
                                             .iceControlling(UInt64(index) &+ 77), .useCandidate])
        let consent = try check.serialized(
            integrity: .sha1(key: Array(pwd.utf8), hmac: { HMAC.sha1(key: $0, message: $1) }), fingerprint: true)
        var stunResponse: [UInt8]?
        for _ in 0..<5 where stunResponse == nil {
            send(consent)
            stunResponse = await inbox.next(.stun, timeout: .milliseconds(500))
        }
        guard stunResponse != nil else { throw SetupFailed(description: "leg \(index): no STUN response") }

        let dtls = try DTLSSession(role: .client, certificate: certificate, remoteFingerprint: serverFingerprint)
        for d in dtls.start() { send(d) }
        let deadline = ContinuousClock.now + .seconds(15)
        while dtls.state != .connected, ContinuousClock.now < deadline {
            if case .failed(let error) = dtls.state { throw SetupFailed(description: "leg \(index): DTLS failed: \(error)") }
            if let datagram = await inbox.next(.dtls, timeout: .milliseconds(200)) {
                for d in dtls.receive(datagram).datagrams { send(d) }
            } else {
                for d in dtls.handleTimeout().datagrams { send(d) }
            }
        }
        guard dtls.state == .connected else { throw SetupFailed(description: "leg \(index): DTLS did not connect") }
        let context = try DTLSSRTPKeying.context(for: dtls)
        let profile = context.profile
        let handOver = LegHandOver(context)
        await ForwardBench.onLoop(loop) { [self] in
            srtp = handOver.value
            self.profile = profile
            server = address
            consentCheck = consent
            self.inbox = nil
            connectedAt = DispatchTime.now().uptimeNanoseconds
        }
    }

    /// The negotiated SRTP profile (after `connect`; loop thread).
    private(set) var profile: SRTPProfile?

    // MARK: Loop thread

    /// Sends one tagged packet, and every 250th time (5 s) an ICE consent check (RFC 7675).
    func sendPacket(now: UInt64) {
        guard let srtp, let server else { return }
        if sent % 250 == 0 { _ = socket.sendBatch.append(consentCheck, to: server) }
        sequence &+= 1
        timestamp &+= pcmu ? 160 : 960
        let seq = sequence, ts = timestamp, ssrc = ssrc, index = index
        let payloadBytes = pcmu ? 160 : Self.payloadBytes, payloadType = pcmu ? 0 : Self.opusPayloadType
        let fixed = fixedPayload
        let queued = socket.sendBatch.withUnsafeSlot(to: server) { slot in
            slot[0] = 0x80
            slot[1] = payloadType
            slot.storeBytes(of: seq.bigEndian, toByteOffset: 2, as: UInt16.self)
            slot.storeBytes(of: ts.bigEndian, toByteOffset: 4, as: UInt32.self)
            slot.storeBytes(of: ssrc.bigEndian, toByteOffset: 8, as: UInt32.self)
            let p = Self.headerBytes
            if let fixed {
                for i in fixed.indices { slot[p + i] = fixed[i] }
                do { return try srtp.protect(slot, length: p + fixed.count) } catch { return -1 }
            }
            CallsBenchLeg.tag(slot, at: p, index: index, now: now, payloadBytes: payloadBytes)
            do { return try srtp.protect(slot, length: p + payloadBytes) } catch { return -1 }
        }
        if queued { sent += 1 } else { sendDropped += 1 }
        socket.sendBatch.flush()
    }

    private func receive(_ batch: UDPReceivedBatch) {
        if let inbox {
            for i in 0..<batch.count { inbox.push(Array(UnsafeRawBufferPointer(batch[i].bytes))) }
            return
        }
        let now = DispatchTime.now().uptimeNanoseconds
        for i in 0..<batch.count {
            let bytes = batch[i].bytes
            switch MediaPacketClass.classify(UnsafeRawBufferPointer(bytes)) {
            case .rtp: receiveRTP(bytes, now: now)
            case .rtcp: rtcpReceived += 1
            default: break   // consent responses
            }
        }
    }

    private func receiveRTP(_ bytes: UnsafeMutableRawBufferPointer, now: UInt64) {
        guard let srtp else { return }
        let length: Int
        do { length = try srtp.unprotect(bytes, length: bytes.count) } catch { srtpErrors += 1; return }
        var header = Self.headerBytes + 4 * Int(bytes[0] & 0x0F)
        if bytes[0] & 0x10 != 0, length >= header + 4 {   // RFC 3550 §5.3.1 header extension
            header += 4 + 4 * Int(UInt16(bytes[header + 2]) << 8 | UInt16(bytes[header + 3]))
        }
        guard let transit = Self.transit(UnsafeRawBufferPointer(rebasing: bytes[header..<length]), now: now) else {
            played += 1   // ringback or other frames the server played, not our peer's
            return
        }
        received += 1
        delays.add(nanoseconds: transit)
        if let last = lastTransit {
            jitterNanos += (Double(abs(transit - last)) - jitterNanos) / 16   // RFC 3550 §6.4.1
        }
        lastTransit = transit
    }

    /// Writes the tag (magic, leg, send time) and filler into a payload at `offset` of `slot`.
    static func tag(_ slot: UnsafeMutableRawBufferPointer, at offset: Int, index: Int, now: UInt64, payloadBytes: Int) {
        slot.storeBytes(of: magic.bigEndian, toByteOffset: offset, as: UInt32.self)
        slot.storeBytes(of: UInt32(index).bigEndian, toByteOffset: offset + 4, as: UInt32.self)
        slot.storeBytes(of: now.bigEndian, toByteOffset: offset + 8, as: UInt64.self)
        for i in 16..<payloadBytes { slot[offset + i] = UInt8(truncatingIfNeeded: i) }
    }

    /// The one-way delay of a tagged payload (ns); nil when it carries no tag.
    static func transit(_ payload: UnsafeRawBufferPointer, now: UInt64) -> Int64? {
        guard payload.count >= 16, UInt32(bigEndian: payload.loadUnaligned(fromByteOffset: 0, as: UInt32.self)) == magic else {
            return nil
        }
        return Int64(bitPattern: now &- UInt64(bigEndian: payload.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
    }

    func close() { socket.close() }
}

/// Handshake datagrams, queued by the loop and taken by the connecting task (polled).
private final class LegInbox: Sendable {
    private let queue = Mutex<[[UInt8]]>([])
    func push(_ bytes: [UInt8]) { queue.withLock { $0.append(bytes) } }
    func next(_ kind: MediaPacketClass, timeout: Duration) async -> [UInt8]? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let found = queue.withLock { q -> [UInt8]? in
                guard let i = q.firstIndex(where: { MediaPacketClass.classify($0) == kind }) else { return nil }
                return q.remove(at: i)
            }
            if let found { return found }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return nil
    }
}

/// Hands a loop-confined value to the loop thread once.
private struct LegHandOver<T>: @unchecked Sendable { let value: T; init(_ value: T) { self.value = value } }

/// One-way delays (send → server → far leg), 10 µs buckets up to 50 ms. Loop thread only.
final class DelayHistogram: @unchecked Sendable {
    static let bucketNanos: Int64 = 10_000
    private var buckets = [Int](repeating: 0, count: 5001)
    private(set) var count = 0
    private(set) var maxNanos: Int64 = 0

    func add(nanoseconds: Int64) {
        let i = Int(min(max(nanoseconds, 0) / Self.bucketNanos, Int64(buckets.count - 1)))
        buckets[i] += 1
        count += 1
        maxNanos = max(maxNanos, nanoseconds)
    }

    func reset() {
        for i in buckets.indices { buckets[i] = 0 }
        count = 0
        maxNanos = 0
    }

    /// `index:count` pairs of the non-empty buckets, for sending to another process.
    var encoded: String {
        buckets.indices.filter { buckets[$0] > 0 }.map { "\($0):\(buckets[$0])" }.joined(separator: ",")
    }

    /// Adds buckets from `encoded` of another histogram, and its maximum.
    func merge(encoded: Substring, maxNanos other: Int64) {
        for pair in encoded.split(separator: ",") {
            let parts = pair.split(separator: ":")
            guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), buckets.indices.contains(i) else { continue }
            buckets[i] += n
            count += n
        }
        maxNanos = max(maxNanos, other)
    }

    /// The upper edge of the bucket holding quantile `q`, in ms.
    func quantileMillis(_ q: Double) -> Double {
        guard count > 0 else { return 0 }
        let target = Int((Double(count) * q).rounded(.up))
        var seen = 0
        for (i, n) in buckets.enumerated() {
            seen += n
            if seen >= max(target, 1) { return Double(Int64(i + 1) * Self.bucketNanos) / 1e6 }
        }
        return Double(maxNanos) / 1e6
    }
}
