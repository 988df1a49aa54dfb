import Signaling

/// One envelope of every room message type, with optional fields both present and absent.
enum RoomSamples {
    static let sdp = SignalingSamples.sdp
    static let alice = "PA0000000000000000000000000000000a"
    static let bob = "PA0000000000000000000000000000000b"
    static let track = "MT0000000000000000000000000000000b"
    static let mic = RoomTrackInfo(mid: "0", name: "mic", kind: .audio)
    static let camera = RoomTrackInfo(mid: "1", name: "camera", kind: .video, priority: .high, enabled: false)
    static let bobInfo = RoomParticipantInfo(sid: bob, identity: "bob", state: .reconnecting,
                                             tracks: [RoomTrackInfo(sid: track, name: "mic", kind: .audio, priority: .low)])
    static let aliceInfo = RoomParticipantInfo(sid: alice, identity: "alice")
    static let published = [RoomPublishedTrack(mid: "0", trackSid: "MT1")]
    static let subscriptions = [RoomSubscription(mid: "2", trackSid: track, participantSid: bob)]

    static let all: [SignalingEnvelope] = [
        SignalingEnvelope(id: "j1", message: .roomJoin(RoomJoin(room: "standup", offer: sdp, tracks: [mic, camera],
                                                                automaticSubscription: false, dominantSpeaker: true,
                                                                networkQuality: false, reconnectParticipantSid: alice))),
        SignalingEnvelope(.roomJoin(RoomJoin(offer: sdp))),
        SignalingEnvelope(.roomJoin(RoomJoin(offer: sdp, bandwidthProfile: RoomBandwidthProfile(
            mode: .collaboration, maxSubscriptionBitrate: 2_500_000, dominantSpeakerPriority: .high, trackSwitchOffMode: .disabled,
            renderDimensions: [.low: .init(width: 320, height: 180), .high: .init(width: 1280, height: 720)])))),
        SignalingEnvelope(.roomJoin(RoomJoin(offer: sdp, bandwidthProfile: RoomBandwidthProfile()))),
        SignalingEnvelope(id: "o1", message: .roomOffer(RoomOffer(offer: sdp, tracks: [mic]))),
        SignalingEnvelope(.roomOffer(RoomOffer(offer: sdp))),
        SignalingEnvelope(.roomTrackEnabled(RoomTrackEnabled(trackSid: "MT1", enabled: false))),
        SignalingEnvelope(.roomSubscribe(RoomTrackReference(trackSid: track))),
        SignalingEnvelope(.roomUnsubscribe(RoomTrackReference(trackSid: track))),
        SignalingEnvelope(id: "l1", message: .roomLeave),
        SignalingEnvelope(ref: "j1", message: .roomJoined(RoomJoined(
            room: RoomInfo(sid: "RM1", name: "standup", type: .groupSmall, isRecording: true),
            participant: aliceInfo, participants: [bobInfo], answer: sdp, published: published, subscriptions: subscriptions))),
        SignalingEnvelope(.roomJoined(RoomJoined(room: RoomInfo(sid: "RM2", name: "p2p", type: .peerToPeer),
                                                 participant: aliceInfo, answer: sdp))),
        SignalingEnvelope(ref: "o1", message: .roomAnswer(RoomAnswer(answer: sdp, published: published, subscriptions: subscriptions))),
        SignalingEnvelope(.roomAnswer(RoomAnswer(answer: sdp))),
        SignalingEnvelope(.roomRenegotiate(RoomRenegotiate(audio: 1, video: 64))),
        SignalingEnvelope(.roomParticipantConnected(RoomParticipantConnected(participant: bobInfo))),
        SignalingEnvelope(.roomParticipantDisconnected(RoomParticipantReference(participantSid: bob))),
        SignalingEnvelope(.roomParticipantReconnecting(RoomParticipantReference(participantSid: bob))),
        SignalingEnvelope(.roomParticipantReconnected(RoomParticipantReference(participantSid: bob))),
        SignalingEnvelope(.roomTrackPublished(RoomTrackPublished(participantSid: bob, track: RoomTrackInfo(sid: track, name: "cam", kind: .data)))),
        SignalingEnvelope(.roomTrackUnpublished(RoomTrackUnpublished(participantSid: bob, trackSid: track))),
        SignalingEnvelope(.roomTrackChanged(RoomTrackChanged(participantSid: bob, trackSid: track, enabled: true))),
        SignalingEnvelope(.roomSubscribed(RoomSubscribed(trackSid: track, mid: "2", participantSid: bob))),
        SignalingEnvelope(.roomUnsubscribed(RoomTrackReference(trackSid: track))),
        SignalingEnvelope(.roomSubscriptionFailed(RoomSubscriptionFailed(trackSid: track, code: 53400, message: "no such track"))),
        SignalingEnvelope(.roomTrackSwitchedOff(RoomTrackReference(trackSid: track))),
        SignalingEnvelope(.roomTrackSwitchedOn(RoomTrackReference(trackSid: track))),
        SignalingEnvelope(.roomDominantSpeaker(RoomDominantSpeaker(participantSid: bob))),
        SignalingEnvelope(.roomDominantSpeaker(RoomDominantSpeaker(participantSid: nil))),
        SignalingEnvelope(.roomNetworkQuality(RoomNetworkQuality(levels: [RoomNetworkQualityLevel(participantSid: bob, level: 0),
                                                                         RoomNetworkQualityLevel(participantSid: alice, level: 5)]))),
        SignalingEnvelope(.roomNetworkQuality(RoomNetworkQuality(levels: []))),
        SignalingEnvelope(.roomRecording(RoomRecording(isRecording: true))),
        SignalingEnvelope(.roomDisconnected(RoomDisconnected(code: 53118, message: "Room completed"))),
    ]
}
