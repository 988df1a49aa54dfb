import ParleyCore
import ParleyNet
import ParleyRTP
import ParleySRTP
import RTCP
import RTP

/// One SIP leg's audio stream on the media loop: its own UDP socket (RTP with RTCP multiplexed,
/// RFC 5761), an `RTPSession` (plain or SDES-SRTP), our send track, and its forwarding links.
/// Owned by `SIPMediaCore` and touched only on its loop's thread.
final class SIPMediaLeg {
    let id: String
    let socket: UDPSocket
    var parameters: SIPMediaParameters?
    var rtp: RTPSession
    var track: RTPForwardingTrack
    /// Where packets go: the SDP's address until the peer's first packet, then that packet's
    /// source (symmetric RTP, RFC 4961). An SRTP leg follows an authenticated packet's new source.
    var destination: SocketAddress?
    var latched = false
    var telephoneEvents = TelephoneEventTracker()
    /// Keys to send (RFC 4733).
    var digits = DigitSender()
    /// The leg whose media we send (at most one), and the legs ours goes to.
    weak var source: SIPMediaLeg?
    var sinks: [SIPMediaLeg] = []
    /// Hand-offs to legs on another transport's loop (`SIPMediaServer+Handoff`): what we receive
    /// goes there too; `incoming` are those whose packets we send.
    var handoffs: [RTPPacketHandoff] = []
    var incoming: [RTPPacketHandoff] = []
    var tap: OffLoopDelivery<SIPMediaTapPacket>?
    let events: OffLoopDelivery<SIPMediaEvent>?
    var lastReceived: Double
    var nextReportAt: Double = 0
    var silentReported = false

    init(id: String, socket: UDPSocket, events: OffLoopDelivery<SIPMediaEvent>?, now: Double) {
        self.id = id
        self.socket = socket
        self.events = events
        lastReceived = now
        var random = SystemRandomNumberGenerator()
        rtp = RTPSession(configuration: RTPSession.Configuration(cname: "parley-sip-\(id.suffix(8))", requiresSRTP: false))
        track = RTPForwardingTrack(ssrc: UInt32.random(in: 1...UInt32.max, using: &random), kind: .audio, clockRate: 8000,
                                   mediaPayloadType: 0, initialSequence: UInt16.random(in: 0...UInt16.max, using: &random),
                                   initialTimestamp: UInt32.random(in: 0...UInt32.max, using: &random))
    }

    /// Applies the negotiated stream (first answer, or a re-INVITE's). The SSRC, numbering and
    /// links are kept; keys and formats follow the new description.
    func configure(_ new: SIPMediaParameters, now: Double) throws(ParleyError) {
        let rekeyed = new.srtp != parameters?.srtp
        if parameters == nil || rekeyed || new.payloadType != parameters?.payloadType {
            var formats = [RTPPayloadFormat(payloadType: new.payloadType, kind: .audio, clockRate: new.clockRate, section: 0)]
            if let event = new.telephoneEventPayloadType {
                formats.append(RTPPayloadFormat(payloadType: event, kind: .telephoneEvent, clockRate: new.clockRate, section: 0))
            }
            var session = RTPSession(configuration: RTPSession.Configuration(cname: rtp.configuration.cname,
                                                                              requiresSRTP: new.srtp != nil),
                                     payloadFormats: RTPPayloadFormats(formats), receiverSSRC: rtp.receiverSSRC)
            if let keys = new.srtp { session.setSRTP(try SRTPContext(keyingMaterial: keys)) }
            session.addSendStream(ssrc: track.ssrc, clockRate: new.clockRate, section: 0)
            rtp = session
        }
        if parameters == nil || new.clockRate != parameters?.clockRate {
            var random = SystemRandomNumberGenerator()
            track = RTPForwardingTrack(ssrc: track.ssrc, kind: .audio, clockRate: new.clockRate, mediaPayloadType: new.payloadType,
                                       telephoneEventPayloadType: new.telephoneEventPayloadType,
                                       initialSequence: UInt16.random(in: 0...UInt16.max, using: &random),
                                       initialTimestamp: UInt32.random(in: 0...UInt32.max, using: &random))
        } else {
            track.mediaPayloadType = new.payloadType
            track.telephoneEventPayloadType = new.telephoneEventPayloadType
        }
        // A new address in a re-offer is where the peer now wants media, until its packets say otherwise.
        if new.remote != parameters?.remote {
            destination = new.remote
            latched = false
        }
        if rekeyed { latched = false }
        parameters = new
        lastReceived = now
        silentReported = false
    }

    var rtcpDestination: SocketAddress? {
        latched ? destination : (parameters?.remoteRTCP ?? destination)
    }

    /// Makes `newSource` (or nobody) the source of this leg's stream.
    func setSource(_ newSource: SIPMediaLeg?) {
        guard newSource !== source else { return }
        if let old = source { old.sinks.removeAll { $0 === self } }
        source = newSource
        newSource?.sinks.append(self)
        track.sourceChanged()
    }

    func unlink() {
        setSource(nil)
        dropHandoffs()
        for sink in sinks {
            sink.source = nil
            sink.track.sourceChanged()
        }
        sinks = []
    }
}
