import ParleyRTP
import VoiceEngine

/// SIP legs forward to and from WebRTC legs without decoding when the codecs match
/// (`SIPMediaServer+Handoff`).
extension SIPMediaBridge: HandoffMediaBridge {
    package var handoffServer: any RTPHandoffServer { server }
}
