import ServerMedia

extension RoomMediaPlane {
    /// A media plane without taps records and mixes nothing.
    public func tap(_ section: RoomTrackAddress, _ tap: (@Sendable (TappedRTPPacket) -> Void)?) async -> String? { nil }
    public func requestKeyframe(_ section: RoomTrackAddress, ssrc: UInt32?) async {}
    /// A media plane that cannot send the server's own frames mixes nothing.
    public func play(_ payload: [UInt8], samples: Int, to slot: RoomTrackAddress) {}
}
