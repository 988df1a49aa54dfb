import ParleyCore
import ServerMedia

extension RoomMediaPlane {
    /// A media plane without taps records and mixes nothing.
    public func tap(_ section: RoomTrackAddress, _ tap: (@Sendable (TappedRTPPacket) -> Void)?) async -> String? { nil }
    public func requestKeyframe(_ section: RoomTrackAddress, ssrc: UInt32?) async {}
    /// A media plane that cannot send the server's own frames mixes nothing.
    public func play(_ payload: [UInt8], samples: Int, to slot: RoomTrackAddress) {}
}

extension RoomMediaPlane {
    /// A media plane that cannot restrict codecs answers with every codec it forwards.
    public func open(offer: String, videoCodecs: [String], events: @escaping @Sendable (RoomMediaEvent) -> Void)
        async throws(ParleyError) -> RoomMediaDescription {
        try await open(offer: offer, events: events)
    }

    public func renegotiate(session: String, offer: String, videoCodecs: [String]) async throws(ParleyError) -> RoomMediaDescription {
        try await renegotiate(session: session, offer: offer)
    }
}
