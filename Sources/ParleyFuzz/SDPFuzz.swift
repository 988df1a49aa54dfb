import SDP

/// Feeds bytes to the SDP parser as text (invalid UTF-8 replaced, as a signaling server would
/// decode it) and, when they parse, checks that serializing and re-parsing is stable: the same
/// value and the same text. Also exercises the typed attribute views and the standalone
/// (trickle) candidate parser, and SIP's offer/answer (`SIPAudioFuzz`).
enum SDPFuzz {
    static let limits = SDPLimits(maxBytes: 64 * 1024, maxLines: 2048, maxMediaSections: 64)

    static func run(_ data: UnsafeRawBufferPointer) {
        let text = String(decoding: data, as: UTF8.self)
        if let candidate = try? SDPCandidate(parsing: text) {
            guard let again = try? SDPCandidate(parsing: candidate.candidateString), again == candidate else {
                fatalError("SDP candidate round trip is unstable")
            }
        }
        // The byte entry point validates UTF-8 itself; it must agree with the text one on valid input.
        let fromBytes = try? SessionDescription(parsing: UnsafeRawBufferPointer(data), limits: limits)
        guard let parsed = try? SessionDescription(parsing: text, limits: limits) else {
            if fromBytes != nil { fatalError("SDP byte and text parsers disagree") }
            return
        }
        let output = parsed.serialized()
        guard let reparsed = try? SessionDescription(parsing: output, limits: SDPLimits(maxBytes: 1 << 20, maxLines: 4096)),
              reparsed == parsed, reparsed.serialized() == output else {
            fatalError("SDP parse -> serialize -> parse is unstable")
        }
        for section in parsed.media {
            _ = (parsed.iceUfrag(for: section), parsed.fingerprints(for: section), parsed.direction(for: section))
            _ = (section.rtpMaps, section.formatParameters.map(\.parameters), section.rtcpFeedback, section.extmaps)
            _ = (section.candidates.map(\.candidateString), section.ssrcAttributes, section.ssrcGroups, section.msids)
            // RFC 8851/8853: what parses serializes to a value that parses back the same.
            for rid in section.rids where (try? SDPRID(parsing: rid.sdpValue)) != rid { fatalError("rid round trip is unstable") }
            if let simulcast = section.simulcast, (try? SDPSimulcast(parsing: simulcast.sdpValue)) != simulcast {
                fatalError("simulcast round trip is unstable")
            }
            for pt in section.payloadTypes {
                if let red = section.redundancyPayloadType(wrapping: pt, among: section.payloadTypes) {
                    precondition(red != pt && section.rtpMap(for: red) != nil, "RED payload type without its rtpmap")
                }
            }
        }
        _ = (parsed.bundleGroups, parsed.msidSemantic)
        SIPAudioFuzz.check(parsed)
    }
}
