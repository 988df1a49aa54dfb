import Foundation
import ParleyCore
import ParleyNet
import ParleyOpus
import ParleyStore
import ParleyTestClock
import ParleyTestSupport
import PlatformCore
import RoomService
import ServerMedia
import Signaling
import Testing
import VideoREST

/// A room's mixed audio over a media-plane twin and a running media clock: published audio
/// tracks are tapped and decoded (real Opus), summed and encoded once for the listeners' reserved
/// slots; the tap is shared with a recording; the mix ends with its last listener.
@Suite struct RoomMixTests {
    struct Fixture: Sendable {
        let store = InMemoryAccountStore()
        let media = RoomMediaTwin()
        let clock = MediaClock(name: "room-mix-test")
        let http: HTTPClient
        let service: RoomService
        let accountSid: String

        init(mixes: Bool = true, recordTo directory: String? = nil) throws {
            accountSid = try store.ensureDefaultAccount().account.sid
            http = try HTTPClient()
            var configuration = RoomService.Configuration()
            configuration.clock = VirtualClock()
            if mixes { configuration.mixClock = clock }
            configuration.recordingsDirectory = directory
            configuration.remux = { _, _ in 0 }
            service = RoomService(store: store, webhooks: WebhookClient(http: http), media: media, configuration: configuration)
            clock.start()
        }

        func connect(_ identity: String, offer: String, tracks: [RoomTrackInfo] = [], automatic: Bool = true,
                     permissions: RoomPermissions = .all) async throws -> RoomJoined {
            let joined = try await service.connect(accountSid: accountSid, identity: identity, room: "stage", offer: offer,
                                                   tracks: tracks, automaticSubscription: automatic, permissions: permissions,
                                                   link: RecordingLink())
            await service.settle()
            return joined
        }

        /// Sends `count` 20 ms Opus frames of a `frequency` Hz tone into the tap of `section`, in
        /// real time (the mixer takes one a tick).
        func speak(_ section: RoomTrackAddress, frequency: Double, count: Int) async throws {
            let encoder = try OpusEncoder()
            var pcm = [Int16](repeating: 0, count: 960)
            var out = [UInt8](repeating: 0, count: 1500)
            for i in 0..<count {
                for n in 0..<960 {
                    pcm[n] = Int16(8_000 * sin(2 * Double.pi * frequency * Double(i * 960 + n) / 48_000))
                }
                let length = try pcm.withUnsafeBufferPointer { input in
                    try out.withUnsafeMutableBufferPointer { try encoder.encode(input, into: $0) }
                }
                media.deliver(TappedRTPPacket(payload: Array(out[0..<length]), ssrc: 7, sequenceNumber: UInt16(i),
                                              timestamp: UInt32(i * 960), marker: i == 0, arrival: Double(i) * 0.02),
                              to: section)
                try await Task.sleep(for: .milliseconds(20))
            }
        }

        /// The loudest sample of the frames played into `slot` (decoded as Opus).
        func peak(of slot: RoomTrackAddress) throws -> Int {
            let decoder = try OpusDecoder()
            var pcm = [Int16](repeating: 0, count: 5_760)
            var peak = 0
            for frame in media.played[slot] ?? [] {
                let count = try frame.withUnsafeBufferPointer { packet in
                    try pcm.withUnsafeMutableBufferPointer { try decoder.decode(packet, into: $0) }
                }
                for n in 0..<count { peak = max(peak, abs(Int(pcm[n]))) }
            }
            return peak
        }

        func close() {
            clock.stop()
            http.shutdown()
        }
    }

    @Test func aListenerHearsEveryPublishedAudioTrackThroughItsReservedSlot() async throws {
        let f = try Fixture()
        defer { f.close() }
        let alice = try await f.connect("alice", offer: RoomMediaTwin.offer("send audio 0"),
                                        tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio)])
        let viewer = try await f.connect("viewer", offer: RoomMediaTwin.offer("recv audio 0", "recv audio 1"), automatic: false)
        #expect(await f.service.hearRoomMix(participantSid: viewer.participant.sid))
        await f.service.settle()
        let (mic, mixSlot) = (RoomTrackAddress(session: "S1", mid: "0"), RoomTrackAddress(session: "S2", mid: "0"))
        #expect(f.media.tapped == [mic], "alice's microphone is tapped for the mix")
        try await f.speak(mic, frequency: 440, count: 25)
        #expect(try f.peak(of: mixSlot) > 3_000, "the mix carries alice's tone")
        // The reserved slot is never a subscription's: subscribing takes the other audio slot.
        let micSid = try #require(alice.participant.tracks.first?.sid)
        await f.service.subscribe(participantSid: viewer.participant.sid, trackSid: micSid)
        await f.service.settle()
        #expect(f.media.routeLog.contains("S1/0→S2/1"), "\(f.media.routeLog)")
        #expect(!f.media.routeLog.contains { $0.hasSuffix("→S2/0") }, "\(f.media.routeLog)")

        await f.service.leave(participantSid: viewer.participant.sid)
        await f.service.settle()
        #expect(f.media.tapped.isEmpty, "the last listener ends the mix and its taps")
        let played = f.media.played[mixSlot]?.count ?? 0
        try await Task.sleep(for: .milliseconds(100))
        #expect(f.media.played[mixSlot]?.count ?? 0 == played, "nothing is played after the mix ended")
    }

    @Test func listenersHearTheSumAndShareTheTapsWithRecordings() async throws {
        let directory = NSTemporaryDirectory() + "parley-room-mix-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let f = try Fixture(recordTo: directory)
        defer { f.close() }
        _ = try await f.service.createRoom(RoomCreateRequest(accountSid: f.accountSid, uniqueName: "stage",
                                                             recordParticipantsOnConnect: true))
        let viewer = try await f.connect("viewer", offer: RoomMediaTwin.offer("recv audio 0"), automatic: false)
        #expect(await f.service.hearRoomMix(participantSid: viewer.participant.sid))
        _ = try await f.connect("alice", offer: RoomMediaTwin.offer("send audio 0"),
                                tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio)])
        let bob = try await f.connect("bob", offer: RoomMediaTwin.offer("send audio 0"),
                                      tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio)])
        let (aliceMic, bobMic) = (RoomTrackAddress(session: "S2", mid: "0"), RoomTrackAddress(session: "S3", mid: "0"))
        #expect(Set(f.media.tapped) == [aliceMic, bobMic], "tracks published after the listener join the mix")
        // Both speak at once: the listener hears the sum.
        async let a: Void = f.speak(aliceMic, frequency: 440, count: 20)
        async let b: Void = f.speak(bobMic, frequency: 660, count: 20)
        _ = try await (a, b)
        #expect(try f.peak(of: RoomTrackAddress(session: "S2", mid: "0")) == 0, "publishers hear nothing of the mix")
        #expect(try f.peak(of: RoomTrackAddress(session: "S1", mid: "0")) > 3_000)

        await f.service.leave(participantSid: bob.participant.sid)
        await f.service.settle()
        #expect(f.media.tapped == [aliceMic], "an unpublished track leaves the mix and its recording")
        await f.service.leave(participantSid: viewer.participant.sid)
        await f.service.settle()
        #expect(f.media.tapped == [aliceMic], "the mix ended; alice's recording keeps the tap")
        let recordings = try f.store.roomRecordings(RoomRecordingQuery(accountSid: f.accountSid))
        #expect(recordings.count == 2, "\(recordings.map(\.status))")
    }

    @Test func noMixWithoutAClockASubscribeGrantOrAFreeAudioSlot() async throws {
        let quiet = try Fixture(mixes: false)
        defer { quiet.close() }
        let viewer = try await quiet.connect("viewer", offer: RoomMediaTwin.offer("recv audio 0"), automatic: false)
        #expect(!quiet.service.mixesAudio)
        #expect(await !quiet.service.hearRoomMix(participantSid: viewer.participant.sid))

        let f = try Fixture()
        defer { f.close() }
        let deaf = try await f.connect("deaf", offer: RoomMediaTwin.offer("recv audio 0"), automatic: false,
                                       permissions: RoomPermissions(canSubscribe: false))
        #expect(await !f.service.hearRoomMix(participantSid: deaf.participant.sid))
        let videoOnly = try await f.connect("eyes", offer: RoomMediaTwin.offer("recv video 0"), automatic: false)
        #expect(await !f.service.hearRoomMix(participantSid: videoOnly.participant.sid))
        #expect(await !f.service.hearRoomMix(participantSid: "PA0000"))
    }
}
