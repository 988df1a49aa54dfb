import AudioCore
import ParleyClientCore
import ParleyCore
import Synchronization

/// Process-wide voice SDK state behind `Voice`'s static properties. What every SDK has — servers,
/// edge, the Insights switch, logging — is the client core's `ClientSettings` (`core`); what only
/// voice has is here.
struct VoiceSettings: Sendable {
    var audioDevice: (any AudioDevice)?
    /// The push provider `register` binds with.
    var pushProvider = "apns"
    /// The token the last `register` used: pushed invites are answered with it.
    var registeredToken: String?
    /// Calls not yet disconnected (the audio device may not change while there is one).
    var liveCalls = 0
    /// The time source of every SDK timer (reconnect window, quality sampling, preflight,
    /// signaling heartbeat and resume); tests set a virtual clock.
    var clock: any MonotonicClock = SystemClock()

    static let shared = Mutex(VoiceSettings())

    /// The SDK's clock (`clock`).
    static var clock: any MonotonicClock { shared.withLock { $0.clock } }

    /// The voice SDK's servers, edge, Insights switch and log levels.
    static let core = ClientSettings(entryPoint: "Voice")

    /// The voice SDK's Insights events go out through this publisher.
    static let insights = InsightsPublisher(settings: core)

    /// The server for `edge`, or for `Voice.edge` when nil (see `ClientSettings.server(for:)`).
    static func server(for edge: String?) throws(ParleyError) -> String {
        try core.server(for: edge)
    }
}

extension InsightsPublisher {
    /// One voice SDK event, about the call `callSid` when there is one (`call_sid`).
    func publish(group: String, name: String, level: InsightsLevel, callSid: String?, payload: [String: String],
                 token: String, edge: String? = nil) {
        publish(group: group, name: name, level: level, subject: callSid.map { ["call_sid": $0] } ?? [:],
                payload: payload, token: token, edge: edge)
    }
}
