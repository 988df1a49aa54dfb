import ParleyCore
import ParleyTestSupport
import RoomService
import SFU
import Signaling
import Testing

/// Bandwidth profiles through the room service, over a media-plane twin: the profile a
/// subscriber joined with reaches its session, each slot is routed with its track's priority
/// (raised to the profile's dominant-speaker priority while its publisher holds the floor), and a
/// slot the media plane switches off or on is `room.trackSwitchedOff` / `On` to its subscriber.
@Suite struct RoomBandwidthTests {
    typealias Fixture = RoomSessionTests.Fixture

    static func connect(_ f: Fixture, _ identity: String, _ link: RecordingLink, camera: RoomTrackPriority,
                        bandwidth: RoomBandwidthProfile? = nil) async throws -> RoomJoined {
        try await f.connect(identity, link, offer: RoomMediaTwin.offer("send audio 0", "send video 1", "recv audio 2", "recv video 3",
                                                                      "recv audio 4", "recv video 5"),
                            tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio),
                                     RoomTrackInfo(mid: "1", name: "camera", kind: .video, priority: camera)],
                            speaker: true, bandwidth: bandwidth)
    }

    @Test func profilesReachTheSessionAndSlotsCarryTheirPriorities() async throws {
        let f = try Fixture()
        let (alice, bob, carol) = (RecordingLink(), RecordingLink(), RecordingLink())
        let profile = RoomBandwidthProfile(mode: .presentation, maxSubscriptionBitrate: 500_000, dominantSpeakerPriority: .high,
                                           trackSwitchOffMode: .detected,
                                           renderDimensions: [.low: .init(width: 320, height: 180)])
        let a = try await Self.connect(f, "alice", alice, camera: .standard, bandwidth: profile)
        let b = try await Self.connect(f, "bob", bob, camera: .low)
        _ = try await Self.connect(f, "carol", carol, camera: .high)
        #expect(f.media.profiles == ["S1": BandwidthProfile(mode: .presentation, maxSubscriptionBitrate: 500_000,
                                                            dominantSpeakerPriority: .high, trackSwitchOffMode: .detected,
                                                            renderDimensions: [.low: .init(width: 320, height: 180)])])
        // Alice's video slots: bob's camera (low) and carol's (high), each with its priority.
        func alicesVideo() -> [String: TrackPriority] {
            var last: [String: TrackPriority] = [:]
            for route in f.media.routes where route.slot.session == "S1" && ["3", "5"].contains(route.slot.mid) {
                last[route.source?.session ?? "-"] = route.priority
            }
            return last
        }
        #expect(alicesVideo() == ["S2": .low, "S3": .high])
        // Bob speaks: his camera counts high for alice (her profile's dominant speaker priority);
        // bob's own slots keep the default profile (standard), so carol's high camera stays high.
        await f.speak(bob: 9, for: 500)
        #expect(alicesVideo() == ["S2": .high, "S3": .high])
        let bobsRoutes = f.media.routes.filter { $0.slot.session == "S2" && $0.source == RoomTrackAddress(session: "S3", mid: "1") }
        #expect(bobsRoutes.map(\.priority) == [.high])
        // Carol speaks next: bob's camera is low again for alice.
        await f.speak(carol: 9, for: 2500)
        #expect(alicesVideo() == ["S2": .low, "S3": .high])

        // The media plane switches alice's slot with bob's camera off, then on.
        let bobsCamera = try #require(a.subscriptions.first { $0.mid == "3" }?.trackSid
                                      ?? alice.messages.compactMap { message -> String? in
                                          if case .roomSubscribed(let s) = message, s.mid == "3" { s.trackSid } else { nil }
                                      }.first)
        _ = alice.take()
        f.media.fire(.trackSwitched(session: "S1", mid: "3", off: true), session: "S1")
        f.media.fire(.trackSwitched(session: "S1", mid: "3", off: false), session: "S1")
        await f.service.settle()
        #expect(alice.take().filter { if case .roomDominantSpeaker = $0 { false } else { true } }
                == [.roomTrackSwitchedOff(RoomTrackReference(trackSid: bobsCamera)),
                    .roomTrackSwitchedOn(RoomTrackReference(trackSid: bobsCamera))])
        #expect(b.participant.identity == "bob")
        f.close()
    }
}

extension RoomSessionTests.Fixture {
    /// One participant's mic (session S2 bob, S3 carol) at `level` dBov, the others silent, every
    /// 100 ms for `milliseconds` of virtual time.
    func speak(bob: UInt8 = 127, carol: UInt8 = 127, for milliseconds: Int) async {
        await speak(["S1": 127, "S2": bob, "S3": carol], for: milliseconds)
    }
}
