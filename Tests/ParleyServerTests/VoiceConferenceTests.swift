import AudioCore
import Foundation
@testable import ParleyServer
@testable import ServerMedia
import ParleyStore
import ParleyTestSupport
import Signaling
import Synchronization
import Testing
@testable import VoiceEngine
import VoiceREST
import WebRTC

/// `<Dial><Conference>` end to end: clients call in over signaling and WebRTC, send real Opus
/// tones, and what each one hears is decoded and measured (Goertzel).
@Suite(.serialized) struct VoiceConferenceTests {
    /// Everything a party receives, with arrival times, decoded on demand.
    final class Heard: Sendable {
        private final class Frames: Sendable { let value = Mutex<[(at: ContinuousClock.Instant, payload: [UInt8])]>([]) }
        private let frames = Frames()
        private let reader: Task<Void, Never>

        init(_ party: TestParty) {
            let frames = self.frames
            reader = Task {
                for await packet in party.peer.audio {
                    frames.value.withLock { $0.append((ContinuousClock.now, packet.payload)) }
                }
            }
        }

        deinit { reader.cancel() }

        /// The decoded samples (48 kHz) of the frames that arrived between `start` and `end`.
        func samples(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) -> [Int16] {
            let all = frames.value.withLock { $0 }
            let leg = RecordingLeg(rate: MediaAudio.sampleRate, window: 1)
            var selected: [Int16] = []
            for (index, frame) in all.enumerated() {
                var chunk: [Int16] = []
                let packet = TappedAudioPacket(payload: frame.payload, sequenceNumber: UInt16(truncatingIfNeeded: index),
                                               timestamp: UInt32(truncatingIfNeeded: index * MediaAudio.frameSamples), codec: .opus)
                leg.receive(packet, position: index * MediaAudio.frameSamples) { output, pcm in
                    chunk += output.audible ? Array(pcm) : Array(repeating: 0, count: output.count)
                }
                if frame.at >= start && frame.at <= end { selected += chunk }
            }
            return selected
        }

        /// Amplitude of each frequency in what arrived between `start` and `end`.
        func levels(_ frequencies: [Double], from start: ContinuousClock.Instant,
                    to end: ContinuousClock.Instant) -> [Double: Double] {
            let x = samples(from: start, to: end)
            var result: [Double: Double] = [:]
            for f in frequencies { result[f] = MediaSignal.amplitude(x, frequency: f, rate: MediaAudio.sampleRate) }
            return result
        }

        func rms(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) -> Double {
            MediaSignal.rms(samples(from: start, to: end))
        }
    }

    struct Participant {
        let party: TestParty
        let callSid: String
        let heard: Heard
    }

    /// A client of `application` calls in; returns once its media is up and the call answered.
    static func join(_ h: VoiceHarness, _ identity: String, application: Application) async throws -> Participant {
        let party = try TestParty(try await h.client(identity, application: application.sid))
        let heard = Heard(party)
        let callSid = try await party.invite(to: "conference")
        try await party.connectMedia()
        try await party.expectConnected()
        return Participant(party: party, callSid: callSid, heard: heard)
    }

    static func application(_ h: VoiceHarness, _ path: String, _ twiml: String) throws -> Application {
        h.app.set(path, twiml)
        return try h.makeApplication(path: path)
    }

    @Test func threeCallersEachHearTheOtherTwoAndNotThemselves() async throws {
        let h = try await VoiceHarness.start()
        let app = try Self.application(h, "/voice", #"<Response><Dial><Conference beep="false">standup</Conference></Dial></Response>"#)
        var people: [Participant] = []
        for name in ["alice", "bob", "carol"] { people.append(try await Self.join(h, name, application: app)) }
        try await Task.sleep(for: .milliseconds(300))
        let tones: [Double] = [400, 700, 1_100]
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (person, tone) in zip(people, tones) {
                group.addTask { try await ToneAudio.send(person.party.peer, frequency: tone, seconds: 2) }
            }
            try await group.waitForAll()
        }
        for (person, own) in zip(people, tones) {
            let levels = person.heard.levels(tones, from: start + .milliseconds(600), to: start + .milliseconds(1_900))
            print("conference: \(person.callSid.prefix(8)) sent \(Int(own)) Hz, heard \(levels.sorted { $0.key < $1.key }.map { "\(Int($0.key)) Hz: \(Int($0.value))" })")
            for other in tones where other != own {
                #expect((levels[other] ?? 0) > 5_000, "\(Int(other)) Hz heard at \(levels[other] ?? 0)")
                #expect((levels[own] ?? 0) < (levels[other] ?? 0) / 20, "own \(Int(own)) Hz heard at \(levels[own] ?? 0)")
            }
        }
        let accountSid = h.credentials.account.sid
        let room = try #require(await h.server.voice.conferenceSummaries(accountSid: accountSid).first)
        #expect(room.sid.count == 34 && room.sid.hasPrefix("CF") && room.friendlyName == "standup")
        #expect(room.status == "in-progress")
        let inRoom = await h.server.voice.conferenceParticipants(accountSid: accountSid, conferenceSid: room.sid) ?? []
        #expect(Set(inRoom.map(\.callSid)) == Set(people.map(\.callSid)))
        for person in people {
            try await person.party.signaling.send(.hangup(Hangup(callSid: person.callSid)))
            await person.party.close()
        }
        try await Task.sleep(for: .milliseconds(200))
        let ended = await h.server.voice.conferenceSummaries(accountSid: accountSid)
        #expect(ended.count == 1 && ended.first?.status == "completed" && ended.first?.endReason == "last-participant-left")
        await h.stop()
    }

    @Test func aMutedParticipantIsHeardByNobodyButHearsTheOthers() async throws {
        let h = try await VoiceHarness.start()
        let talk = try Self.application(h, "/talk", #"<Response><Dial><Conference beep="false">sales</Conference></Dial></Response>"#)
        let listen = try Self.application(h, "/listen", #"<Response><Dial><Conference beep="false" muted="true">sales</Conference></Dial></Response>"#)
        let alice = try await Self.join(h, "alice", application: talk)
        let muted = try await Self.join(h, "mute", application: listen)
        let carol = try await Self.join(h, "carol", application: talk)
        try await Task.sleep(for: .milliseconds(300))
        let start = ContinuousClock.now
        async let a: Void = ToneAudio.send(alice.party.peer, frequency: 500, seconds: 2)
        async let m: Void = ToneAudio.send(muted.party.peer, frequency: 900, seconds: 2)
        async let c: Void = ToneAudio.send(carol.party.peer, frequency: 1_300, seconds: 2)
        _ = try await (a, m, c)
        let window = (start + .milliseconds(600), start + .milliseconds(1_900))
        let byAlice = alice.heard.levels([500, 900, 1_300], from: window.0, to: window.1)
        let byCarol = carol.heard.levels([500, 900, 1_300], from: window.0, to: window.1)
        let byMuted = muted.heard.levels([500, 900, 1_300], from: window.0, to: window.1)
        print("conference muted: alice \(byAlice), carol \(byCarol), muted \(byMuted)")
        #expect((byAlice[1_300] ?? 0) > 5_000 && (byAlice[900] ?? 0) < 300)
        #expect((byCarol[500] ?? 0) > 5_000 && (byCarol[900] ?? 0) < 300)
        #expect((byMuted[500] ?? 0) > 5_000 && (byMuted[1_300] ?? 0) > 5_000 && (byMuted[900] ?? 0) < 300)
        for person in [alice, muted, carol] { await person.party.close() }
        await h.stop()
    }

    @Test func participantsWaitOnHoldMusicUntilAModeratorJoins() async throws {
        let h = try await VoiceHarness.start()
        let wait = try Self.application(h, "/wait",
            #"<Response><Dial><Conference beep="false" startConferenceOnEnter="false">lobby</Conference></Dial></Response>"#)
        let host = try Self.application(h, "/host", #"<Response><Dial><Conference beep="false">lobby</Conference></Dial></Response>"#)
        let first = try await Self.join(h, "first", application: wait)
        let second = try await Self.join(h, "second", application: wait)
        try await Task.sleep(for: .milliseconds(300))
        let waiting = ContinuousClock.now
        try await ToneAudio.send(second.party.peer, frequency: 1_100, seconds: 1.4)
        let onHold = first.heard.samples(from: waiting + .milliseconds(400), to: waiting + .milliseconds(1_300))
        let holdRMS = MediaSignal.rms(onHold)
        let secondWhileWaiting = MediaSignal.amplitude(onHold, frequency: 1_100, rate: MediaAudio.sampleRate)
        let accountSid = h.credentials.account.sid
        #expect(await h.server.voice.conferenceSummaries(accountSid: accountSid).first?.status == "init")

        let moderator = try await Self.join(h, "moderator", application: host)
        try await Task.sleep(for: .milliseconds(300))
        let started = ContinuousClock.now
        async let fromSecond: Void = ToneAudio.send(second.party.peer, frequency: 1_100, seconds: 1.5)
        async let fromModerator: Void = ToneAudio.send(moderator.party.peer, frequency: 400, seconds: 1.5)
        _ = try await (fromSecond, fromModerator)
        let inRoom = first.heard.levels([400, 1_100], from: started + .milliseconds(500), to: started + .milliseconds(1_400))
        print("conference waiting: hold music RMS \(Int(holdRMS)), 1100 Hz while waiting \(Int(secondWhileWaiting)); after start \(inRoom)")
        #expect(holdRMS > 500)  // music, not silence (the loop peaks near -20 dBFS)
        #expect(secondWhileWaiting < 200)  // the other waiting participant is not heard
        #expect((inRoom[400] ?? 0) > 5_000 && (inRoom[1_100] ?? 0) > 5_000)
        #expect(await h.server.voice.conferenceSummaries(accountSid: accountSid).first?.status == "in-progress")
        for person in [first, second, moderator] { await person.party.close() }
        await h.stop()
    }

    @Test func endConferenceOnExitEndsEveryonesDialAndTheirTwiMLGoesOn() async throws {
        let h = try await VoiceHarness.start()
        let wav = (0..<8_000).map { Int16(0.4 * 32_767 * sin(2 * Double.pi * 600 * Double($0) / 16_000)) }
        h.app.serve("/tone.wav", contentType: "audio/wav", body: WAVFile(sampleRate: 16_000, channels: 1, samples: wav).serialized)
        let host = try Self.application(h, "/host",
            #"<Response><Dial><Conference endConferenceOnExit="true">board</Conference></Dial></Response>"#)
        let member = try Self.application(h, "/member",
            #"<Response><Dial action="/after"><Conference>board</Conference></Dial></Response>"#)
        let quiet = try Self.application(h, "/quiet",
            #"<Response><Dial><Conference beep="false">board</Conference></Dial><Play>/tone.wav</Play><Hangup/></Response>"#)
        h.app.set("/after", "<Response><Hangup/></Response>")
        let chair = try await Self.join(h, "chair", application: host)
        try await Task.sleep(for: .milliseconds(600))  // the chair's own entry beep is over
        let memberJoined = ContinuousClock.now
        let guest = try await Self.join(h, "guest", application: member)
        let listener = try await Self.join(h, "listener", application: quiet)
        try await Task.sleep(for: .milliseconds(700))
        let beep = chair.heard.levels([Double(ConferenceBeep.lowHertz), Double(ConferenceBeep.highHertz), 1_000],
                                      from: memberJoined, to: ContinuousClock.now)

        let hungUp = ContinuousClock.now
        try await chair.party.signaling.send(.hangup(Hangup(callSid: chair.callSid)))
        let guestHangup = try await guest.party.expectHangup(timeout: .seconds(5))
        let listenerHangup = try await listener.party.expectHangup(timeout: .seconds(5))
        let after = try #require(h.app.requests("/after").first)
        #expect(after.signatureValid)
        #expect(after.parameters["DialCallStatus"] == "completed")
        #expect(after.parameters["CallSid"] == guest.callSid)
        #expect(guestHangup.code == nil && listenerHangup.code == nil)
        // The listener's document went on after its <Dial>: the <Play> reached it before <Hangup>.
        let played = listener.heard.levels([600], from: hungUp, to: ContinuousClock.now)[600] ?? 0
        print("conference end: chair heard the entry beep at \(beep), listener heard <Play> 600 Hz at \(Int(played))")
        #expect(played > 3_000)
        #expect((beep[Double(ConferenceBeep.lowHertz)] ?? 0) > 300 && (beep[Double(ConferenceBeep.highHertz)] ?? 0) > 300)
        #expect((beep[1_000] ?? 0) < (beep[Double(ConferenceBeep.lowHertz)] ?? 0) / 4)
        let rows = try [guest.callSid, listener.callSid].map { try #require(try h.store.call(sid: $0)) }
        #expect(rows.allSatisfy { $0.status == .completed })
        let ended = await h.server.voice.conferenceSummaries(accountSid: h.credentials.account.sid)
        #expect(ended.first?.endReason == "participant-with-end-conference-on-exit-left")
        for person in [chair, guest, listener] { await person.party.close() }
        await h.stop()
    }

    @Test func hangupOnStarAndTimeLimitLeaveTheConferenceAndReportToTheAction() async throws {
        let h = try await VoiceHarness.start()
        let star = try Self.application(h, "/star",
            #"<Response><Dial hangupOnStar="true" action="/left"><Conference beep="false">desk</Conference></Dial></Response>"#)
        let limited = try Self.application(h, "/limited",
            #"<Response><Dial timeLimit="2" action="/left"><Conference beep="false">desk</Conference></Dial></Response>"#)
        h.app.set("/left", "<Response><Hangup/></Response>")
        let alice = try await Self.join(h, "alice", application: star)
        let joined = ContinuousClock.now
        let bob = try await Self.join(h, "bob", application: limited)
        try await alice.party.signaling.send(.dtmf(DTMF(callSid: alice.callSid, digits: "*")))
        _ = try await alice.party.expectHangup(timeout: .seconds(5))
        #expect(h.app.requests("/left").map { $0.parameters["CallSid"] } == [alice.callSid])
        _ = try await bob.party.expectHangup(timeout: .seconds(5))
        let elapsed = ContinuousClock.now - joined
        let left = h.app.requests("/left")
        #expect(left.count == 2 && left.allSatisfy { $0.parameters["DialCallStatus"] == "completed" })
        #expect(left.last?.parameters["CallSid"] == bob.callSid)
        #expect(elapsed >= .seconds(2))
        try await Task.sleep(for: .milliseconds(100))
        #expect(await h.server.voice.conferenceSummaries(accountSid: h.credentials.account.sid).first?.status == "completed")
        await alice.party.close()
        await bob.party.close()
        await h.stop()
    }
}
