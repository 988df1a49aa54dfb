import ICE
import ParleyCore
import ParleyCrypto
import ParleyNet
import ParleyRTP
import SDP

/// The loop-confined half of `MediaTransportServer`: registry, demultiplexer and timers. Only
/// ever used on `loop`'s thread (reached through `LoopBound`).
final class MediaTransportCore {
    let configuration: MediaTransportServer.Configuration
    let certificate: CertificateIdentity
    let loop: EventLoop
    var socket: UDPSocket?
    var candidates: [ICETransportAddress] = []
    var stats = MediaTransportStatistics()
    /// The RED counters of sessions that are gone (`statistics` adds the open ones').
    private var closedSessionTotals = SessionCounterTotals()
    var sessions: [String: PeerSession] = [:]
    var byUfrag: [String: PeerSession] = [:]
    private var byAddress: [ICETransportAddress: PeerSession] = [:]
    /// Control datagrams (STUN, DTLS, RTCP reports) produced by a session call; moved into the
    /// socket's send batch right after the call, so they keep their order with echoed media.
    var outbox: [Datagram] = []
    /// Recordings' taps on published sections, finished when removed (`MediaTransportServer+Taps`).
    var sectionTaps: [MediaSectionAddress: OffLoopDelivery<MediaTapPacket>] = [:]
    private let epoch = SystemClock.now
    var housekeeping = true
    /// The padding pacer of up-switch probes is scheduled (`MediaTransportCore+Probes`).
    var paddingArmed = false
    /// Room sessions whose SCTP association runs (`MediaTransportCore+Data.swift`).
    let dataChannels = DataChannelRegistry()
    static let tickInterval: Duration = .milliseconds(100)

    init(configuration: MediaTransportServer.Configuration, certificate: CertificateIdentity, loop: EventLoop) {
        self.configuration = configuration
        self.certificate = certificate
        self.loop = loop
        outbox.reserveCapacity(64)
    }

    var now: Double { SystemClock.now.seconds(since: epoch) }

    // MARK: - Sessions

    /// A session of `kind`; `events` receives its state changes (and, for call sessions, keys).
    func createSession(_ offer: MediaOffer, kind: PeerSessionKind = .echo,
                       events: OffLoopDelivery<PeerSessionEvent>? = nil) -> Result<PeerSessionAnswer, ParleyError> {
        guard sessions.count < configuration.maxSessions else {
            return .failure(ParleyError(.mediaServerLocalDescFailed, reason: "media server is full (\(sessions.count) sessions)"))
        }
        var random = SystemRandomNumberGenerator()
        let id = SecureRandom.hex(byteCount: 12)
        let ssrc = UInt32.random(in: 1...UInt32.max, using: &random)
        var parameters = AnswerParameters(localCredentials: uniqueCredentials(), fingerprint: certificate.fingerprint,
                                          candidates: candidates, ssrc: ssrc,
                                          videoSSRC: offer.video == nil ? nil : Self.ssrc(other: ssrc, using: &random),
                                          cname: Self.cname(id),
                                          streamID: kind == .echo ? "parley-echo" : "parley-\(id.prefix(8))",
                                          trackID: kind == .echo ? "echo-audio" : "audio-\(id.suffix(8))",
                                          sessionID: UInt64.random(in: 1...(1 << 62), using: &random))
        parameters.telephoneEvent = kind == .call
        if kind == .room {
            parameters.videoSSRC = nil
            parameters.sectionTracks = Self.sectionTracks(for: offer, adding: [:], using: &random)
        }
        let credentials = parameters.localCredentials
        let answer = ServerAnswerBuilder.answer(to: offer, parameters: parameters).serialized()
        var sessionConfig = PeerSession.Configuration()
        // A room participant's time is bounded by the room (MaxParticipantDuration, up to 24 h).
        sessionConfig.maxDuration = kind == .room ? max(configuration.maxSessionDuration, .seconds(86_400))
            : configuration.maxSessionDuration
        sessionConfig.connectTimeout = configuration.connectTimeout
        sessionConfig.rtcpInterval = configuration.rtcpInterval
        sessionConfig.ice.consentTimeout = configuration.consentTimeout
        sessionConfig.restartGrace = configuration.restartGrace
        sessionConfig.publishBitrateCap = configuration.roomPublishBitrate
        sessionConfig.dataBitrateCap = configuration.roomDataBitrate
        do {
            let session = try PeerSession(id: id, kind: kind, offer: offer, answer: answer, parameters: parameters,
                                          certificate: certificate, configuration: sessionConfig, now: now)
            session.events = events
            session.prepareData(now: now, out: &outbox)
            sessions[id] = session
            byUfrag[credentials.ufrag] = session
            stats.sessionsCreated += 1
            stats.sessions = sessions.count
            Log.info(.webrtc, "\(kind) session \(id) created: \(offer.codec) PT \(offer.payloadType)"
                     + "\(session.tracks.first?.telephoneEventPayloadType.map { ", telephone-event PT \($0)" } ?? "")"
                     + "\(offer.video.map { ", video \($0.codec.map(\.encodingName) ?? "-") PT \($0.payloadType)" } ?? "")"
                     + ", DTLS \(offer.localDTLSRole)")
            return .success(PeerSessionAnswer(id: id, sdp: answer))
        } catch {
            return .failure(error)
        }
    }

    func closeSession(id: String, reason: String) -> Bool {
        guard let session = sessions[id] else { return false }
        session.close(now: now, out: &outbox)
        Log.info(.webrtc, "session \(id) \(reason)")
        remove(session)
        flush()
        return true
    }

    func closeAll() {
        for id in Array(sessions.keys) { _ = closeSession(id: id, reason: "closed at shutdown") }
        for tap in sectionTaps.values { tap.finish() }
        sectionTaps = [:]
        housekeeping = false
    }

    func snapshot(id: String) -> PeerSessionSnapshot? { sessions[id]?.snapshot(now: now) }

    func snapshots() -> [PeerSessionSnapshot] { sessions.values.map { $0.snapshot(now: now) } }

    /// A session's RTCP CNAME (RFC 7022: random per session), 16 bytes long: then each SDES
    /// chunk of our reports ends in exactly two zero octets (terminator and one pad, RFC 3550
    /// §6.5), the one layout aiortc 1.16 reads when several chunks follow each other (it takes the
    /// terminator as a two-octet item); any other length makes it drop our sender reports.
    static func cname(_ id: String) -> String { "parley-\(id.prefix(9))" }

    /// A random SSRC other than `other` (RFC 3550 §8.1: one session's SSRCs are distinct).
    static func ssrc(other: UInt32, using random: inout SystemRandomNumberGenerator) -> UInt32 {
        var ssrc = UInt32.random(in: 1...UInt32.max, using: &random)
        while ssrc == other { ssrc = UInt32.random(in: 1...UInt32.max, using: &random) }
        return ssrc
    }

    /// ICE credentials whose ufrag no session uses (the shared port routes first checks by it).
    func uniqueCredentials() -> ICECredentials {
        var random = SystemRandomNumberGenerator()
        var credentials = ICECredentials.random(using: &random)
        while byUfrag[credentials.ufrag] != nil { credentials = ICECredentials.random(using: &random) }
        return credentials
    }

    /// The counters now, with the session counters summed over every session, open or closed.
    var statistics: MediaTransportStatistics {
        var result = stats
        result.sessionTotals = closedSessionTotals
        for session in sessions.values { result.sessionTotals.add(session.counters) }
        return result
    }

    private func remove(_ session: PeerSession) {
        guard sessions.removeValue(forKey: session.id) != nil else { return }
        if session.state == .failed { stats.sessionsFailed += 1 }
        closedSessionTotals.add(session.counters)
        session.unlinkForwarding()
        forgetData(session)
        byUfrag[session.localUfrag] = nil
        if let previous = session.previousUfrag, byUfrag[previous] === session { byUfrag[previous] = nil }
        for address in session.socketAddresses.keys where byAddress[address] === session { byAddress[address] = nil }
        stats.sessions = sessions.count
    }

    // MARK: - Packet path

    /// One `recvmmsg` batch, in place in the socket's receive buffers. Echoed media goes into the
    /// socket's send batch as it is processed; the batch is flushed (one `sendmmsg`) at the end.
    func receive(_ datagrams: UDPReceivedBatch) {
        guard let batch = socket?.sendBatch else { return }
        let now = self.now
        for i in 0..<datagrams.count {
            stats.datagramsReceived += 1
            dispatch(datagrams[i], now: now, batch: batch)
            if !outbox.isEmpty { drainOutbox(into: batch) }
        }
        flush()
    }

    private func dispatch(_ datagram: UDPReceivedDatagram, now: Double, batch: UDPSendBatch) {
        let bytes = UnsafeRawBufferPointer(datagram.bytes)
        let socketAddress = datagram.address
        let kind = MediaPacketClass.classify(bytes)
        guard kind != .unknown, let source = ICETransportAddress(socketAddress) else {
            stats.unknownDropped += 1
            Log.debug(.webrtc, "dropped \(bytes.count)-byte datagram from \(socketAddress): not STUN/DTLS/RTP/RTCP")
            return
        }
        switch kind {
        case .stun:
            stats.stun += 1
            let session = ICELiteAgent.localUfrag(ofBindingRequest: bytes).flatMap { byUfrag[$0] } ?? byAddress[source]
            guard let session else { return unrouted(kind, source) }
            session.receiveSTUN(bytes, from: source, socket: socketAddress, now: now, out: &outbox)
            if session.ice.peerAddresses[source] != nil, byAddress[source] !== session {
                if let previous = byAddress[source], previous !== session {
                    Log.debug(.webrtc, "address \(source) moved from session \(previous.id) to \(session.id)")
                }
                byAddress[source] = session
            }
            after(session)
        case .dtls:
            stats.dtls += 1
            guard let session = byAddress[source] else { return unrouted(kind, source) }
            session.receiveDTLS(bytes, from: source, socket: socketAddress, now: now, out: &outbox)
            armDTLSTimer(session)
            noteData(session)
            after(session)
        case .rtp:
            stats.rtp += 1
            guard let session = byAddress[source] else { return unrouted(kind, source) }
            switch session.kind {
            case .echo:
                stats.datagramsSent += session.receiveEchoRTP(datagram, from: source, now: now, out: &outbox, batch: batch)
            case .call, .room:
                let forwarded = session.kind == .call
                    ? session.receiveCallRTP(datagram, from: source, now: now, out: &outbox, batch: batch)
                    : session.receiveRoomRTP(datagram, from: source, now: now, out: &outbox, batch: batch)
                stats.datagramsSent += forwarded
                stats.rtpForwarded += forwarded
            }
            after(session)
        case .rtcp:
            stats.rtcp += 1
            guard let session = byAddress[source] else { return unrouted(kind, source) }
            session.receiveRTCP(datagram, from: source, now: now, out: &outbox)
            after(session)
        case .unknown:
            break
        }
    }

    private func unrouted(_ kind: MediaPacketClass, _ source: ICETransportAddress) {
        stats.unroutedDropped += 1
        Log.debug(.webrtc, "dropped \(kind) from \(source): no session")
    }

    /// Removes a session that reached a terminal state.
    func after(_ session: PeerSession) {
        if session.state.isTerminal { remove(session) }
    }

    /// Copies the control datagrams into the send batch (they are arrays already; one copy each).
    private func drainOutbox(into batch: UDPSendBatch) {
        for datagram in outbox where batch.append(datagram.bytes, to: datagram.address) { stats.datagramsSent += 1 }
        outbox.removeAll(keepingCapacity: true)
    }

    /// Sends everything queued: control datagrams, then the batch (one `sendmmsg`).
    func flush() {
        guard let batch = socket?.sendBatch else {
            outbox.removeAll(keepingCapacity: true)
            return
        }
        if !outbox.isEmpty { drainOutbox(into: batch) }
        batch.flush()
    }

    // MARK: - Timers

    /// One DTLS retransmission timer per session at a time, from `DTLSSession.nextTimeout`
    /// (OpenSSL keeps its own deadline, so an early `handleTimeout()` is harmless).
    private func armDTLSTimer(_ session: PeerSession) {
        guard !session.dtlsTimerPending, !session.state.isTerminal, let timeout = session.dtls.nextTimeout else { return }
        session.dtlsTimerPending = true
        let bound = LoopBound(self, loop: loop)
        loop.schedule(after: max(timeout, .milliseconds(1))) { [id = session.id] in
            let core = bound.value
            guard let session = core.sessions[id] else { return }
            session.dtlsTimerFired(now: core.now, out: &core.outbox)
            core.armDTLSTimer(session)
            core.after(session)
            core.flush()
        }
    }

    /// Every 100 ms: ICE consent and timeouts, maximum duration, RTCP reports.
    func startHousekeeping(_ bound: LoopBound<MediaTransportCore>) {
        loop.schedule(after: Self.tickInterval) {
            let core = bound.value
            guard core.housekeeping else { return }
            let now = core.now
            for session in Array(core.sessions.values) {
                session.tick(now: now, out: &core.outbox)
                core.after(session)
            }
            core.flush()
            core.armPadding()
            core.startHousekeeping(bound)
        }
    }
}
