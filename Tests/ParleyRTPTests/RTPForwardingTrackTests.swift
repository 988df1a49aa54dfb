import ParleyRTP
import RTP
import Testing

/// The forwarding decisions of one outgoing track, as pure values on a virtual clock (seconds).
@Suite struct RTPForwardingTrackTests {
    func audioTrack(event: UInt8? = 101) -> RTPForwardingTrack {
        RTPForwardingTrack(ssrc: 0x5151, kind: .audio, clockRate: 48_000, mediaPayloadType: 109,
                           telephoneEventPayloadType: event, initialSequence: 500, initialTimestamp: 10_000)
    }

    func header(_ decision: RTPForwardingTrack.Decision) -> RTPHeaderUpdate? {
        if case .send(let update) = decision { return update }
        return nil
    }

    @Test func audioIsRewrittenToTheTrackAndMarkedWhereTheStreamResynchronises() throws {
        var track = audioTrack()
        let first = try #require(header(track.forward(ssrc: 7, sequenceNumber: 40, timestamp: 99, marker: false,
                                                      kind: .audio, now: 0)))
        #expect(first == RTPHeaderUpdate(ssrc: 0x5151, sequenceNumber: 500, timestamp: 10_000, payloadType: 109, marker: true))
        let second = try #require(header(track.forward(ssrc: 7, sequenceNumber: 41, timestamp: 99 + 960, marker: false,
                                                       kind: .audio, now: 0.02)))
        #expect(second == RTPHeaderUpdate(ssrc: 0x5151, sequenceNumber: 501, timestamp: 10_960, payloadType: 109, marker: false))
        // The source's own marker carries over.
        #expect(header(track.forward(ssrc: 7, sequenceNumber: 42, timestamp: 99 + 1920, marker: true, kind: .audio,
                                     now: 0.04))?.marker == true)
        // A new source: continuous numbering, marked.
        track.sourceChanged()
        let switched = try #require(header(track.forward(ssrc: 8, sequenceNumber: 9_000, timestamp: 5, marker: false,
                                                         kind: .audio, now: 0.06)))
        #expect(switched.sequenceNumber == 503 && switched.marker && switched.timestamp == 10_000 + 1920 + 960)
    }

    @Test func telephoneEventsTakeTheTrackEventTypeAndKeepTheirMarker() throws {
        var track = audioTrack()
        _ = track.forward(ssrc: 7, sequenceNumber: 1, timestamp: 0, marker: false, kind: .audio, now: 0)
        let event = try #require(header(track.forward(ssrc: 7, sequenceNumber: 2, timestamp: 960, marker: false,
                                                      kind: .telephoneEvent, now: 0.02)))
        #expect(event.payloadType == 101 && !event.marker && event.sequenceNumber == 501)
        // Resynchronising on an event does not set the marker (RFC 4733 §2.5.1.3 gives it its own meaning).
        track.sourceChanged()
        let resync = try #require(header(track.forward(ssrc: 7, sequenceNumber: 3, timestamp: 960, marker: false,
                                                       kind: .telephoneEvent, now: 0.04)))
        #expect(!resync.marker && resync.sequenceNumber == 502)
    }

    @Test func refusedPacketsDoNotAdvanceTheStream() {
        var track = audioTrack(event: nil)
        #expect(track.forward(ssrc: 7, sequenceNumber: 1, timestamp: 0, marker: false, kind: .telephoneEvent, now: 0)
                == .drop(.noTelephoneEvent))
        #expect(track.forward(ssrc: 7, sequenceNumber: 1, timestamp: 0, marker: false, kind: .video, now: 0)
                == .drop(.wrongKind))
        #expect(track.munger.lastSentAt == nil)
        #expect(header(track.forward(ssrc: 7, sequenceNumber: 1, timestamp: 0, marker: false, kind: .audio,
                                     now: 0))?.sequenceNumber == 500)
    }

    @Test func videoKeepsItsFrameMarkerAcrossAResynchronisation() throws {
        var track = RTPForwardingTrack(ssrc: 0x7777, kind: .video, clockRate: 90_000, mediaPayloadType: 96,
                                       initialSequence: 0, initialTimestamp: 0)
        let first = try #require(header(track.forward(ssrc: 1, sequenceNumber: 10, timestamp: 3_000, marker: false,
                                                      kind: .video, now: 0)))
        #expect(!first.marker && first.payloadType == 96)  // not the end of a frame
        #expect(track.forward(ssrc: 1, sequenceNumber: 11, timestamp: 3_000, marker: false, kind: .audio, now: 0)
                == .drop(.wrongKind))
    }

    @Test func playedFramesAndHeadersOnTheWire() throws {
        var track = audioTrack()
        let played = track.play(samples: 960, now: 1)
        #expect(played == RTPHeaderUpdate(ssrc: 0x5151, sequenceNumber: 500, timestamp: 10_000, payloadType: 109, marker: true))
        var bytes = [UInt8](repeating: 0xEE, count: 16)
        bytes.withUnsafeMutableBytes { played.write(to: $0.baseAddress!) }
        #expect(Array(bytes[0..<12]) == [0x80, 0x80 | 109, 0x01, 0xF4, 0, 0, 0x27, 0x10, 0, 0, 0x51, 0x51])
        // `apply` rewrites a packet in place, leaving its payload alone.
        let next = track.play(samples: 960, now: 1.02)
        try bytes.withUnsafeMutableBytes { raw in next.apply(to: try RTPHeaderRewriter(raw)) }
        let fields = try bytes.withUnsafeBytes { raw in
            let view = try RTPPacketView(raw)
            return (view.sequenceNumber, view.timestamp, view.marker, view.ssrc)
        }
        #expect(fields == (501, 10_960, false, 0x5151))
        #expect(Array(bytes[12...]) == [0xEE, 0xEE, 0xEE, 0xEE])
    }
}
