import ICE
import ParleyCore
import ParleyCrypto
import ParleyNet
import ParleyRTP
import ParleySRTP
import STUN

/// The loop-confined half of `PeerConnection`: sockets, the full ICE agent, DTLS, and the
/// `RTPSession` (streams, statistics, RTCP, SRTP). Only ever used on `loop`'s thread (reached
/// through `LoopBound`).
final class PeerConnectionCore {
    typealias State = PeerConnection.State

    let configuration: PeerConnection.Configuration
    let certificate: CertificateIdentity
    let loop: EventLoop
    let audioSink: AsyncStream<PeerConnection.ReceivedRTP>.Continuation
    let videoSink: AsyncStream<PeerConnection.ReceivedRTP>.Continuation
    let stateSink: AsyncStream<State>.Continuation
    var sockets: [UDPSocket] = []
    var locals: [ICETransportAddress] = []
    /// Outgoing datagrams per socket index, flushed after each event.
    var outbox: [[Datagram]] = []
    var socketAddresses: [ICETransportAddress: SocketAddress] = [:]
    let turnServers: Set<ICETransportAddress>
    let iceConfiguration: ICEAgent.Configuration
    var ice: ICEAgent
    var dtls: DTLSSession?
    var dtlsRole: DTLSRole = .client
    /// DTLS records produced before ICE selected a pair.
    var pendingDTLS: [[UInt8]] = []
    var remote: MediaOffer?
    var localSDP: String?
    /// We created the offer (and so may restart ICE with a new one).
    var isOfferer = false
    /// `restartICE()` made a new offer; its answer is applied as a restart.
    var iceRestartPending = false
    var state: State = .new
    var failure: ParleyError?
    var timings = PeerConnection.Timings()
    var gatheringWaiter: ((Result<String, ParleyError>) -> Void)?
    var buildLocalSDP: (() -> String)?
    var ticking = false
    /// The one loop timer that wakes the core at its next deadline (ICE, DTLS, connect timeout, RTCP).
    var tickTimer: EventLoop.TimerID?
    var tickDeadline: MonotonicInstant?
    let epoch = SystemClock.now

    // Media.
    /// Our SSRCs, drawn up front because the offer announces them; the send streams of `rtp` are
    /// made with them once the remote description fixes codecs and sections.
    let localSSRC: UInt32
    let localVideoSSRC: UInt32
    let cname: String
    let streamID: String
    let trackID: String
    let videoTrackID: String
    /// A simulated network outage (tests): every datagram in and out is dropped.
    var isNetworkBlocked = false
    /// `sendAudio`'s numbering of the audio stream.
    var sequenceNumber: UInt16
    var nextTimestamp: UInt32
    var rtp: RTPSession
    var nextRTCPAt: Double = 0
    var stats: PeerConnection.Statistics
    /// Generic NACK on audio, once negotiated: what we sent (to answer the peer's requests), what
    /// we miss (to ask for), and the list `due` fills.
    var retransmissions: RTPRetransmissionCache?
    var nackRequester: RTPNACKRequester?
    var nackDue: [UInt16] = []
    /// The playout budget NACKs are asked within: the configured one until the receiver tells its
    /// jitter buffer's delay (`setPlayoutBudget`).
    var nackPlayoutBudget: Double?
    /// The packets RED (RFC 2198) recovers need no NACK: which they are.
    var redRecovery = REDLossRecovery()
    var recoveredBlocks: [REDLossRecovery.Recovered] = []
    var scratch = [UInt8](repeating: 0, count: 2048 + SRTPContext.maxRTCPTrailerLength)
    /// Data channels, when both descriptions have a data channel section (`PeerConnection+Data.swift`).
    let dataChannels = ClientDataChannels()
    /// Transceivers (`PeerConnection+Transceivers.swift`): when there are any, the offer is theirs.
    var media = ClientTransceivers()
    /// Where transceivers' packets are written and protected (and NACKed ones rebuilt): an MTU-sized
    /// packet, RTX's 2 bytes and the SRTP trailer.
    var sendBuffer = [UInt8](repeating: 0, count: 1500 + 2 + SRTPContext.maxTrailerLength)
    /// Our descriptions' `o=` session id and version (RFC 3264 §8: the version grows with each).
    let sdpSessionID = UInt64.random(in: 1...(1 << 62))
    var sdpVersion: UInt64 = 1

    init(configuration: PeerConnection.Configuration, certificate: CertificateIdentity, loop: EventLoop,
         audioSink: AsyncStream<PeerConnection.ReceivedRTP>.Continuation,
         videoSink: AsyncStream<PeerConnection.ReceivedRTP>.Continuation, stateSink: AsyncStream<State>.Continuation) {
        self.configuration = configuration
        self.certificate = certificate
        self.loop = loop
        self.audioSink = audioSink
        self.videoSink = videoSink
        self.stateSink = stateSink
        var iceConfig = ICEAgent.Configuration()
        iceConfig.policy = configuration.transportPolicy
        var turn: Set<ICETransportAddress> = []
        for server in configuration.iceServers {
            switch server {
            case .stun(let address): iceConfig.stunServers.append(address)
            case .turn(let server):
                iceConfig.turnServers.append(server)
                turn.insert(server.address)
            }
        }
        turnServers = turn
        iceConfiguration = iceConfig
        ice = Self.makeAgent(iceConfig, role: .controlling)
        var random = SystemRandomNumberGenerator()
        localSSRC = UInt32.random(in: 1...UInt32.max, using: &random)
        var video = UInt32.random(in: 1...UInt32.max, using: &random)
        while video == localSSRC { video = UInt32.random(in: 1...UInt32.max, using: &random) }
        localVideoSSRC = video
        sequenceNumber = UInt16.random(in: 0...UInt16.max, using: &random)
        nextTimestamp = UInt32.random(in: 0...UInt32.max, using: &random)
        let id = SecureRandom.hex(byteCount: 8)
        cname = "parley-\(id)"
        streamID = "parley-\(id.prefix(6))"
        trackID = "audio-\(id.suffix(6))"
        videoTrackID = "video-\(id.suffix(6))"
        // A room participant receives many streams: an RR carries at most 31 blocks (RFC 3550 §6.4.2).
        rtp = RTPSession(configuration: RTPSession.Configuration(cname: cname, maxReceiveStreams: 31))
        stats = PeerConnection.Statistics(state: .new, iceState: .new, timings: PeerConnection.Timings(),
                                          localSSRC: localSSRC)
    }

    static func makeAgent(_ configuration: ICEAgent.Configuration, role: ICERole) -> ICEAgent {
        var configuration = configuration
        configuration.role = role
        return ICEAgent(configuration: configuration, hmac: { HMAC.sha1(key: $0, message: $1) }, md5: { MD5.hash($0) })
    }

    var now: Double { SystemClock.now.seconds(since: epoch) }
    var instant: ICEInstant { PeerSession.instant(now) }
    func elapsed(_ t: Double) -> Duration { .nanoseconds(Int64(t * 1e9)) }

    func attach(sockets: [UDPSocket], locals: [ICETransportAddress]) {
        self.sockets = sockets
        self.locals = locals
        outbox = Array(repeating: [], count: sockets.count)
    }

    // MARK: - ICE

    func apply(_ actions: [ICEAgentAction]) {
        for action in actions {
            switch action {
            case .send(let bytes, let from, let to):
                send(bytes, from: from, to: to)
            case .candidateGathered:
                break
            case .gatheringComplete:
                finishGathering()
            case .stateChanged(let iceState):
                iceStateChanged(iceState)
            case .roleChanged(let role):
                Log.debug(.webrtc, "pc: ICE role now \(role)")
            case .selectedPair(let local, let remote):
                Log.debug(.webrtc, "pc: ICE selected \(local) -> \(remote)")
                stats.localCandidate = local
                stats.remoteCandidate = remote
                if dtlsRole == .client, let dtls, dtls.state == .new { sendDTLS(dtls.start()) }
                if !pendingDTLS.isEmpty {
                    let pending = pendingDTLS
                    pendingDTLS = []
                    sendDTLS(pending)
                }
            case .deliver(let payload, let from):
                payload.withUnsafeBytes { receiveApplication($0, from: from) }
            }
        }
    }

    private func iceStateChanged(_ iceState: ICEConnectionState) {
        stats.iceState = iceState
        switch iceState {
        case .checking:
            if state == .new { setState(.checking) }
        case .connected, .completed:
            if timings.iceConnected == nil { timings.iceConnected = elapsed(now) }
            if state == .disconnected { setState(.connected) }
            updateConnected()
        case .disconnected:
            if state == .connected { setState(.disconnected) }
        case .failed:
            let error = ice.failure ?? ParleyError(.mediaConnection, reason: "ICE failed")
            guard timings.connected != nil else { return fail(error) }
            // Once connected, losing ICE (consent expired, RFC 7675 §5.1, or a restart whose
            // checks all failed) stops sending but is not the end: the connection stays
            // `.disconnected` until `restartICE()` finds a path again or the owner closes it.
            Log.info(.webrtc, "pc: ICE lost, waiting for a restart: \(error)")
            if state == .connected { setState(.disconnected) }
        case .new, .closed:
            break
        }
    }

    func updateConnected() {
        guard !state.isTerminal, state != .connected, state != .disconnected, timings.iceConnected != nil,
              rtp.isReady else { return }
        timings.connected = elapsed(now)
        setState(.connected)
        nextRTCPAt = now + 0.1
    }

    func setState(_ new: State) {
        guard new != state, !state.isTerminal else { return }
        Log.debug(.webrtc, "pc: \(state) → \(new)")
        state = new
        stateSink.yield(new)
        if new.isTerminal {
            stateSink.finish()
            audioSink.finish()
            videoSink.finish()
            finishTransceivers()
        }
    }

    func fail(_ error: ParleyError) {
        guard !state.isTerminal else { return }
        Log.info(.webrtc, "pc failed: \(error)")
        failure = error
        if let waiter = gatheringWaiter {
            gatheringWaiter = nil
            waiter(.failure(error))
        }
        setState(.failed)
        apply(ice.close(now: instant))
        flush()
    }

    func close() {
        guard !state.isTerminal else { return }
        stopData()
        if let dtls, dtls.state == .connected { sendDTLS(dtls.close()) }
        apply(ice.close(now: instant))
        if let waiter = gatheringWaiter {
            gatheringWaiter = nil
            waiter(.failure(ParleyError(.mediaClientLocalDescFailed, reason: "closed")))
        }
        setState(.closed)
        flush()
    }

    // MARK: - Datagrams

    func receive(_ datagrams: [Datagram], socket index: Int) {
        guard index < locals.count, !state.isTerminal, !isNetworkBlocked else { return }
        let local = locals[index]
        for datagram in datagrams {
            guard let source = ICETransportAddress(datagram.address) else { continue }
            if socketAddresses[source] == nil, socketAddresses.count < 64 { socketAddresses[source] = datagram.address }
            if turnServers.contains(source) {
                apply(ice.receive(datagram.bytes, from: source, at: local, now: instant))
                continue
            }
            let handled: Bool = datagram.bytes.withUnsafeBytes { bytes in
                guard MediaPacketClass.classify(bytes) != .stun else { return false }
                receiveApplication(bytes, from: source)
                return true
            }
            if !handled { apply(ice.receive(datagram.bytes, from: source, at: local, now: instant)) }
        }
        // Nomination may be due early (every check finished): the agent decides in `tick`.
        apply(ice.tick(now: instant))
        flush()
    }

    /// DTLS, RTP or RTCP from the peer (directly or unwrapped from a TURN relay).
    func receiveApplication(_ bytes: UnsafeRawBufferPointer, from source: ICETransportAddress) {
        apply(ice.noteTraffic(from: source, now: instant))
        switch MediaPacketClass.classify(bytes) {
        case .dtls:
            guard let dtls else { return }
            if state == .new { setState(.checking) }
            handleDTLS(dtls.receive(bytes: bytes))
        case .rtp:
            receiveRTP(bytes)
        case .rtcp:
            receiveRTCP(bytes)
        case .stun, .unknown:
            break
        }
    }

    func handleDTLS(_ output: DTLSOutput) {
        sendDTLS(output.datagrams)
        defer { if !output.applicationData.isEmpty { receiveData(output.applicationData) } }
        guard let change = output.stateChange else { return }
        switch change {
        case .connected:
            guard let dtls else { return }
            timings.dtlsConnected = elapsed(now)
            do {
                rtp.setSRTP(try DTLSSRTPKeying.context(for: dtls))
            } catch {
                return fail(error)
            }
            updateConnected()
            startData()
        case .failed(let error):
            fail(ParleyError(.mediaDtlsTransportFailed, reason: error.failureReason ?? "DTLS failed"))
        case .closed:
            Log.info(.webrtc, "pc: peer sent DTLS close_notify")
            close()
        case .new, .handshaking:
            break
        }
    }

    func sendDTLS(_ records: [[UInt8]]) {
        for record in records where !record.isEmpty {
            if !sendOnSelectedPair(record) { pendingDTLS.append(record) }
        }
    }

    /// Application data on the selected pair (through the relay when it is a relayed one).
    @discardableResult
    func sendOnSelectedPair(_ bytes: [UInt8]) -> Bool {
        guard let (wrapped, from, to) = ice.wrapOutgoing(bytes) else { return false }
        send(wrapped, from: from, to: to)
        return true
    }

    func send(_ bytes: [UInt8], from: ICETransportAddress, to: ICETransportAddress) {
        guard !isNetworkBlocked, let index = locals.firstIndex(of: from) else { return }
        let address: SocketAddress
        if let known = socketAddresses[to] {
            address = known
        } else {
            guard let resolved = SocketAddress(to) else { return }
            socketAddresses[to] = resolved
            address = resolved
        }
        outbox[index].append(Datagram(address: address, bytes: bytes))
    }

    /// Sends each socket's queued datagrams through its preallocated send batch (we are on the
    /// loop: no hop, one `sendmmsg` per socket).
    func flush() {
        for i in outbox.indices where !outbox[i].isEmpty {
            let batch = sockets[i].sendBatch
            for datagram in outbox[i] { batch.append(datagram.bytes, to: datagram.address) }
            batch.flush()
            outbox[i].removeAll(keepingCapacity: true)
        }
        rescheduleTick()
    }
}
