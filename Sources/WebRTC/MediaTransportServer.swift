import ICE
import ParleyCore
import ParleyCrypto
import ParleyNet
import SDP

/// One UDP socket shared by every `PeerSession`, with RFC 7983 demultiplexing (STUN by the
/// USERNAME's local ufrag, everything else by source address) and the session registry.
///
/// Threading: the socket, the registry and every session belong to one `EventLoop` thread (the
/// socket's). Other threads — HTTP handlers, tests — call the `async` methods, which hand the
/// work over with `loop.execute` and await the result through a continuation. The packet path
/// never leaves the loop and takes no locks.
public final class MediaTransportServer: Sendable {
    public struct Configuration: Sendable {
        /// Where the socket binds; port 0 picks an ephemeral port.
        public var host: String
        public var port: Int
        /// The addresses put in `a=candidate`, one host candidate each, first preferred. Empty (the
        /// default): `host`, or when `host` is a wildcard every address of the host's up interfaces
        /// of its family (0.0.0.0: IPv4 ones with loopback; `::`: IPv6 ones without link-local),
        /// loopback last. Set it when the socket is reached through other addresses (1:1 NAT).
        public var advertisedHosts: [String]
        public var maxSessions = 256
        /// The most a room publisher may send per video section, bits/s: announced to it in REMB
        /// (draft-alvestrand-rmcat-remb-03) once a second, and enforced at 1.5 times it (past it
        /// packets are dropped, `publishOverRate`); 0: neither. Audio sections are held to 256 kbit/s.
        public var roomPublishBitrate = 2_500_000
        /// The most a room publisher's data track may forward, bits/s (messages past it are dropped
        /// and counted); 0: no cap.
        public var roomDataBitrate = 4_000_000
        /// Sessions close after this long even if the peer is still there.
        public var maxSessionDuration: Duration = .seconds(3600)
        /// ICE and DTLS must be connected this soon after the offer, else 53405/53407.
        public var connectTimeout: Duration = .seconds(30)
        public var rtcpInterval: Duration = .seconds(1)
        /// ICE consent (RFC 7675): failure after this long without a check.
        public var consentTimeout: Duration = .seconds(30)
        /// Once a connected session's consent expired, how long it waits for the peer's ICE
        /// restart before it fails (53405); nothing is sent to the peer meanwhile. The SDK
        /// gives up 30 s after it noticed the loss (`isReconnectingWithError`), so the server,
        /// whose consent expires 24–30 s into an outage, holds on past that. Zero: fail at once.
        public var restartGrace: Duration = .seconds(30)

        public init(host: String = "127.0.0.1", port: Int = 0, advertisedHosts: [String] = []) {
            self.host = host
            self.port = port
            self.advertisedHosts = advertisedHosts
        }

        /// What answers advertise (see `advertisedHosts`).
        public var candidateHosts: [String] {
            if !advertisedHosts.isEmpty { return advertisedHosts }
            let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            guard bare.isEmpty || NetworkInterfaces.isUnspecified(bare) else { return [bare] }
            let ipv6 = bare.contains(":")
            let found = NetworkInterfaces.addresses(ipv6: ipv6)
            let ordered = found.filter { !$0.isLoopback } + found.filter(\.isLoopback)
            return ordered.isEmpty ? [ipv6 ? "::1" : "127.0.0.1"] : ordered.map(\.ip)
        }
    }

    public let configuration: Configuration
    public let loop: EventLoop
    private let socket: UDPSocket
    let core: LoopBound<MediaTransportCore>
    private let ownsLoop: Bool
    /// The host candidates every answer carries, preferred first.
    public let candidates: [ICETransportAddress]
    /// The preferred host candidate (the answers' `c=` address).
    public var candidate: ICETransportAddress { candidates[0] }
    /// Our DTLS certificate's fingerprint, as in every answer.
    public var fingerprint: DTLSFingerprint { certificate.fingerprint }
    let certificate: CertificateIdentity

    /// Binds the socket and starts housekeeping. Pass `loop` to share one; otherwise the server
    /// runs its own (`parley-media`) and stops it in `shutdown()`.
    public init(configuration: Configuration = Configuration(), loop: EventLoop? = nil) throws {
        self.configuration = configuration
        ownsLoop = loop == nil
        let loop = try loop ?? EventLoop(name: "parley-media")
        self.loop = loop
        let core: MediaTransportCore
        do {
            certificate = try CertificateIdentity(commonName: "parley-media")
            core = MediaTransportCore(configuration: configuration, certificate: certificate, loop: loop)
            let bound = LoopBound(core, loop: loop)
            socket = try UDPSocket.inPlace(host: configuration.host, port: configuration.port, loop: loop,
                                           batchSize: 32, maxDatagramBytes: 2048,
                                           sendBatchSize: 64) { datagrams in bound.value.receive(datagrams) }
        } catch {
            if ownsLoop { loop.stop() }
            throw error
        }
        let bound = LoopBound(core, loop: loop)
        self.core = bound
        var candidates: [ICETransportAddress] = []
        for host in configuration.candidateHosts {
            guard let candidate = ICETransportAddress(host, port: UInt16(clamping: socket.localPort)) else {
                socket.close()
                if ownsLoop { loop.stop() }
                throw ParleyError(.mediaServerLocalDescFailed, reason: "media host \(host) is not an IP address")
            }
            if !candidates.contains(candidate) { candidates.append(candidate) }
        }
        self.candidates = candidates
        let socket = socket
        loop.execute { [candidates] in
            bound.value.socket = socket
            bound.value.candidates = candidates
            bound.value.startHousekeeping(bound)
        }
    }

    /// The bound UDP port.
    public var localPort: Int { socket.localPort }

    /// Creates an echo session from an SDP offer and returns its id and SDP answer: the offered
    /// audio (Opus, else PCMU/PCMA) and, when the offer bundles one, a video section (VP8, VP9,
    /// H.264 or AV1, the offer's preference), each echoed on a track of its own.
    /// - Parameter events: the session's state changes and connectivity, in order, on a task of
    ///   the session's own (never the media loop); the last is `.stateChanged` to `.failed` or
    ///   `.closed`, however the session ends (closed, timed out, failed, server shut down).
    /// - Throws: `ParleyError` 53403 (unusable offer), 53404 (no supported audio codec),
    ///   53401 (too many sessions or local setup failed).
    public func createEchoSession(offer: String, events: (@Sendable (PeerSessionEvent) -> Void)? = nil)
        async throws(ParleyError) -> PeerSessionAnswer {
        let parsed = try MediaOffer(offer: offer, videoCodecs: VideoCodec.allCases)
        let delivery = events.map { OffLoopDelivery(limit: 64, handler: $0) }
        let core = self.core
        let result: Result<PeerSessionAnswer, ParleyError> = await onLoop {
            core.value.createSession(parsed, kind: .echo, events: delivery)
        }
        if case .failure = result { delivery?.finish() }
        return try result.get()
    }

    /// Closes a session (close_notify to the peer). A call session reports `.stateChanged(.closed)`
    /// and leaves every forwarding link. False if the id is unknown.
    public func closeSession(id: String) async -> Bool {
        let core = self.core
        return await onLoop { core.value.closeSession(id: id, reason: "closed by request") }
    }

    /// A snapshot of one session, or nil if unknown (or already ended and removed).
    public func session(id: String) async -> PeerSessionSnapshot? {
        let core = self.core
        return await onLoop { core.value.snapshot(id: id) }
    }

    /// Snapshots of all open sessions.
    public func sessions() async -> [PeerSessionSnapshot] {
        let core = self.core
        return await onLoop { core.value.snapshots() }
    }

    public func statistics() async -> MediaTransportStatistics {
        let core = self.core
        return await onLoop { core.value.statistics }
    }

    /// Closes every session and the socket, and stops the loop if the server created it.
    public func shutdown() async {
        let core = self.core
        _ = await onLoop { core.value.closeAll() }
        socket.close()
        if ownsLoop {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                loop.execute { done.resume() }
            }
            loop.stop()
        }
    }

    /// Runs `body` on the loop thread and returns its result.
    func onLoop<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            loop.execute { continuation.resume(returning: body()) }
        }
    }
}
