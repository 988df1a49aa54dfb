import AccessToken
import HTTPWire
import WebSocketWire

/// The pure parsers under fuzzing. Each entry feeds arbitrary bytes to one parser; a parser may
/// throw its documented error but must never trap, leak or read out of bounds.
enum FuzzTarget: String, CaseIterable {
    case http, websocket, jwt, stun, sdp, rtp, rtcp, srtp, red, wav, twiml, form, signaling, insights, vp8, dcep
    case telephoneEvent = "telephone-event"
    case audioReceive = "audio-receive"
    case mediaOffer = "media-offer"
    case videoREST = "video-rest"
    case recording, y4m, ivf, sip, sdes
    case sipDigest = "sip-digest"
    case sipInfo = "sip-info"
    case ffmpegProgress = "ffmpeg-progress"

    func run(_ data: UnsafeRawBufferPointer) {
        switch self {
        case .http: HTTPFuzz.run(data)
        case .websocket: WebSocketFuzz.run(data)
        case .jwt: JWTFuzz.run(data)
        case .stun: STUNFuzz.run(data)
        case .sdp: SDPFuzz.run(data)
        case .rtp: RTPFuzz.run(data)
        case .rtcp: RTCPFuzz.run(data)
        case .srtp: SRTPFuzz.run(data)
        case .insights: InsightsFuzz.run(data)
        case .red: REDFuzz.run(data)
        case .telephoneEvent: TelephoneEventFuzz.run(data)
        case .wav: WAVFuzz.run(data)
        case .audioReceive: AudioReceiveFuzz.run(data)
        case .twiml: TwiMLFuzz.run(data)
        case .form: FormFuzz.run(data)
        case .signaling: SignalingFuzz.run(data)
        case .vp8: VP8Fuzz.run(data)
        case .dcep: DataChannelFuzz.run(data)
        case .mediaOffer: MediaOfferFuzz.run(data)
        case .videoREST: VideoRESTFuzz.run(data)
        case .recording: RecordingFuzz.run(data)
        case .y4m: Y4MFuzz.run(data)
        case .ivf: IVFFuzz.run(data)
        case .sip: SIPFuzz.run(data)
        case .sipDigest: SIPDigestFuzz.run(data)
        case .sdes: SDESFuzz.run(data)
        case .sipInfo: SIPInfoFuzz.run(data)
        case .ffmpegProgress: FFmpegProgressFuzz.run(data)
        }
    }
}

enum JWTFuzz {
    static func run(_ data: UnsafeRawBufferPointer) {
        let token = String(decoding: data, as: UTF8.self)
        guard let parsed = try? JWT.parse(token) else { return }
        _ = try? AccessTokenClaims(json: parsed.claims)
    }
}
