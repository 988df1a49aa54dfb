import ParleyCore
import ServerMedia

/// One leg's media on whatever carries it: a WebRTC session today, a SIP leg's RTP next. Opaque to
/// the engine; the bridge that created it gives it meaning.
package struct MediaLegID: Hashable, Sendable, CustomStringConvertible {
    package let rawValue: String

    package init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    package var description: String { rawValue }
}

/// What a bridge answers when it created a leg's media.
package struct CallMediaAnswer: Sendable {
    package var id: MediaLegID
    /// The answer to the remote party's offer (SDP).
    package var sdp: String
    /// The audio codec both sides agreed on, for what the server plays and records.
    package var codec: CallAudioCodec

    package init(id: MediaLegID, sdp: String, codec: CallAudioCodec) {
        self.id = id
        self.sdp = sdp
        self.codec = codec
    }
}

/// What happens to a leg's media, in order, as the engine needs to know it.
package enum CallMediaEvent: Sendable, Equatable {
    /// Media flows (ICE and DTLS done, for WebRTC).
    case connected(MediaLegID)
    /// The media is over; `failure` says why when it did not end on purpose (closed: nil).
    case ended(MediaLegID, failure: ParleyError?)
    /// A key the remote party pressed (RFC 4733 telephone-event).
    case digit(MediaLegID, Character)

    package var id: MediaLegID {
        switch self {
        case .connected(let id), .ended(let id, _), .digit(let id, _): id
        }
    }
}

/// Everything the call engine asks of media, so any kind of leg whose media can do this plugs in
/// (`WebRTCMediaBridge` for clients today). Frames the engine plays go through `MediaFrameSink`
/// (`play(_:samples:to:)`, keyed by `MediaLegID.rawValue`).
package protocol CallMediaBridge: MediaFrameSink {
    /// Creates a leg's media from the remote party's offer; `events` gets its events until it ends.
    func createLegMedia(offer: String, events: @escaping @Sendable (CallMediaEvent) -> Void)
        async throws(ParleyError) -> CallMediaAnswer
    /// The same, taking `preferred` when the offer has it (the codec of the leg it will be
    /// bridged to, so the two forward without transcoding).
    func createLegMedia(offer: String, preferring preferred: CallAudioCodec?, events: @escaping @Sendable (CallMediaEvent) -> Void)
        async throws(ParleyError) -> CallMediaAnswer
    /// Sends what `source` receives to `sink` (one direction of a bridge). False if either is gone.
    func forward(from source: MediaLegID, to sink: MediaLegID) async -> Bool
    /// `sink` stops receiving forwarded media (hold, unbridge).
    func stopForwarding(to sink: MediaLegID) async
    /// Every audio packet the leg receives (never its telephone-events) goes to `tap`; nil removes
    /// it. For recordings and conference mixes. False if the leg is gone.
    func setAudioTap(_ id: MediaLegID, _ tap: (@Sendable (TappedAudioPacket) -> Void)?) async -> Bool
    /// The audio codec the leg negotiated; nil if the leg is gone.
    func audioCodec(of id: MediaLegID) async -> CallAudioCodec?
    /// A new offer for a connected leg (ICE restart); the answer to send back.
    func restart(_ id: MediaLegID, offer: String) async throws(ParleyError) -> String
    /// Ends the leg's media (its `.ended` event follows).
    func close(_ id: MediaLegID) async
}

extension CallMediaBridge {
    /// Bridges that choose no codec ignore the preference.
    package func createLegMedia(offer: String, preferring preferred: CallAudioCodec?,
                                events: @escaping @Sendable (CallMediaEvent) -> Void) async throws(ParleyError) -> CallMediaAnswer {
        try await createLegMedia(offer: offer, events: events)
    }
}
