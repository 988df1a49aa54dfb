@testable import ParleyVideo
import Signaling
import Testing

/// The client's view of its room, message by message (docs/signaling.md §12): what the app hears
/// and in which order, and messages that do not fit what is known changing nothing.
@Suite struct RoomModelTests {
    static func track(_ sid: String, _ kind: RoomTrackKind, enabled: Bool = true) -> RoomTrackInfo {
        RoomTrackInfo(sid: sid, name: "\(kind.rawValue)-\(sid)", kind: kind, enabled: enabled)
    }

    static let alice = RoomParticipantInfo(sid: "PAa", identity: "alice", tracks: [track("MTa1", .audio), track("MTa2", .video)])

    static func joined(_ others: [RoomParticipantInfo], subscriptions: [RoomSubscription] = []) -> SignalingMessage {
        .roomJoined(RoomJoined(room: RoomInfo(sid: "RM1", name: "stand-up", type: .group, isRecording: true),
                               participant: RoomParticipantInfo(sid: "PAme", identity: "me"), participants: others,
                               answer: "v=0", published: [RoomPublishedTrack(mid: "0", trackSid: "MTme")],
                               subscriptions: subscriptions))
    }

    @Test func joiningListsWhoIsThereAndWhatWeReceive() {
        var model = RoomModel()
        #expect(model.apply(.roomParticipantConnected(RoomParticipantConnected(participant: Self.alice))) == [],
                "nothing before room.joined")
        let changes = model.apply(Self.joined([Self.alice], subscriptions: [RoomSubscription(mid: "2", trackSid: "MTa1", participantSid: "PAa")]))
        #expect(changes == [.connected, .subscribed(participantSid: "PAa", trackSid: "MTa1", mid: "2")])
        #expect(model.room?.name == "stand-up" && model.localSid == "PAme" && model.isRecording)
        #expect(model.participants.map(\.identity) == ["alice"] && model.published == ["0": "MTme"])
        #expect(model.apply(Self.joined([])) == [], "a second room.joined changes nothing")
    }

    @Test func participantsAndTheirTracksComeAndGoInOrder() {
        var model = RoomModel()
        _ = model.apply(Self.joined([]))
        #expect(model.apply(.roomParticipantConnected(RoomParticipantConnected(participant: Self.alice))) == [.participantConnected(sid: "PAa")])
        #expect(model.apply(.roomParticipantConnected(RoomParticipantConnected(participant: Self.alice))) == [], "known already")
        #expect(model.apply(.roomSubscribed(RoomSubscribed(trackSid: "MTa2", mid: "3", participantSid: "PAa")))
                == [.subscribed(participantSid: "PAa", trackSid: "MTa2", mid: "3")])
        #expect(model.apply(.roomTrackPublished(RoomTrackPublished(participantSid: "PAa", track: Self.track("MTa3", .data))))
                == [.trackPublished(participantSid: "PAa", trackSid: "MTa3")])
        #expect(model.apply(.roomTrackPublished(RoomTrackPublished(participantSid: "PAx", track: Self.track("MTx", .audio)))) == [],
                "a track of nobody we know")
        #expect(model.apply(.roomTrackChanged(RoomTrackChanged(participantSid: "PAa", trackSid: "MTa2", enabled: false)))
                == [.trackEnabled(participantSid: "PAa", trackSid: "MTa2", false)])
        #expect(model.apply(.roomTrackChanged(RoomTrackChanged(participantSid: "PAa", trackSid: "MTa2", enabled: false))) == [])
        #expect(model.apply(.roomTrackSwitchedOff(RoomTrackReference(trackSid: "MTa2")))
                == [.trackSwitched(participantSid: "PAa", trackSid: "MTa2", off: true)])
        #expect(model.apply(.roomTrackUnpublished(RoomTrackUnpublished(participantSid: "PAa", trackSid: "MTa3")))
                == [.trackUnpublished(participantSid: "PAa", trackSid: "MTa3")])
        #expect(model.apply(.roomDominantSpeaker(RoomDominantSpeaker(participantSid: "PAa"))) == [.dominantSpeakerChanged(sid: "PAa")])
        #expect(model.apply(.roomDominantSpeaker(RoomDominantSpeaker(participantSid: "PAzz"))) == [], "an unknown speaker")
        #expect(model.apply(.roomParticipantReconnecting(RoomParticipantReference(participantSid: "PAa"))) == [.participantReconnecting(sid: "PAa")])
        #expect(model.apply(.roomParticipantReconnected(RoomParticipantReference(participantSid: "PAa"))) == [.participantReconnected(sid: "PAa")])
        // Leaving ends its subscriptions first, and its being the dominant speaker.
        #expect(model.apply(.roomParticipantDisconnected(RoomParticipantReference(participantSid: "PAa")))
                == [.unsubscribed(participantSid: "PAa", trackSid: "MTa2"), .dominantSpeakerChanged(sid: nil),
                    .participantDisconnected(sid: "PAa")])
        #expect(model.participants.isEmpty && model.subscriptions.isEmpty)
    }

    @Test func qualityRecordingRenegotiationAndTheEnd() {
        var model = RoomModel()
        _ = model.apply(Self.joined([Self.alice]))
        let levels = RoomNetworkQuality(levels: [RoomNetworkQualityLevel(participantSid: "PAme", level: 4),
                                                 RoomNetworkQualityLevel(participantSid: "PAa", level: 9),
                                                 RoomNetworkQualityLevel(participantSid: "PAnobody", level: 2)])
        #expect(model.apply(.roomNetworkQuality(levels)) == [.networkQualityLevel(participantSid: "PAme", 4),
                                                             .networkQualityLevel(participantSid: "PAa", 5)])
        #expect(model.apply(.roomNetworkQuality(levels)) == [], "unchanged levels")
        #expect(model.apply(.roomRecording(RoomRecording(isRecording: false))) == [.recording(false)])
        #expect(model.apply(.roomRenegotiate(RoomRenegotiate(audio: 1, video: 2))) == [.renegotiate(audio: 1, video: 2)])
        #expect(model.apply(.roomAnswer(RoomAnswer(answer: "v=0", published: [RoomPublishedTrack(mid: "1", trackSid: "MTcam")],
                                                   subscriptions: [RoomSubscription(mid: "4", trackSid: "MTa2", participantSid: "PAa")])))
                == [.subscribed(participantSid: "PAa", trackSid: "MTa2", mid: "4")])
        #expect(model.published == ["0": "MTme", "1": "MTcam"])
        #expect(model.apply(.roomDisconnected(RoomDisconnected(code: 53118, message: "Room completed")))
                == [.disconnected(code: 53118, message: "Room completed")])
        #expect(model.apply(.roomParticipantDisconnected(RoomParticipantReference(participantSid: "PAa"))) == [], "nothing after the end")
    }
}

/// The seed's `BandwidthProfileOptions` as `room.join` carries them.
@Suite struct BandwidthProfileOptionsTests {
    @Test func theOptionsBecomeTheJoinsBandwidthProfile() {
        var options = BandwidthProfileOptions(mode: .collaboration, maxSubscriptionBitrate: 1_200_000, dominantSpeakerPriority: .high,
                                              trackSwitchOffMode: .predicted)
        options.renderDimensions = [.low: (160, 90), .high: (1280, 720)]
        #expect(options.wire == RoomBandwidthProfile(mode: .collaboration, maxSubscriptionBitrate: 1_200_000, dominantSpeakerPriority: .high,
                                                     trackSwitchOffMode: .predicted,
                                                     renderDimensions: [.low: .init(width: 160, height: 90), .high: .init(width: 1280, height: 720)]))
        #expect(BandwidthProfileOptions().wire == RoomBandwidthProfile())
    }
}
