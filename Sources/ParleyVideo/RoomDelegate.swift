import ParleyCore

/// A room's state changes and who comes and goes (the seed's `RoomDelegate`). Methods run on the
/// room's delegate queue; every one but `roomDidConnect`, `roomDidFailToConnect` and
/// `roomDidDisconnect` has an empty default.
public protocol RoomDelegate: AnyObject, Sendable {
    func roomDidConnect(room: Room)
    func roomDidFailToConnect(room: Room, error: ParleyError)
    /// The room ended for this client: `error` is nil after `disconnect()`, else why (53118 the
    /// room was completed, 53205 the participant was removed, …).
    func roomDidDisconnect(room: Room, error: ParleyError?)
    /// Signaling (53001) or media (53405) dropped; the SDK reconnects.
    func roomIsReconnecting(room: Room, error: ParleyError)
    func roomDidReconnect(room: Room)
    func participantDidConnect(room: Room, participant: RemoteParticipant)
    func participantDidDisconnect(room: Room, participant: RemoteParticipant)
    func participantIsReconnecting(room: Room, participant: RemoteParticipant)
    func participantDidReconnect(room: Room, participant: RemoteParticipant)
    func roomDidStartRecording(room: Room)
    func roomDidStopRecording(room: Room)
    /// The loudest participant changed (nil: nobody speaks); with `isDominantSpeakerEnabled`.
    func dominantSpeakerDidChange(room: Room, participant: RemoteParticipant?)
}

extension RoomDelegate {
    public func roomIsReconnecting(room: Room, error: ParleyError) {}
    public func roomDidReconnect(room: Room) {}
    public func participantDidConnect(room: Room, participant: RemoteParticipant) {}
    public func participantDidDisconnect(room: Room, participant: RemoteParticipant) {}
    public func participantIsReconnecting(room: Room, participant: RemoteParticipant) {}
    public func participantDidReconnect(room: Room, participant: RemoteParticipant) {}
    public func roomDidStartRecording(room: Room) {}
    public func roomDidStopRecording(room: Room) {}
    public func dominantSpeakerDidChange(room: Room, participant: RemoteParticipant?) {}
}
