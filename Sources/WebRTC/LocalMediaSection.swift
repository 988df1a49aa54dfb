import ICE
import ParleyCrypto
import SDP

/// One m-section this endpoint writes, in an offer or an answer, with the attributes in the order
/// browsers write them (RFC 8829 §5.2.1, §5.3.1): mid, direction, rtcp-mux, ICE (RFC 8839),
/// fingerprint and setup (RFC 8842), the formats, msid (RFC 8830) and ssrc (RFC 5576), the
/// candidates. Shared by the client's SDP and the server's answers.
struct LocalMediaSection {
    /// The transport lines, the same in every bundled section (RFC 8843 §7.1.3 lets each repeat them).
    struct Transport {
        var credentials: ICECredentials
        var iceOptions: [String] = []
        var fingerprint: DTLSFingerprint
        var setup: SDPSetupRole
        /// `a=candidate` attributes, followed by `a=end-of-candidates` (no trickle).
        var candidates: [SDPAttribute]
        /// The m-line port and `c=` address: the default candidate's (RFC 8839 §4.2.1.1).
        var port: UInt16
        var address: String
        var isIPv4: Bool
    }

    /// One payload type: its rtpmap, fmtp and RTCP feedback.
    struct Format {
        var map: SDPRTPMap
        var parameters: String?
        var feedback: [SDPRTCPFeedback] = []
    }

    var mediaType: String
    var mid: String?
    var proto: String
    var direction: SDPDirection
    var formats: [Format]
    /// The track we send in the section (msid, and an SSRC with its CNAME); nil when we send nothing.
    var track: (msid: SDPMSID, ssrc: UInt32, cname: String)?
    /// Header extensions accepted in the section (RFC 8285 §5).
    var extmaps: [SDPExtmap] = []
    /// The track's retransmission SSRC, grouped with it (RFC 4588 §8.3, `a=ssrc-group:FID`).
    var rtxSSRC: UInt32?
    /// Written after the track lines: the rid and simulcast lines of an answer (RFC 8853 §5.3).
    var simulcastAttributes: [SDPAttribute] = []

    func description(_ transport: Transport) -> MediaDescription {
        var media = MediaDescription(mediaType: mediaType, port: transport.port, proto: proto,
                                     formats: formats.map { String($0.map.payloadType) },
                                     connections: [SDPConnection(addressType: transport.isIPv4 ? "IP4" : "IP6",
                                                                 address: transport.address)])
        var a: [SDPAttribute] = []
        if let mid { a.append(SDPAttribute(.mid(mid))) }
        a.append(SDPAttribute(.direction(direction)))
        a.append(SDPAttribute(.rtcpMux))
        for extmap in extmaps { a.append(SDPAttribute(.extmap(extmap))) }
        a.append(SDPAttribute(.iceUfrag(transport.credentials.ufrag)))
        a.append(SDPAttribute(.icePwd(transport.credentials.pwd)))
        if !transport.iceOptions.isEmpty {
            a.append(SDPAttribute(name: "ice-options", value: transport.iceOptions.joined(separator: " ")))
        }
        a.append(SDPAttribute(.fingerprint(SDPFingerprint(hashFunction: transport.fingerprint.algorithm.rawValue,
                                                          bytes: transport.fingerprint.digest))))
        a.append(SDPAttribute(.setup(transport.setup)))
        for format in formats {
            a.append(SDPAttribute(.rtpmap(format.map)))
            for feedback in format.feedback { a.append(SDPAttribute(.rtcpFeedback(feedback))) }
            if let parameters = format.parameters {
                a.append(SDPAttribute(.fmtp(SDPFormatParameters(payloadType: format.map.payloadType,
                                                                parameterString: parameters))))
            }
        }
        if let track {
            a.append(SDPAttribute(.msid(track.msid)))
            let msid = track.msid.trackID.map { "\(track.msid.streamID) \($0)" } ?? track.msid.streamID
            if let rtxSSRC { a.append(SDPAttribute(.ssrcGroup(SDPSSRCGroup(semantics: "FID", ssrcs: [track.ssrc, rtxSSRC])))) }
            for ssrc in [track.ssrc] + (rtxSSRC.map { [$0] } ?? []) {
                a.append(SDPAttribute(.ssrc(SDPSSRCAttribute(ssrc: ssrc, attribute: "cname", value: track.cname))))
                a.append(SDPAttribute(.ssrc(SDPSSRCAttribute(ssrc: ssrc, attribute: "msid", value: msid))))
            }
        }
        a += simulcastAttributes
        a += transport.candidates
        a.append(SDPAttribute(.endOfCandidates))
        media.attributes = a
        return media
    }

    /// A rejected section (RFC 8829 §5.3.1): port 0, the offered proto and first format, the mid kept.
    static func rejected(_ offered: MediaDescription) -> MediaDescription {
        var media = MediaDescription(mediaType: offered.mediaType, port: 0, proto: offered.proto,
                                     formats: Array(offered.formats.prefix(1)))
        if let mid = offered.mid { media.attributes = [SDPAttribute(.mid(mid))] }
        return media
    }

    /// The formats we answer for an accepted section: its codec (with the offer's fmtp and the
    /// feedback we take: Generic NACK only with `nack`), RED when offered with it (first: the
    /// redundancy we prefer to receive), and telephone events if asked for and offered.
    static func answerFormats(_ section: OfferedMediaSection, telephoneEvent: Bool, red: Bool = true,
                              nack: Bool = true) -> [Format] {
        guard let codec = section.codec else { return [] }
        let feedback = section.rtcpFeedback.filter { nack || !($0.type == "nack" && $0.parameter == nil) }
        var formats = [Format(map: SDPRTPMap(payloadType: section.payloadType, encodingName: codec.encodingName,
                                             clockRate: codec.clockRate, channels: codec.channels),
                              parameters: section.formatParameters, feedback: feedback)]
        // RED first: libwebrtc sends RED only when the answer puts it before the codec it wraps.
        if red, let redPayloadType = section.redPayloadType {
            formats.insert(redFormat(payloadType: redPayloadType, codecPayloadType: section.payloadType), at: 0)
        }
        if telephoneEvent, let event = section.telephoneEventPayloadType {
            formats.append(Format(map: SDPRTPMap(payloadType: event, encodingName: "telephone-event",
                                                 clockRate: codec.clockRate),
                                  parameters: section.telephoneEventFormatParameters))
        }
        return formats
    }

    /// `a=rtpmap:PT red/48000/2` with `a=fmtp:PT 111/111` (RFC 2198 §5; two levels, as browsers write it).
    static func redFormat(payloadType: UInt8, codecPayloadType: UInt8) -> Format {
        Format(map: SDPRTPMap(payloadType: payloadType, encodingName: "red", clockRate: 48_000, channels: 2),
               parameters: "\(codecPayloadType)/\(codecPayloadType)")
    }
}
