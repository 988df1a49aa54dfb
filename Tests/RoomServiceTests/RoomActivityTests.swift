import ParleyCore
import ParleyTestClock
import ParleyTestSupport
import RoomService
import Signaling
import Testing

/// Dominant speaker and network quality over a media-plane twin in virtual time: audio levels
/// every 100 ms and path figures once a second, as the SFU reports them; what each participant
/// that asked is sent (and that the others are sent nothing).
@Suite struct RoomActivityTests {
    typealias Fixture = RoomSessionTests.Fixture

    static func speakers(_ link: RecordingLink) -> [String?] {
        link.take().compactMap { if case .roomDominantSpeaker(let s) = $0 { s.participantSid } else { nil } }
    }

    static func levels(_ link: RecordingLink) -> [[RoomNetworkQualityLevel]] {
        link.take().compactMap { if case .roomNetworkQuality(let q) = $0 { q.levels } else { nil } }
    }

    @Test func theLoudestTakesTheFloorPastTheHoldTimeAndOnlyThoseWhoAskedHearOfIt() async throws {
        let f = try Fixture()
        let (alice, bob, carol) = (RecordingLink(), RecordingLink(), RecordingLink())
        let a = try await f.connect("alice", alice, speaker: true)
        let b = try await f.connect("bob", bob, speaker: true)
        _ = try await f.connect("carol", carol)
        let (aSid, bSid) = (a.participant.sid, b.participant.sid)
        _ = (alice.take(), bob.take(), carol.take())

        // Bob speaks (a 0.5-amplitude tone reads 9 dBov), alice and carol are silent.
        await f.speak(["S1": 127, "S2": 9, "S3": 127], for: 500)
        #expect(Self.speakers(alice) == [bSid] && Self.speakers(bob) == [bSid])
        // Alice interrupts louder for 300 ms, then is quiet: under the hold time, bob keeps it.
        await f.speak(["S1": 0, "S2": 9, "S3": 127], for: 300)
        await f.speak(["S1": 127, "S2": 9, "S3": 127], for: 500)
        #expect(Self.speakers(alice).isEmpty && Self.speakers(bob).isEmpty)
        // Bob falls silent and alice speaks: once bob has been silent for the hold time, she has it.
        await f.speak(["S1": 9, "S2": 127, "S3": 127], for: 2000)
        #expect(Self.speakers(alice) == [aSid] && Self.speakers(bob) == [aSid])

        // A late joiner that asks is told who speaks right after room.joined.
        let dave = RecordingLink()
        _ = try await f.connect("dave", dave, speaker: true)
        #expect(dave.take().dropFirst().first == .roomDominantSpeaker(RoomDominantSpeaker(participantSid: aSid)))

        // Everyone falls silent, then alice leaves: the floor goes to nobody.
        await f.speak(["S1": 127, "S2": 127, "S3": 127, "S4": 127], for: 1500)
        await f.service.leave(participantSid: aSid)
        await f.service.settle()
        #expect(Self.speakers(bob) == [nil] && Self.speakers(dave) == [nil])
        #expect(Self.speakers(carol).isEmpty, "carol did not ask")
        f.close()
    }

    @Test func levelsAreSentOnChangeAtMostOnceASecondToThoseWhoAsked() async throws {
        let f = try Fixture()
        let (alice, bob) = (RecordingLink(), RecordingLink())
        let a = try await f.connect("alice", alice, quality: true)
        let b = try await f.connect("bob", bob)
        let (aSid, bSid) = (a.participant.sid, b.participant.sid)
        _ = (alice.take(), bob.take())

        // A clean path is excellent (5); the same figures again change nothing.
        await f.report("S1", loss: 0)
        #expect(Self.levels(alice) == [[RoomNetworkQualityLevel(participantSid: aSid, level: 5)]])
        await f.report("S1", loss: 0)
        #expect(Self.levels(alice).isEmpty)
        // Bob's path loses 30 %: alice hears of his level a second after her last report.
        await f.report("S2", loss: 0.3)
        #expect(Self.levels(alice).isEmpty, "within a second of the last one")
        let sent = alice.messages.count
        f.clock.advance(by: .seconds(1))  // the send's deadline: due now, even if its timer is not asleep yet
        for _ in 0..<5_000 where alice.messages.count == sent { try await Task.sleep(for: .milliseconds(1)) }
        await f.service.settle()
        let bobs = Self.levels(alice)
        #expect(bobs.count == 1 && bobs.first?.map(\.participantSid) == [bSid])
        #expect((bobs.first?.first?.level ?? 5) < 3, "\(bobs)")
        // Alice's own path degrades more than a second later: sent at once, her level lower.
        f.clock.advance(by: .seconds(1))
        await f.report("S1", loss: 0.1)
        let mine = Self.levels(alice)
        #expect(mine.count == 1 && mine.first?.map(\.participantSid) == [aSid])
        #expect((mine.first?.first?.level ?? 5) < 5, "\(mine)")
        #expect(Self.levels(bob).isEmpty, "bob did not ask")
        f.close()
    }
}

extension RoomSessionTests.Fixture {
    /// Joins with a mic in section 0 and an audio slot in section 1.
    func connect(_ identity: String, _ link: RecordingLink, speaker: Bool = false,
                 quality: Bool = false) async throws(ParleyError) -> RoomJoined {
        try await connect(identity, link, offer: RoomMediaTwin.offer("send audio 0", "recv audio 1"),
                          tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio)], speaker: speaker, quality: quality)
    }

    /// Each session's mic at its level (dBov) every 100 ms of virtual time for `milliseconds`.
    func speak(_ levels: [String: UInt8], for milliseconds: Int) async {
        for _ in 0..<milliseconds / 100 {
            clock.advance(by: .milliseconds(100))
            for (session, level) in levels.sorted(by: { $0.key < $1.key }) {
                media.fire(.audioLevel(session: session, mid: "0", level: level), session: session)
            }
            await service.settle()
        }
    }

    /// The session's path figures: 20 ms round trip, 2 ms jitter, `loss` of what it sends.
    func report(_ session: String, loss: Double) async {
        media.fire(.quality(session: session, RoomMediaQuality(uplinkLoss: loss, downlinkLoss: 0,
                                                               roundTripTime: .milliseconds(20), jitter: 0.002,
                                                               downlinkBitrateEstimate: nil)), session: session)
        await service.settle()
    }
}

extension RoomActivityTests {
    /// A downlink that carries less than its subscriptions want lowers the level (Twilio's
    /// bandwidth part): 30 % of what the largest layers take is level 1 on a clean path.
    @Test func aNarrowDownlinkLowersTheLevel() async throws {
        let f = try Fixture()
        let alice = RecordingLink()
        let a = try await f.connect("alice", alice, quality: true)
        _ = alice.take()
        f.media.fire(.quality(session: "S1", RoomMediaQuality(uplinkLoss: 0, downlinkLoss: 0, roundTripTime: .milliseconds(20),
                                                              jitter: 0.002, downlinkBitrateEstimate: 300_000,
                                                              downlinkBitrateWanted: 1_000_000)), session: "S1")
        await f.service.settle()
        #expect(Self.levels(alice) == [[RoomNetworkQualityLevel(participantSid: a.participant.sid, level: 1)]])
        f.close()
    }
}
