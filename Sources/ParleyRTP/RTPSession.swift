import ParleySRTP
import RTCP
import RTP

/// One RTP session (RFC 3550 §3; several streams per session, RFC 8108): one SSRC space on one
/// transport. For a WebRTC peer that is every bundled m-section (RFC 8843 §9); for a SIP leg its
/// one audio stream; for an SFU one participant's tracks.
///
/// It holds the send streams (our SSRCs and their sender state), the receive streams (one per
/// remote SSRC, bounded, with reception statistics), the negotiated payload formats, and the SRTP
/// context once keyed (or none, for plain RTP). It unprotects and records what arrives,
/// protects what leaves, reads the peer's RTCP, and builds this endpoint's compound RTCP reports
/// — in one place for every kind of leg.
///
/// A value type with no I/O and no clock: time comes in as `now`/`arrival` (seconds on the owner's
/// monotonic clock) and `ntp` (the wall clock as a 64-bit NTP timestamp). The packet calls work in
/// place on the caller's buffer and allocate nothing once a stream is known.
public struct RTPSession {
    public struct Configuration: Sendable {
        /// The SDES CNAME of every local SSRC (RFC 3550 §6.5.1; RFC 7022 for choosing it).
        public var cname: String
        /// True when packets need SRTP (WebRTC, RFC 8827 §6.5; a SIP leg with SDES-SRTP): until
        /// keyed, every packet is refused. False for plain RTP.
        public var requiresSRTP: Bool
        /// Remote SSRCs tracked at once; a new one beyond this replaces the longest silent.
        public var maxReceiveStreams: Int
        /// A receive stream silent this long (seconds) is left out of reports (RFC 3550 §6.3.5).
        public var receiveStreamTimeout: Double

        public init(cname: String, requiresSRTP: Bool = true, maxReceiveStreams: Int = 16,
                    receiveStreamTimeout: Double = 10) {
            self.cname = cname
            self.requiresSRTP = requiresSRTP
            self.maxReceiveStreams = max(1, min(maxReceiveStreams, 31))
            self.receiveStreamTimeout = receiveStreamTimeout
        }
    }

    public let configuration: Configuration
    /// The negotiated payload types of every section in the session.
    public var payloadFormats: RTPPayloadFormats
    public internal(set) var sendStreams: [RTPSendStream] = []
    public internal(set) var receiveStreams: [RTPReceiveStream] = []
    /// The SRTP context once keyed.
    public private(set) var srtp: SRTPContext?
    /// The SSRC that reports while no send stream exists (a receive-only endpoint, RFC 3550 §6.4.2).
    public let receiverSSRC: UInt32
    /// Receive streams created, and those replaced because the table was full.
    public internal(set) var receiveStreamsCreated = 0
    public internal(set) var receiveStreamsEvicted = 0
    /// The receive stream of the last packet: the usual next one.
    private var lastReceiveIndex = 0

    public init(configuration: Configuration, payloadFormats: RTPPayloadFormats = RTPPayloadFormats(),
                receiverSSRC: UInt32? = nil) {
        self.configuration = configuration
        self.payloadFormats = payloadFormats
        var random = SystemRandomNumberGenerator()
        self.receiverSSRC = receiverSSRC ?? UInt32.random(in: 1...UInt32.max, using: &random)
        sendStreams.reserveCapacity(4)
        receiveStreams.reserveCapacity(configuration.maxReceiveStreams)
    }

    /// Packets can flow: SRTP is keyed, or not needed.
    public var isReady: Bool { srtp != nil || !configuration.requiresSRTP }

    /// Keys the session (after DTLS-SRTP, or from SDES `a=crypto`).
    public mutating func setSRTP(_ context: SRTPContext) {
        srtp = context
    }

    // MARK: - Streams

    /// Adds a stream we send and returns its index. `ssrc` nil draws a random one that no other
    /// stream of the session uses (RFC 3550 §8.1).
    @discardableResult
    public mutating func addSendStream(ssrc: UInt32? = nil, clockRate: UInt32, section: Int) -> Int {
        var random = SystemRandomNumberGenerator()
        var chosen = ssrc ?? UInt32.random(in: 1...UInt32.max, using: &random)
        while ssrc == nil, isInUse(chosen) { chosen = UInt32.random(in: 1...UInt32.max, using: &random) }
        sendStreams.append(RTPSendStream(ssrc: chosen, clockRate: clockRate, section: section))
        return sendStreams.count - 1
    }

    /// The first send stream of a section.
    public func sendStreamIndex(section: Int) -> Int? {
        sendStreams.firstIndex { $0.section == section }
    }

    /// The receive stream heard from last, among those of `section` (any section if nil).
    public func latestReceiveStream(section: Int? = nil) -> RTPReceiveStream? {
        var latest: RTPReceiveStream?
        for stream in receiveStreams where section == nil || stream.section == section {
            if latest.map({ stream.lastArrival > $0.lastArrival }) ?? true { latest = stream }
        }
        return latest
    }

    private func isInUse(_ ssrc: UInt32) -> Bool {
        ssrc == receiverSSRC || sendStreams.contains { $0.ssrc == ssrc } || receiveStreams.contains { $0.ssrc == ssrc }
    }

    /// The receive stream of `ssrc`, created on its first packet (replacing the longest silent one
    /// when the table is full).
    mutating func receiveStreamIndex(ssrc: UInt32, payloadType: UInt8, arrival: Double) -> Int {
        if lastReceiveIndex < receiveStreams.count, receiveStreams[lastReceiveIndex].ssrc == ssrc { return lastReceiveIndex }
        var index = 0
        while index < receiveStreams.count {
            if receiveStreams[index].ssrc == ssrc {
                lastReceiveIndex = index
                return index
            }
            index += 1
        }
        let format = payloadFormats[payloadType]
        let stream = RTPReceiveStream(ssrc: ssrc, clockRate: format?.clockRate ?? Self.defaultClockRate,
                                      section: format?.section, arrival: arrival)
        receiveStreamsCreated += 1
        if receiveStreams.count < configuration.maxReceiveStreams {
            receiveStreams.append(stream)
            lastReceiveIndex = receiveStreams.count - 1
        } else {
            var oldest = 0
            for i in receiveStreams.indices where receiveStreams[i].lastArrival < receiveStreams[oldest].lastArrival {
                oldest = i
            }
            receiveStreams[oldest] = stream
            receiveStreamsEvicted += 1
            lastReceiveIndex = oldest
        }
        return lastReceiveIndex
    }

    /// The clock rate of a payload type nobody negotiated (Opus's, the WebRTC default).
    static let defaultClockRate: UInt32 = 48_000
}
