import AudioCore
import Foundation
import ICE

/// How to run a preflight test (the seed's `TVOPreflightOptions`), built with a block:
///
///     let options = PreflightOptions(accessToken: token) { builder in
///         builder.duration = .seconds(5)
///         builder.preferredAudioCodecs = [.pcmu]
///     }
public struct PreflightOptions: Sendable {
    public var accessToken: String
    /// How long audio flows once media is connected (default 10 s); one stats sample a second.
    public var duration: Duration = .seconds(10)
    /// Codecs in preference order (default Opus, PCMU, PCMA).
    public var preferredAudioCodecs: [AudioCodecPreference] = [.opus(), .pcmu, .pcma]
    public var iceServers: [ICEServer] = []
    /// `.relay` tests the TURN path only.
    public var iceTransportPolicy: ICETransportPolicy = .all
    /// The edge to test (a name in `Voice.servers`); nil uses `Voice.edge`.
    public var edge: String?
    /// The queue delegate methods run on; nil means the main queue on Apple platforms (as in the
    /// seed) and the SDK's own serial queue on Linux, where nothing runs the main queue.
    public var delegateQueue: DispatchQueue?
    /// The device whose microphone is sent to the echo service. Nil (the default) sends a
    /// generated 440 Hz tone whose level changes every second, so no microphone is needed and the
    /// constant-audio-level warnings stay quiet.
    public var audioDevice: (any AudioDevice)?

    public init(accessToken: String, block: (inout PreflightOptions) -> Void = { _ in }) {
        self.accessToken = accessToken
        block(&self)
    }

    /// The call media options the test's connection is made with.
    var media: CallMediaOptions {
        var media = CallMediaOptions()
        media.preferredAudioCodecs = preferredAudioCodecs
        media.iceServers = iceServers
        media.iceTransportPolicy = iceTransportPolicy
        media.edge = edge
        media.delegateQueue = delegateQueue
        media.audioDevice = audioDevice
        return media
    }
}
