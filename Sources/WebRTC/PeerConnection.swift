import ICE
import ParleyCore
import ParleyCrypto
import ParleyNet
import RTP
import SDP
import Synchronization

/// The client side of a WebRTC session (what the Parley SDK uses): full ICE (`ICEAgent`,
/// controlling when we offer), DTLS-SRTP (role from `a=setup`), Opus/G.711 RTP out through
/// `sendAudio(payload:timestampIncrement:)`, received RTP payloads on `audio`, and RTCP SR/RR
/// with round-trip time, jitter and loss. With `Configuration.videoCodecs`, a bundled video
/// section too: encoded video goes out through `sendRTP` on its payload type and comes in on
/// `video` (no video codec here: the payloads are the application's).
///
/// Threading: every socket, the ICE agent, DTLS, SRTP and all counters belong to one `EventLoop`
/// thread (`PeerConnectionCore`, reached through `LoopBound`). Public methods may be called from
/// any thread or task: they hop onto the loop with `execute` and await the result.
public final class PeerConnection: Sendable {
    /// A STUN or TURN server (W3C `RTCIceServer`, one URL each).
    public enum ICEServer: Sendable, Hashable {
        case stun(ICETransportAddress)
        /// A TURN server over UDP with long-term (or coturn REST, see `TURNRESTCredentials`) credentials.
        case turn(TURNServer)
    }

    public struct Configuration: Sendable {
        public var iceServers: [ICEServer]
        /// `.relay` signals and pairs only TURN-relayed candidates.
        public var transportPolicy: ICETransportPolicy
        /// Local IP addresses to bind one UDP socket each and gather host candidates from.
        public var hostAddresses: [String]
        /// `createOffer`/`createAnswer` wait this long for gathering, then use what they have.
        public var gatheringTimeout: Duration = .seconds(5)
        /// Not connected this long after the remote description: `.failed` (53405 / 53407).
        public var connectTimeout: Duration = .seconds(20)
        public var rtcpInterval: Duration = .seconds(1)
        /// Offer RFC 4733 telephone events: `telephone-event/48000` as PT 110 (for Opus) and
        /// `telephone-event/8000` as PT 101 (for G.711).
        public var offerTelephoneEvent = true
        /// Offer RFC 2198 redundancy around Opus (`red/48000/2` as PT 63, fmtp `111/111`), as
        /// browsers do. An answer that takes it lets both ends send RED or plain Opus, so only a
        /// user that reads RED payloads (the audio engine does) should set it.
        public var offerRED = false
        /// Offer Generic NACK on audio (`a=rtcp-fb:111 nack`, RFC 4585): when the answer takes it,
        /// lost packets are asked for again while a retransmission can still be played
        /// (`nackPlayoutBudget`), and the peer's requests are answered from the last second sent.
        public var offerAudioNACK = false
        /// How long after a packet was due its retransmission is still worth asking for: about
        /// the receiver's jitter-buffer delay.
        public var nackPlayoutBudget: Duration = .milliseconds(80)
        /// The audio codecs offered, most preferred first (the answerer picks the first it supports).
        public var audioCodecs: [AudioCodec] = AudioCodec.allCases
        /// Opus `maxaveragebitrate` to ask of the far end's encoder (RFC 7587 §6.1), bits per second.
        public var opusMaxAverageBitrate: Int?
        /// The video codecs offered (a bundled sendrecv video section after the audio one), most
        /// preferred first, and accepted in remote offers. Empty (the default): audio only, and a
        /// remote offer's video is rejected.
        public var videoCodecs: [VideoCodec] = []
        /// Offer a data channel section (RFC 8841) after the media sections: once connected, an
        /// SCTP association runs over DTLS and `openDataChannel` opens channels (RFC 8831).
        public var offerDataChannels = false

        public init(iceServers: [ICEServer] = [], transportPolicy: ICETransportPolicy = .all,
                    hostAddresses: [String] = ["127.0.0.1"]) {
            self.iceServers = iceServers
            self.transportPolicy = transportPolicy
            self.hostAddresses = hostAddresses
        }
    }

    /// W3C `RTCPeerConnectionState`.
    public enum State: String, Sendable, Hashable, CaseIterable {
        case new, checking, connected, disconnected, failed, closed

        public var isTerminal: Bool { self == .failed || self == .closed }
    }

    /// When each step happened, measured from the connection's creation.
    public struct Timings: Sendable, Hashable {
        /// `createOffer`/`createAnswer` was called (start of signaling).
        public var signalingStarted: Duration?
        /// The local description was ready (gathering complete).
        public var localDescription: Duration?
        /// The remote description (answer, or the offer we answered) was applied.
        public var remoteDescription: Duration?
        public var iceConnected: Duration?
        public var dtlsConnected: Duration?
        public var connected: Duration?

        /// From the start of signaling (`createOffer`) to `connected`.
        public var offerToConnected: Duration? {
            guard let signalingStarted, let connected else { return nil }
            return connected - signalingStarted
        }
    }

    /// A snapshot of state and RTP/RTCP statistics.
    public struct Statistics: Sendable {
        public var state: State
        public var iceState: ICEConnectionState
        public var failure: ParleyError?
        public var timings: Timings
        /// The selected candidate pair (ours, the peer's).
        public var localCandidate: ICECandidate?
        public var remoteCandidate: ICECandidate?
        public var codec: AudioCodec?
        public var payloadType: UInt8?
        /// The peer's accepted RFC 4733 telephone-event payload type, if any (send key packets on it
        /// with `sendAudio(payload:timestampIncrement:payloadType:marker:)`).
        public var telephoneEventPayloadType: UInt8?
        /// The negotiated RFC 2198 RED payload type (`red/48000/2` around Opus), if any: both ends
        /// may send either it or the plain codec.
        public var redPayloadType: UInt8?
        /// Generic NACK on audio (RFC 4585): negotiated; packets asked for and resent.
        public var isAudioNACKNegotiated = false
        public var nacksSent = 0
        public var retransmissionsSent = 0
        public var localSSRC: UInt32
        public var remoteSSRC: UInt32?
        /// The negotiated video codec, its payload type and our video SSRC, when video was accepted.
        public var videoCodec: VideoCodec?
        public var videoPayloadType: UInt8?
        public var localVideoSSRC: UInt32?
        /// Video RTP packets sent and received (the other packet counts are audio's).
        public var videoPacketsSent: UInt64 = 0
        public var videoPacketsReceived: UInt64 = 0
        public var packetsSent: UInt64 = 0
        public var payloadBytesSent: UInt64 = 0
        public var packetsReceived: UInt64 = 0
        public var payloadBytesReceived: UInt64 = 0
        /// Interarrival jitter of the received stream, in seconds (RFC 3550 A.8).
        public var jitter: Double = 0
        /// Packets lost in the received stream (RFC 3550 A.3).
        public var cumulativeLost: Int64 = 0
        /// From the peer's last report block on our stream.
        public var remoteFractionLost: UInt8?
        public var remoteCumulativeLost: Int32?
        public var remoteJitter: UInt32?
        /// RTT from the peer's report blocks (A − LSR − DLSR, RFC 3550 §6.4.1), the latest one.
        public var roundTripTime: Duration?
        public var roundTripTimeSamples = 0
        public var rtcpSent = 0
        public var rtcpReceived = 0
        /// REMBs sent on received video (draft-alvestrand-rmcat-remb-03), and the last estimate in bits/s.
        public var estimatesSent = 0
        public var receiveEstimate: Int?
        public var srtpErrors = 0
        /// `sendAudio` calls dropped because media was not (yet) connected.
        public var sendDropped = 0
    }

    /// One received audio packet; the name from before video.
    public typealias ReceivedAudio = ReceivedRTP

    /// One received RTP packet (SRTP removed).
    public struct ReceivedRTP: Sendable {
        public var payload: [UInt8]
        public var payloadType: UInt8
        public var sequenceNumber: UInt16
        public var timestamp: UInt32
        public var ssrc: UInt32
        /// We asked for this packet again (RFC 4585 NACK): it comes late by design.
        public var isRetransmission = false
        public var marker: Bool
    }

    public let configuration: Configuration
    public let loop: EventLoop
    /// Received audio RTP, in arrival order; finishes on `close()` or failure.
    public let audio: AsyncStream<ReceivedRTP>
    /// Received video RTP (when video was negotiated), in arrival order; finishes with `audio`.
    public let video: AsyncStream<ReceivedRTP>
    /// State changes, as they happen; finishes at a terminal state.
    public let states: AsyncStream<State>
    /// Data channel events (`offerDataChannels`), in order; finishes on `close()`.
    public let dataEvents: AsyncStream<DataChannelEvent>
    /// Feedback on what transceivers send (key frame requests, REMB) and sections an answer
    /// stopped, in order; finishes when the connection ends.
    public let transceiverEvents: AsyncStream<TransceiverEvent>
    /// Our DTLS certificate's fingerprint, as in our SDP.
    public var fingerprint: DTLSFingerprint { certificate.fingerprint }
    let certificate: CertificateIdentity
    let core: LoopBound<PeerConnectionCore>
    private let sockets: [UDPSocket]
    private let ownsLoop: Bool
    /// Set once `close()` has finished: the last statistics (the loop may be stopped by then).
    let closedStatistics = Mutex<Statistics?>(nil)

    /// Binds one UDP socket per host address. Pass `loop` to share one; otherwise the connection
    /// runs its own (`parley-pc`) and stops it in `close()`.
    public init(configuration: Configuration = Configuration(), loop: EventLoop? = nil) throws(ParleyError) {
        self.configuration = configuration
        ownsLoop = loop == nil
        let theLoop: EventLoop
        do { theLoop = try loop ?? EventLoop(name: "parley-pc") } catch {
            throw ParleyError(.mediaClientLocalDescFailed, reason: "event loop: \(error)")
        }
        self.loop = theLoop
        let (audio, audioSink) = AsyncStream<ReceivedRTP>.makeStream(bufferingPolicy: .bufferingNewest(4096))
        let (video, videoSink) = AsyncStream<ReceivedRTP>.makeStream(bufferingPolicy: .bufferingNewest(4096))
        let (states, stateSink) = AsyncStream<State>.makeStream(bufferingPolicy: .bufferingNewest(64))
        self.audio = audio
        self.video = video
        self.states = states
        let (dataEvents, dataSink) = AsyncStream<DataChannelEvent>.makeStream(bufferingPolicy: .bufferingNewest(8192))
        self.dataEvents = dataEvents
        let (transceiverEvents, transceiverSink) = AsyncStream<TransceiverEvent>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        self.transceiverEvents = transceiverEvents
        var sockets: [UDPSocket] = []
        do {
            certificate = try CertificateIdentity(commonName: "parley-client")
            let core = PeerConnectionCore(configuration: configuration, certificate: certificate, loop: theLoop,
                                          audioSink: audioSink, videoSink: videoSink, stateSink: stateSink)
            let bound = LoopBound(core, loop: theLoop)
            self.core = bound
            var locals: [ICETransportAddress] = []
            for (index, host) in configuration.hostAddresses.enumerated() {
                let socket = try UDPSocket(host: host, port: 0, loop: theLoop, batchSize: 32, maxDatagramBytes: 2048) {
                    bound.value.receive($0, socket: index)
                }
                sockets.append(socket)
                guard let local = ICETransportAddress(host, port: UInt16(clamping: socket.localPort)) else {
                    throw ParleyError(.mediaClientLocalDescFailed, reason: "host address \(host) is not an IP literal")
                }
                locals.append(local)
            }
            self.sockets = sockets
            let all = sockets, addresses = locals
            theLoop.execute {
                bound.value.attach(sockets: all, locals: addresses)
                bound.value.dataChannels.sink = dataSink
                bound.value.media.sink = transceiverSink
            }
        } catch {
            for socket in sockets { socket.close() }
            if ownsLoop { theLoop.stop() }
            throw (error as? ParleyError) ?? ParleyError(.mediaClientLocalDescFailed, reason: "\(error)")
        }
    }

    /// Gathers candidates (waiting for gathering to complete, like aiortc: no trickle needed) and
    /// returns the SDP offer: one sendrecv audio section with Opus 111, PCMU 0, PCMA 8 (and
    /// telephone-event 110 and 101), then a video section when `videoCodecs` has any, BUNDLE,
    /// rtcp-mux, `a=setup:actpass`. We are the controlling agent.
    public func createOffer() async throws(ParleyError) -> String {
        try checkOpen()
        let core = self.core
        let result: Result<String, ParleyError> = await withCheckedContinuation { done in
            loop.execute { core.value.createOffer { done.resume(returning: $0) } }
        }
        return try result.get()
    }

    /// Applies the peer's SDP answer: ICE credentials and candidates, DTLS role (`active` makes
    /// us the DTLS server, `passive` the client), the codec. Connectivity checks start. With
    /// transceivers, each answer section goes to its transceiver (a rejected one stops it), and the
    /// answer to a re-offer changes no transport (ICE and DTLS go on).
    public func setRemoteAnswer(_ sdp: String) async throws(ParleyError) {
        try checkOpen()
        let answer: SessionDescription
        do { answer = try MediaOffer.parse(sdp) } catch {
            throw ParleyError(.mediaClientRemoteDescFailed, reason: error.failureReason)
        }
        let core = self.core
        let result: Result<Void, ParleyError> = await onLoop { core.value.setRemoteAnswer(answer) }
        try result.get()
    }

    /// Accepts a remote offer and returns our answer (`a=setup:active` unless the offerer is
    /// active: we are then the DTLS client). We are the controlled agent.
    public func createAnswer(toOffer sdp: String) async throws(ParleyError) -> String {
        try checkOpen()
        let offer = try Self.parseRemote(sdp, videoCodecs: configuration.videoCodecs)
        let core = self.core
        let result: Result<String, ParleyError> = await withCheckedContinuation { done in
            loop.execute { core.value.createAnswer(to: offer) { done.resume(returning: $0) } }
        }
        return try result.get()
    }

    /// Sends one encoded frame (e.g. 20 ms of Opus) as an RTP packet on the negotiated payload
    /// type (or `payloadType`); the RTP timestamp advances by `timestampIncrement` afterwards
    /// (960 for 20 ms at 48 kHz). Dropped (and counted) until connected.
    public func sendAudio(payload: [UInt8], timestampIncrement: UInt32, payloadType: UInt8? = nil,
                          marker: Bool = false) {
        guard closedStatistics.withLock({ $0 == nil }) else { return }
        let core = self.core
        loop.execute { core.value.sendAudio(payload, increment: timestampIncrement, payloadType: payloadType, marker: marker) }
    }

    /// Sends one RTP packet numbered by the caller (sequence number, timestamp, payload type: an
    /// audio or video engine with its own RTP clock) from the SSRC of the payload type's section
    /// (video's for the negotiated video payload type, else audio's). Dropped until connected.
    public func sendRTP(payload: [UInt8], payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32,
                        marker: Bool = false) {
        guard closedStatistics.withLock({ $0 == nil }) else { return }
        let core = self.core
        loop.execute {
            core.value.sendRTP(payload, payloadType: payloadType, sequenceNumber: sequenceNumber, timestamp: timestamp,
                               marker: marker)
        }
    }

    /// Sends one RTP packet as the caller laid it out (SSRC, header extensions, numbering): a
    /// video engine's simulcast layers, each with its own SSRC, mid and rid (RFC 8852 §3).
    /// Dropped until connected.
    public func send(_ packet: RTPPacket) {
        guard closedStatistics.withLock({ $0 == nil }) else { return }
        let core = self.core
        loop.execute { core.value.send(packet) }
    }

    /// Asks the peer to send packets `sequenceNumbers` of its stream `mediaSSRC` again (Generic
    /// NACK, RFC 4585 §6.2.1): a video engine's loss recovery. Dropped until connected.
    public func sendNACK(mediaSSRC: UInt32, sequenceNumbers: [UInt16]) {
        guard closedStatistics.withLock({ $0 == nil }), !sequenceNumbers.isEmpty else { return }
        let core = self.core
        loop.execute { core.value.sendNACK(mediaSSRC: mediaSSRC, lost: sequenceNumbers) }
    }

    public func statistics() async -> Statistics {
        if let final = closedStatistics.withLock({ $0 }) { return final }
        let core = self.core
        return await onLoop { core.value.statistics() }
    }

    public var state: State {
        get async { await statistics().state }
    }

    /// Waits until `connected` (true) or a terminal state or the timeout (false).
    public func waitUntilConnected(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let state = await self.state
            if state == .connected { return true }
            if state.isTerminal { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    /// Ends the session: DTLS close_notify, TURN allocations released, sockets closed, streams
    /// finished; stops the loop if the connection created it.
    public func close() async {
        guard closedStatistics.withLock({ $0 == nil }) else { return }
        let core = self.core
        let final = await onLoop { () -> Statistics in
            core.value.close()
            return core.value.statistics()
        }
        closedStatistics.withLock { $0 = final }
        for socket in sockets { socket.close() }
        _ = await onLoop { () }
        if ownsLoop { loop.stop() }
    }

    func checkOpen() throws(ParleyError) {
        if closedStatistics.withLock({ $0 != nil }) { throw ParleyError(.mediaClientLocalDescFailed, reason: "closed") }
    }

    func onLoop<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            loop.execute { continuation.resume(returning: body()) }
        }
    }

    static func parseRemote(_ sdp: String, videoCodecs: [VideoCodec]) throws(ParleyError) -> MediaOffer {
        let description: SessionDescription
        do { description = try MediaOffer.parse(sdp) } catch {
            throw ParleyError(.mediaClientRemoteDescFailed, reason: error.failureReason)
        }
        return try parseRemote(description, videoCodecs: videoCodecs)
    }

    static func parseRemote(_ description: SessionDescription, videoCodecs: [VideoCodec]) throws(ParleyError) -> MediaOffer {
        do {
            return try MediaOffer(offer: description, videoCodecs: videoCodecs)
        } catch {
            let code: ParleyError.Code = error.code == .mediaNoSupportedCodec ? error.code : .mediaClientRemoteDescFailed
            throw ParleyError(code, reason: error.failureReason)
        }
    }
}
