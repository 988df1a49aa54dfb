import ICE
import ParleyCore
import ParleyCrypto
import ParleyNet
import ParleyRTP
import ParleySRTP
import RTCP
import RTP
import STUN
import VP8

/// The server side of one WebRTC session: an ICE-lite agent answering the peer's checks, a DTLS
/// session (server for `a=setup:actpass`), an `RTPSession` keyed from it (every bundled section:
/// audio, and video for echo sessions whose offer had it), and a media path: an echo session
/// sends what it receives back on its own tracks; a call session forwards it to its sinks (the
/// sessions whose `source` it is) and sends what its own source forwards or the server plays
/// (`PeerSession+Forwarding.swift`).
///
/// Threading: every instance is owned by the `MediaTransportServer`'s event loop and only touched
/// on that loop's thread (the server reaches it through `LoopBound`); nothing here locks. Control
/// traffic (STUN, DTLS, RTCP reports) is appended to `out` as arrays, which the server copies into
/// the socket's send batch; echoed media is written straight into a send-batch slot. The server
/// flushes the batch (one `sendmmsg`) per receive batch or timer.
final class PeerSession {
    struct Configuration {
        var maxDuration: Duration = .seconds(3600)
        /// No ICE selection and DTLS within this time fails the session (53405).
        var connectTimeout: Duration = .seconds(30)
        var rtcpInterval: Duration = .seconds(1)
        /// How long after an audio packet was due a retransmission is still worth asking for (the
        /// server forwards at once, so this is about the far receiver's jitter-buffer delay).
        var nackPlayoutBudget: Duration = .milliseconds(80)
        var ice = ICELiteAgent.Configuration()
        /// After consent expired on a connected session, how long an ICE restart may bring it back.
        var restartGrace: Duration = .seconds(30)
        /// Room sessions: the bits/s each published video section may use (REMB); 0: none announced.
        var publishBitrateCap = 0
        /// Room sessions: the bits/s each published data track may forward; 0: no cap.
        var dataBitrateCap = 0
    }

    let id: String
    let kind: PeerSessionKind
    /// The remote description the session runs on (a room session's re-offers replace it).
    var offer: MediaOffer
    let configuration: Configuration
    /// The current answer, and what it was built from (a restart changes both).
    var answer: String
    var answerParameters: AnswerParameters
    var ice: ICELiteAgent
    let dtls: DTLSSession
    /// SSRCs, streams, reception statistics, RTCP reports and, once DTLS is done, SRTP.
    var rtp: RTPSession
    /// What we send, one track per send stream of `rtp` (same index): the audio track first, then
    /// video (echo sessions whose offer had it). Echoed, forwarded and played packets are numbered
    /// by these.
    var tracks: [RTPForwardingTrack]
    private(set) var state: PeerConnectionState = .new
    private(set) var failure: ParleyError?
    /// Session start on the server's clock (seconds since its epoch).
    let createdAt: Double
    var iceConnectedAt: Double?
    var dtlsConnectedAt: Double?
    var connectedAt: Double?
    /// Socket addresses of peer transport addresses that passed a check, for sending.
    var socketAddresses: [ICETransportAddress: SocketAddress] = [:]
    var counters = PeerSessionCounters()
    var nextRTCPAt: Double = 0
    /// A DTLS retransmission timer is pending on the loop.
    var dtlsTimerPending = false

    // Call sessions.
    /// Where events and tapped audio go (off the loop); nil when nobody asked for them.
    var events: OffLoopDelivery<PeerSessionEvent>?
    var tap: OffLoopDelivery<MediaTapPacket>?
    /// The session whose media we send (at most one), and the sessions we send ours to.
    var source: PeerSession?
    var sinks: [PeerSession] = []
    /// Hand-offs to legs on another transport's loop (`MediaTransportServer+Handoff`): what we
    /// receive goes there too; `incoming` are those whose packets we send.
    var handoffs: [RTPPacketHandoff] = []
    var incoming: [RTPPacketHandoff] = []
    var telephoneEvents = TelephoneEventTracker()
    /// Which redundant blocks of our peer's RED packets stand for lost ones, and the current
    /// packet's (a scratch list reserved once, at most `REDPayloadView.maxBlocks`).
    var redRecovery = REDLossRecovery()
    var recoveredBlocks: [REDLossRecovery.Recovered]
    /// Generic NACK on audio (call sessions that negotiated it): what our track sent, what our
    /// peer's stream misses, and the list `due` fills.
    /// What each track (same index) sent, for the peer's NACKs: the audio track of a call
    /// session, the video slots of a room session, where Generic NACK was negotiated.
    var retransmissions: [RTPRetransmissionCache?] = []
    var nackRequester: RTPNACKRequester?
    var nackDue: [UInt16] = []
    /// The older ufrag the agent still honours after an ICE restart (`ICELiteAgent.previousLocalUfrag`), routed to us too.
    var previousUfrag: String?
    /// An ICE restart awaits the peer's first nomination under the new credentials.
    var restartPending = false
    var iceDisconnected = false
    /// When consent expired on this connected session (it waits `restartGrace` for a restart).
    var consentLostAt: Double?

    // Room sessions (`PeerSession+Room.swift`).
    /// The sections the peer sends in (its published tracks), with who receives each.
    var roomInbound: [RoomInbound] = []
    /// For each of our tracks (same index), the published section it carries, if any.
    var roomSources: [RoomSource?] = []
    /// For each of our VP8 slots (same index; nil for others), its switching state.
    var slotVideo: [SlotVideo?] = []
    /// Room sessions: how the video budget toward the peer is shared among our slots.
    var downlink = SubscriberDownlink()
    /// Room sessions: for each of our video slots that negotiated Generic NACK (same index as
    /// `tracks`; nil for others), how each packet left, to send it again from its source's cache.
    var forwardLogs: [RTPForwardLog?] = []
    /// Where a retransmission is rebuilt before it is copied out, and how many the peer may have.
    var retransmitBuffer = [UInt8](repeating: 0, count: 2048)
    var retransmissionAllowance = PeerSession.makeRetransmissionAllowance()
    /// Arrival times by transport-wide sequence number (room sessions whose offer had it), and
    /// the extension's id.
    var transportFeedback: TransportFeedbackRecorder?
    var transportCCID: UInt8?
    /// Packets expected and lost from the peer at the last quality sample (all its streams).
    var qualityBaseline = (expected: Int64(0), lost: Int64(0))
    /// Data channels, when the offer had a data channel section (`PeerSession+Data.swift`).
    var roomData = RoomDataChannels()

    init(id: String, kind: PeerSessionKind, offer: MediaOffer, answer: String, parameters: AnswerParameters,
         certificate: CertificateIdentity, configuration: Configuration, now: Double) throws(ParleyError) {
        self.id = id
        self.kind = kind
        self.offer = offer
        self.answer = answer
        answerParameters = parameters
        self.configuration = configuration
        createdAt = now
        ice = ICELiteAgent(localCredentials: parameters.localCredentials, remoteCredentials: offer.remoteCredentials,
                           configuration: configuration.ice, hmac: { HMAC.sha1(key: $0, message: $1) })
        dtls = try DTLSSession(role: offer.localDTLSRole, certificate: certificate,
                               remoteFingerprints: offer.remoteFingerprints,
                               srtpProtectionProfiles: DTLSSRTPKeying.protectionProfiles,
                               initialRetransmissionTimeout: DTLSSRTPKeying.initialRetransmissionTimeout)
        rtp = RTPSession(configuration: RTPSession.Configuration(cname: parameters.cname),
                         payloadFormats: RTPPayloadFormats(offer.payloadFormats(telephoneEvent: parameters.telephoneEvent)))
        tracks = []
        recoveredBlocks = []
        recoveredBlocks.reserveCapacity(REDPayloadView.maxBlocks)
        if kind == .call, offer.audio.audioNACK {
            retransmissions = [RTPRetransmissionCache()]
            nackRequester = RTPNACKRequester()
            nackDue.reserveCapacity(64)
        }
        if kind == .room {
            nackDue.reserveCapacity(64)
            addRoomSections(of: offer)
            return
        }
        var random = SystemRandomNumberGenerator()
        for section in [offer.audio] + offer.accepted.filter({ $0.index != offer.audioIndex }) {
            guard let codec = section.codec else { continue }
            let isAudio = codec.audio != nil
            guard let ssrc = isAudio ? parameters.ssrc : parameters.videoSSRC else { continue }
            rtp.addSendStream(ssrc: ssrc, clockRate: codec.clockRate, section: section.index)
            tracks.append(RTPForwardingTrack(
                ssrc: ssrc, kind: isAudio ? .audio : .video, clockRate: codec.clockRate,
                mediaPayloadType: section.payloadType,
                telephoneEventPayloadType: isAudio && parameters.telephoneEvent ? section.telephoneEventPayloadType : nil,
                initialSequence: .random(in: 0...UInt16.max, using: &random),
                initialTimestamp: .random(in: 0...UInt32.max, using: &random)))
            if isAudio { tracks[tracks.count - 1].setREDPayloadType(section.redPayloadType) }
        }
    }

    /// The audio track's SSRC (the session's first send stream).
    var localSSRC: UInt32 { tracks[0].ssrc }

    /// The track (and send stream) index of an m-section, if we send in it.
    func trackIndex(section: Int) -> Int? {
        var index = 0
        while index < rtp.sendStreams.count {
            if rtp.sendStreams[index].section == section { return index }
            index += 1
        }
        return nil
    }

    /// A re-offer kept the session (ICE restart, RFC 8839 §4.4.1.1.1): its payload types replace
    /// ours, section by section; the SSRCs and the numbering carry on.
    func renegotiate(_ offer: MediaOffer) {
        rtp.payloadFormats = RTPPayloadFormats(offer.payloadFormats(telephoneEvent: answerParameters.telephoneEvent))
        for section in offer.accepted {
            guard let index = trackIndex(section: section.index) else { continue }
            tracks[index].mediaPayloadType = section.payloadType
            if section.codec?.audio != nil { tracks[index].setREDPayloadType(section.redPayloadType) }
            if answerParameters.telephoneEvent { tracks[index].telephoneEventPayloadType = section.telephoneEventPayloadType }
        }
    }

    var localUfrag: String { ice.localCredentials.ufrag }
    var selectedAddress: ICETransportAddress? { ice.selectedAddress }
    /// Where media goes; nil once consent expired (RFC 7675 §5.1: no more sending there).
    var selectedSocketAddress: SocketAddress? {
        guard ice.state.hasSelectedPair else { return nil }
        return ice.selectedAddress.flatMap { socketAddresses[$0] }
    }

    // MARK: - Inbound

    /// A STUN datagram routed to this session (by ufrag or by address).
    func receiveSTUN(_ bytes: UnsafeRawBufferPointer, from source: ICETransportAddress, socket: SocketAddress,
                     now: Double, out: inout [Datagram]) {
        counters.stunReceived += 1
        let actions = ice.receive(bytes, from: source, now: Self.instant(now))
        if ice.peerAddresses[source] != nil, socketAddresses[source] == nil {
            if socketAddresses.count >= 32 { socketAddresses = socketAddresses.filter { ice.peerAddresses[$0.key] != nil } }
            socketAddresses[source] = socket
        }
        apply(actions, fallback: socket, now: now, out: &out)
        if restartPending, actions.contains(where: { if case .selected = $0 { true } else { false } }),
           ICELiteAgent.localUfrag(ofBindingRequest: bytes) == localUfrag {
            restartPending = false
            Log.info(.webrtc, "session \(id): ICE restart complete, media on \(source)")
            events?.send(.iceRestarted(sessionID: id))
        }
    }

    /// A DTLS record from a known peer address.
    func receiveDTLS(_ bytes: UnsafeRawBufferPointer, from source: ICETransportAddress, socket: SocketAddress,
                     now: Double, out: inout [Datagram]) {
        counters.dtlsReceived += 1
        apply(ice.noteTraffic(from: source, now: Self.instant(now)), fallback: socket, now: now, out: &out)
        if state == .new { setState(.checking) }
        let output = dtls.receive(bytes: bytes)
        handleDTLS(output, to: socket, now: now, out: &out)
    }

    /// The DTLS retransmission timer fired.
    func dtlsTimerFired(now: Double, out: inout [Datagram]) {
        dtlsTimerPending = false
        guard !state.isTerminal, let socket = selectedSocketAddress ?? socketAddresses.values.first else { return }
        handleDTLS(dtls.handleTimeout(), to: socket, now: now, out: &out)
    }

    func handleDTLS(_ output: DTLSOutput, to socket: SocketAddress, now: Double, out: inout [Datagram]) {
        for datagram in output.datagrams { out.append(Datagram(address: socket, bytes: datagram)) }
        // SCTP packets (RFC 8261), after a state change below started the association.
        defer { if !output.applicationData.isEmpty { receiveData(output.applicationData, now: now, out: &out) } }
        guard let change = output.stateChange else { return }
        switch change {
        case .connected:
            dtlsConnectedAt = now
            do {
                rtp.setSRTP(try DTLSSRTPKeying.context(for: dtls))
            } catch {
                return fail(error)
            }
            Log.debug(.webrtc, "session \(id): DTLS connected, SRTP \(rtp.srtp.map { "\($0.profile)" } ?? "-")")
            updateConnected(now: now, out: &out)
            startData(now: now, out: &out)
        case .failed(let error):
            fail(ParleyError(.mediaDtlsTransportFailed, reason: error.failureReason ?? "DTLS failed"))
        case .closed:
            close(now: now, out: &out)
        case .new, .handshaking:
            break
        }
    }

    // MARK: - ICE actions and state

    func apply(_ actions: [ICEAction], fallback: SocketAddress, now: Double, out: inout [Datagram]) {
        for action in actions {
            switch action {
            case .send(let bytes, let to):
                out.append(Datagram(address: socketAddresses[to] ?? fallback, bytes: bytes))
            case .selected(let address):
                Log.debug(.webrtc, "session \(id): ICE selected \(address)")
                if offer.localDTLSRole == .client, dtls.state == .new, let socket = socketAddresses[address] {
                    for datagram in dtls.start() { out.append(Datagram(address: socket, bytes: datagram)) }
                }
            case .stateChanged(let iceState):
                switch iceState {
                case .checking:
                    if state == .new { setState(.checking) }
                case .connected, .completed:
                    if iceConnectedAt == nil { iceConnectedAt = now }
                    consentLostAt = nil
                    if iceDisconnected {
                        iceDisconnected = false
                        events?.send(.connectivityRestored(sessionID: id))
                    }
                    updateConnected(now: now, out: &out)
                case .failed:
                    // A lite agent fails only when consent on the selected pair expires.
                    if !state.isTerminal, ice.selectedAddress != nil { events?.send(.consentLost(sessionID: id)) }
                    guard state == .connected, configuration.restartGrace > .zero else {
                        fail(ice.failure ?? ParleyError(.mediaConnection, reason: "ICE failed"))
                        break
                    }
                    // The peer may be restarting ICE across an outage (RFC 8445 §9): nothing is
                    // sent meanwhile, and the session fails if no restart reconnects in time.
                    Log.info(.webrtc, "session \(id): consent expired, waiting \(configuration.restartGrace) for an ICE restart")
                    consentLostAt = now
                    if !iceDisconnected {
                        iceDisconnected = true
                        events?.send(.connectivityLost(sessionID: id))
                    }
                case .disconnected:
                    if !iceDisconnected, !state.isTerminal {
                        iceDisconnected = true
                        events?.send(.connectivityLost(sessionID: id))
                    }
                case .new, .closed:
                    break
                }
            }
        }
    }

    func updateConnected(now: Double, out: inout [Datagram]) {
        guard !state.isTerminal, state != .connected, iceConnectedAt != nil, rtp.isReady else { return }
        connectedAt = now
        setState(.connected)
        nextRTCPAt = now
        // A room slot routed before we connected starts with a key frame of its source.
        for track in roomSources.indices { requestSourceKeyframe(track: track, now: now, out: &out) }
    }

    func setState(_ new: PeerConnectionState) {
        guard new != state, !state.isTerminal else { return }
        Log.debug(.webrtc, "session \(id): \(state) → \(new)")
        state = new
        events?.send(.stateChanged(sessionID: id, state: new, error: new == .failed ? failure : nil))
        if new.isTerminal {
            events?.finish()
            tap?.finish()
            events = nil
            tap = nil
        }
    }

    func fail(_ error: ParleyError) {
        guard !state.isTerminal else { return }
        Log.info(.webrtc, "session \(id) failed: \(error)")
        failure = error
        setState(.failed)
        _ = ice.close()
    }

    /// Ends the session: close_notify to the peer, ICE closed.
    func close(now: Double, out: inout [Datagram]) {
        guard !state.isTerminal else { return }
        if let socket = selectedSocketAddress {
            for datagram in dtls.close() { out.append(Datagram(address: socket, bytes: datagram)) }
        }
        _ = ice.close()
        setState(.closed)
    }

    /// Timers: ICE consent, connect timeout, maximum duration, periodic RTCP.
    func tick(now: Double, out: inout [Datagram]) {
        guard !state.isTerminal else { return }
        let instant = Self.instant(now)
        if let deadline = ice.nextDeadline, deadline <= instant {
            apply(ice.tick(now: instant), fallback: selectedSocketAddress ?? Self.placeholder, now: now, out: &out)
        }
        if let lost = consentLostAt, now - lost >= configuration.restartGrace.seconds {
            return fail(ice.failure ?? ParleyError(.mediaConnection, reason: "ICE consent expired and no restart reconnected"))
        }
        if state != .connected, now - createdAt >= configuration.connectTimeout.seconds {
            let what = iceConnectedAt == nil ? "ICE" : "DTLS"
            let code: ParleyError.Code = iceConnectedAt == nil ? .mediaConnection : .mediaDtlsTransportFailed
            return fail(ParleyError(code, reason: "\(what) did not connect within \(configuration.connectTimeout)"))
        }
        if now - createdAt >= configuration.maxDuration.seconds {
            Log.info(.webrtc, "session \(id): maximum duration \(configuration.maxDuration) reached")
            return close(now: now, out: &out)
        }
        if state == .connected, now >= nextRTCPAt {
            nextRTCPAt = now + configuration.rtcpInterval.seconds
            sendReports(now: now, out: &out)
            if kind == .room {
                reportQuality()
                announcePublishCap(out: &out)
            }
        }
        if state == .connected, transportFeedback != nil { sendTransportFeedback(out: &out) }
        if state == .connected, kind == .room { allocateVideo(now: now, out: &out) }
        if let key = telephoneEvents.expire(now: now) { reportDigit(key) }
    }

    static let placeholder = try! SocketAddress.resolve(host: "127.0.0.1", port: 9)

    static func instant(_ seconds: Double) -> ICEInstant {
        ICEInstant(nanoseconds: UInt64(max(0, seconds) * 1e9))
    }

    func snapshot(now: Double) -> PeerSessionSnapshot {
        func after(_ t: Double?) -> Duration? { t.map { .nanoseconds(Int64(($0 - createdAt) * 1e9)) } }
        let received = rtp.latestReceiveStream(section: offer.audioIndex)
        let video = offer.video
        return PeerSessionSnapshot(
            id: id, kind: kind, state: state, failure: failure, codec: offer.codec,
            payloadType: tracks.first?.mediaPayloadType ?? offer.payloadType,
            telephoneEventPayloadType: tracks.first?.telephoneEventPayloadType,
            localSSRC: tracks.first?.ssrc ?? rtp.receiverSSRC, remoteSSRC: received?.ssrc,
            videoCodec: video?.codec.flatMap { if case .video(let c) = $0 { c } else { nil } },
            localVideoSSRC: video.flatMap { trackIndex(section: $0.index) }.map { tracks[$0].ssrc },
            selectedAddress: ice.selectedAddress, iceConnectedAfter: after(iceConnectedAt),
            dtlsConnectedAfter: after(dtlsConnectedAt), connectedAfter: after(connectedAt),
            age: .nanoseconds(Int64((now - createdAt) * 1e9)), counters: counters,
            jitter: received?.statistics.jitter ?? 0, cumulativeLost: received?.statistics.cumulativeLost ?? 0,
            forwardingSource: source?.id, forwardingSinks: sinks.map(\.id), tapped: tap != nil,
            packetsSentBySSRC: Dictionary(rtp.sendStreams.map { ($0.ssrc, $0.packetsSent) }, uniquingKeysWith: +))
    }
}
