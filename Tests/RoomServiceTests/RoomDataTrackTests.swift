import ParleyCore
import ParleyStore
import ParleyTestSupport
import RoomService
import SFU
import Signaling
import Testing

/// Data tracks over the media-plane twin: a described data track is published at once and gets
/// its source when the publisher opens a data channel of its name; subscribers with a data channel
/// section receive it on a channel labelled with its SID (`room.subscribed` names the section), as
/// their subscriptions and rules decide; closing the channel unpublishes it.
@Suite struct RoomDataTrackTests {
    typealias Fixture = RoomSessionTests.Fixture

    static let chat = RoomTrackInfo(name: "chat", kind: .data)

    @Test func aDataTrackIsRoutedOnceItsChannelOpensAndFollowsSubscriptions() async throws {
        let f = try Fixture()
        defer { f.close() }
        let (alice, bob, carol) = (RecordingLink(), RecordingLink(), RecordingLink())
        let a = try await f.connect("alice", alice, offer: RoomMediaTwin.offer("send audio 0", "data 1"),
                                    tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio), Self.chat])
        let chatSid = RoomSessionTests.sid(a, "chat")
        #expect(a.participant.tracks.map(\.kind) == [.audio, .data] && a.published.map(\.mid) == ["0"])
        let published = await f.service.publishedTracks(participantSid: a.participant.sid)
        #expect(published.map(\.kind) == [.audio, .data] && published.last?.name == "chat")

        // bob receives audio and data; carol has no data channel section.
        let b = try await f.connect("bob", bob, offer: RoomMediaTwin.offer("recv audio 0", "data 1"), tracks: [])
        let c = try await f.connect("carol", carol, offer: RoomMediaTwin.offer("recv audio 0"), tracks: [])
        #expect(b.participants[0].tracks.map(\.sid).contains(chatSid))
        #expect(b.subscriptions.map(\.trackSid) == [RoomSessionTests.sid(a, "mic")], "no channel yet: nothing to route")
        #expect(f.media.dataRouteLog.isEmpty)
        _ = (bob.take(), carol.take())

        // alice opens the channel: bob's subscription is routed into a channel labelled with the SID.
        f.media.fire(.dataChannelOpened(session: "S1", label: "chat"), session: "S1")
        await f.service.settle()
        #expect(f.media.dataRouteLog == ["S1/chat⇒S2/\(chatSid)"])
        #expect(bob.take() == [.roomSubscribed(RoomSubscribed(trackSid: chatSid, mid: "1", participantSid: a.participant.sid))])
        #expect(carol.take().isEmpty, "no data channel section: no data subscription, no renegotiate")
        #expect(await f.service.subscribedTracks(roomSid: a.room.sid, participantSid: b.participant.sid)?.map(\.kind) == [.audio, .data])
        // A channel that names no data track of hers changes nothing.
        f.media.fire(.dataChannelOpened(session: "S1", label: "other"), session: "S1")
        await f.service.settle()
        #expect(f.media.dataRouteLog.count == 1 && bob.take().isEmpty)

        // Unsubscribing closes bob's channel; subscribing again opens one.
        await f.service.unsubscribe(participantSid: b.participant.sid, trackSid: chatSid, ref: "u1")
        await f.service.settle()
        #expect(f.media.dataRouteLog.last == "-⇒S2/\(chatSid)")
        #expect(bob.take() == [.roomUnsubscribed(RoomTrackReference(trackSid: chatSid))] && bob.refs.last == "u1")
        await f.service.subscribe(participantSid: b.participant.sid, trackSid: chatSid, ref: "s1")
        await f.service.settle()
        #expect(f.media.dataRouteLog.last == "S1/chat⇒S2/\(chatSid)")
        #expect(bob.take() == [.roomSubscribed(RoomSubscribed(trackSid: chatSid, mid: "1", participantSid: a.participant.sid))])

        // Subscribe rules that exclude data take it away.
        let rules = SubscribeRules(rules: [.init(action: .include, all: true), .init(action: .exclude, kind: "data")])
        _ = await f.service.updateSubscribeRules(roomSid: a.room.sid, participantSid: b.participant.sid, rules)
        await f.service.settle()
        #expect(f.media.dataRouteLog.last == "-⇒S2/\(chatSid)")
        _ = await f.service.updateSubscribeRules(roomSid: a.room.sid, participantSid: b.participant.sid, .subscribeAll)
        await f.service.settle()
        #expect(f.media.dataRouteLog.last == "S1/chat⇒S2/\(chatSid)")
        _ = bob.take()

        // alice closes the channel: the track is unpublished, bob unsubscribed first.
        f.media.fire(.dataChannelClosed(session: "S1", label: "chat"), session: "S1")
        await f.service.settle()
        #expect(f.media.dataRouteLog.last == "-⇒S2/\(chatSid)")
        #expect(bob.take() == [.roomUnsubscribed(RoomTrackReference(trackSid: chatSid)),
                               .roomTrackUnpublished(RoomTrackUnpublished(participantSid: a.participant.sid, trackSid: chatSid))])
        #expect(await f.service.publishedTracks(participantSid: a.participant.sid).map(\.kind) == [.audio])
        _ = c
    }

    @Test func aChannelOpenBeforeTheTrackIsPublishedIsItsSource() async throws {
        let f = try Fixture()
        defer { f.close() }
        let (alice, bob) = (RecordingLink(), RecordingLink())
        let a = try await f.connect("alice", alice, offer: RoomMediaTwin.offer("send audio 0", "data 1"),
                                    tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio)])
        let b = try await f.connect("bob", bob, offer: RoomMediaTwin.offer("recv audio 0", "data 1"), tracks: [])
        // The channel first, then the track in a re-offer (browsers open channels without one).
        f.media.fire(.dataChannelOpened(session: "S1", label: "chat"), session: "S1")
        await f.service.settle()
        let answer = try await f.service.renegotiate(participantSid: a.participant.sid,
                                                     offer: RoomMediaTwin.offer("send audio 0", "data 1"), tracks: [Self.chat])
        await f.service.settle()
        let chatSid = try #require(await f.service.publishedTracks(participantSid: a.participant.sid).first { $0.kind == .data }?.sid)
        #expect(answer.published.map(\.mid) == ["0"])
        #expect(f.media.dataRouteLog == ["S1/chat⇒S2/\(chatSid)"])
        #expect(bob.take().suffix(2) == [
            .roomTrackPublished(RoomTrackPublished(participantSid: a.participant.sid, track: RoomTrackInfo(sid: chatSid, name: "chat", kind: .data))),
            .roomSubscribed(RoomSubscribed(trackSid: chatSid, mid: "1", participantSid: a.participant.sid)),
        ])
        // Describing it again in a later offer publishes nothing more.
        _ = try await f.service.renegotiate(participantSid: a.participant.sid,
                                            offer: RoomMediaTwin.offer("send audio 0", "data 1"), tracks: [Self.chat])
        #expect(await f.service.publishedTracks(participantSid: a.participant.sid).count == 2)
        _ = b
    }

    @Test func aDataTrackNeedsADataChannelSection() async throws {
        let f = try Fixture()
        defer { f.close() }
        await #expect(throws: ParleyError.self) {
            _ = try await f.connect("alice", RecordingLink(), offer: RoomMediaTwin.offer("send audio 0"),
                                    tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio), Self.chat])
        }
        do {
            _ = try await f.connect("alice", RecordingLink(), offer: RoomMediaTwin.offer("send audio 0"), tracks: [Self.chat])
        } catch {
            #expect(error.code == .trackInvalid)
        }
        await f.service.settle()
        #expect(f.media.closed.count == 2, "the refused sessions are closed")
    }
}
