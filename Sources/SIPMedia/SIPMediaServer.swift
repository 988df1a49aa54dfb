import ParleyCore
import ParleyNet

/// The audio of SIP legs (the B2BUA's RTP side): one UDP socket per leg, plain RTP or SDES-SRTP
/// (RFC 4568) as offer/answer settled, symmetric RTP (RFC 4961), RTCP multiplexed on the RTP
/// port (RFC 5761), RFC 4733 keys, forwarding between legs of the same clock rate, frames the
/// server plays, and taps for recording, mixing and transcoding.
///
/// Threading: every method may be called from any task; the work runs on the server's event loop.
public final class SIPMediaServer: Sendable {
    public struct Configuration: Sendable {
        /// The local address legs bind (`0.0.0.0` for every interface).
        public var host: String
        /// The address written in SDP `c=` lines; `host` when nil.
        public var advertisedHost: String?
        /// A leg expecting media that receives nothing for this long reports `.silent`.
        public var silenceTimeout: Duration
        /// At most this many legs at once (each holds a socket).
        public var maxLegs: Int

        public init(host: String = "127.0.0.1", advertisedHost: String? = nil, silenceTimeout: Duration = .seconds(60),
                    maxLegs: Int = 2000) {
            self.host = host
            self.advertisedHost = advertisedHost
            self.silenceTimeout = silenceTimeout
            self.maxLegs = maxLegs
        }
    }

    public let configuration: Configuration
    let core: LoopBound<SIPMediaCore>
    private let ownsLoop: Bool

    public init(configuration: Configuration = Configuration(), loop: EventLoop? = nil) throws {
        self.configuration = configuration
        ownsLoop = loop == nil
        let loop = try loop ?? EventLoop(name: "parley-sip-media")
        core = LoopBound(SIPMediaCore(configuration: configuration, loop: loop), loop: loop)
    }

    /// The event loop the legs run on.
    public var loop: EventLoop { core.loop }

    /// A new leg with its socket bound: where it receives, for our SDP. Media flows once
    /// `configure` gives it the negotiated stream.
    /// - Throws: 53401 when the server holds `maxLegs` legs or no socket can be bound.
    public func openLeg(events: (@Sendable (SIPMediaEvent) -> Void)? = nil) async throws(ParleyError) -> SIPMediaLegAddress {
        let id = SIPMediaCore.newID()
        let core = self.core
        let socket: UDPSocket
        do {
            socket = try UDPSocket.inPlace(host: configuration.host, port: 0, loop: loop, batchSize: 8, maxDatagramBytes: 1500,
                                           sendBatchSize: 16) { batch in core.value.receive(batch, leg: id) }
        } catch {
            throw ParleyError(.mediaServerLocalDescFailed, reason: "cannot bind a SIP media socket: \(error)")
        }
        let delivery = events.map { OffLoopDelivery(limit: 64, handler: $0) }
        let added: Bool = await onLoop {
            let value = core.value
            guard value.legs.count < value.configuration.maxLegs else { return false }
            value.add(SIPMediaLeg(id: id, socket: socket, events: delivery, now: value.now))
            return true
        }
        guard added else {
            socket.close()
            delivery?.finish()
            throw ParleyError(.mediaServerLocalDescFailed, reason: "the SIP media server is full")
        }
        return SIPMediaLegAddress(id: id, host: configuration.advertisedHost ?? configuration.host, port: socket.localPort)
    }

    /// Applies what offer/answer settled (again after a re-INVITE).
    public func configure(_ id: String, _ parameters: SIPMediaParameters) async throws(ParleyError) {
        let core = self.core
        try await onLoop { core.value.configure(id, parameters) }.get()
    }

    /// Sends what `source` receives to `sink`. False if either is gone or their clock rates differ.
    public func forward(from source: String, to sink: String) async -> Bool {
        let core = self.core
        return await onLoop { core.value.forward(from: source, to: sink) }
    }

    public func stopForwarding(to sink: String) async {
        let core = self.core
        await onLoop { core.value.stopForwarding(to: sink) }
    }

    /// Sends one encoded frame (covering `samples` at the leg's clock rate) on the leg.
    public func play(_ payload: [UInt8], samples: Int, to id: String) {
        let core = self.core
        loop.execute { core.value.play(payload, samples: samples, to: id) }
    }

    /// Sends keys to the leg's peer as RFC 4733 events (`0-9*#A-D`, `w` a 500 ms pause). False if
    /// the leg negotiated no telephone-event, a key is not one, or too many are queued.
    public func sendDigits(_ digits: String, to id: String) async -> Bool {
        let core = self.core
        return await onLoop { core.value.sendDigits(digits, to: id) }
    }

    /// Every audio packet the leg receives (never its telephone events) goes to `tap`; nil removes it.
    public func setAudioTap(_ id: String, _ tap: (@Sendable (SIPMediaTapPacket) -> Void)?) async -> Bool {
        let delivery = tap.map { OffLoopDelivery(limit: 256, handler: $0) }
        let core = self.core
        return await onLoop { core.value.setTap(delivery, leg: id) }
    }

    /// Closes the leg and its socket (its `.closed` event follows). False if unknown.
    @discardableResult
    public func close(_ id: String) async -> Bool {
        let core = self.core
        return await onLoop { core.value.close(id) }
    }

    public func statistics() async -> SIPMediaStatistics {
        let core = self.core
        return await onLoop { core.value.statistics }
    }

    /// Closes every leg, and stops the loop if the server created it.
    public func shutdown() async {
        let core = self.core
        await onLoop { core.value.closeAll() }
        if ownsLoop { loop.stop() }
    }

    func onLoop<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            loop.execute { continuation.resume(returning: body()) }
        }
    }
}
