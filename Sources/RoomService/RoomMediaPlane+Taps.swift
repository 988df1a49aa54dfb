import ServerMedia

extension RoomMediaPlane {
    /// A media plane without taps records nothing.
    public func tap(_ section: RoomTrackAddress, _ tap: (@Sendable (TappedRTPPacket) -> Void)?) async -> String? { nil }
    public func requestKeyframe(_ section: RoomTrackAddress, ssrc: UInt32?) async {}
}
