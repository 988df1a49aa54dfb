import ParleyCore

/// What a remote participant's tracks do (the seed's `RemoteParticipantDelegate`, its audio,
/// video and data callbacks folded into one set told apart by the publication's `kind`). Every
/// method has an empty default.
public protocol RemoteParticipantDelegate: AnyObject, Sendable {
    func remoteParticipant(_ participant: RemoteParticipant, didPublish publication: RemoteTrackPublication)
    func remoteParticipant(_ participant: RemoteParticipant, didUnpublish publication: RemoteTrackPublication)
    /// We receive the track from now on.
    func remoteParticipant(_ participant: RemoteParticipant, didSubscribeTo publication: RemoteTrackPublication)
    func remoteParticipant(_ participant: RemoteParticipant, didFailToSubscribeTo publication: RemoteTrackPublication,
                           error: ParleyError)
    func remoteParticipant(_ participant: RemoteParticipant, didUnsubscribeFrom publication: RemoteTrackPublication)
    func remoteParticipant(_ participant: RemoteParticipant, didEnable publication: RemoteTrackPublication)
    func remoteParticipant(_ participant: RemoteParticipant, didDisable publication: RemoteTrackPublication)
    /// The server stopped sending the track to us (`isTrackSwitchedOff`), or started again.
    func remoteParticipant(_ participant: RemoteParticipant, didSwitchOff publication: RemoteTrackPublication)
    func remoteParticipant(_ participant: RemoteParticipant, didSwitchOn publication: RemoteTrackPublication)
    func remoteParticipant(_ participant: RemoteParticipant, networkQualityLevelDidChange level: NetworkQualityLevel)
}

extension RemoteParticipantDelegate {
    public func remoteParticipant(_ participant: RemoteParticipant, didPublish publication: RemoteTrackPublication) {}
    public func remoteParticipant(_ participant: RemoteParticipant, didUnpublish publication: RemoteTrackPublication) {}
    public func remoteParticipant(_ participant: RemoteParticipant, didSubscribeTo publication: RemoteTrackPublication) {}
    public func remoteParticipant(_ participant: RemoteParticipant, didFailToSubscribeTo publication: RemoteTrackPublication,
                                  error: ParleyError) {}
    public func remoteParticipant(_ participant: RemoteParticipant, didUnsubscribeFrom publication: RemoteTrackPublication) {}
    public func remoteParticipant(_ participant: RemoteParticipant, didEnable publication: RemoteTrackPublication) {}
    public func remoteParticipant(_ participant: RemoteParticipant, didDisable publication: RemoteTrackPublication) {}
    public func remoteParticipant(_ participant: RemoteParticipant, didSwitchOff publication: RemoteTrackPublication) {}
    public func remoteParticipant(_ participant: RemoteParticipant, didSwitchOn publication: RemoteTrackPublication) {}
    public func remoteParticipant(_ participant: RemoteParticipant, networkQualityLevelDidChange level: NetworkQualityLevel) {}
}
