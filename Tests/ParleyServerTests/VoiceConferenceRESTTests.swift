import Foundation
import HTTPWire
import JSONWire
@testable import ParleyServer
import ParleyStore
import ParleyTestSupport
import Signaling
import Testing

/// Conferences and their participants updated over REST, heard by real clients: mute, hold and
/// resume change what each one hears (Goertzel on the decoded audio), kick and end complete the
/// participants' `<Dial>` so their TwiML goes on.
@Suite(.serialized) struct VoiceConferenceRESTTests {
    /// Tones above the hold music's notes and harmonics (≤ 1.6 kHz).
    static let aliceTone = 1_900.0, bobTone = 2_300.0

    /// Both send their tone for 1.5 s; what each heard of the other's, and bob's loudness.
    static func exchange(_ alice: VoiceConferenceTests.Participant, _ bob: VoiceConferenceTests.Participant) async throws
        -> (aliceHearsBob: Double, bobHearsAlice: Double, bobRMS: Double) {
        let start = ContinuousClock.now
        async let a: Void = ToneAudio.send(alice.party.peer, frequency: aliceTone, seconds: 1.5)
        async let b: Void = ToneAudio.send(bob.party.peer, frequency: bobTone, seconds: 1.5)
        _ = try await (a, b)
        let window = (start + .milliseconds(500), start + .milliseconds(1_400))
        let byAlice = alice.heard.levels([bobTone], from: window.0, to: window.1)[bobTone] ?? 0
        let byBob = bob.heard.levels([aliceTone], from: window.0, to: window.1)[aliceTone] ?? 0
        return (byAlice, byBob, bob.heard.rms(from: window.0, to: window.1))
    }

    @Test func muteHoldKickAndEndOverREST() async throws {
        try await VoiceHarness.run { h, parties in
            h.app.set("/after", "<Response><Hangup/></Response>")
            let app = try VoiceConferenceTests.application(
                h, "/talk", #"<Response><Dial action="/after"><Conference beep="false">ops</Conference></Dial></Response>"#)
            var people: [VoiceConferenceTests.Participant] = []
            for name in ["alice", "bob", "carol"] {
                let person = try await VoiceConferenceTests.join(h, name, application: app)
                _ = parties.add(person.party)
                people.append(person)
            }
            let (alice, bob, carol) = (people[0], people[1], people[2])
            let listed = try await h.rest("GET", "/Conferences.json?FriendlyName=ops&Status=in-progress").jsonObject
            let room = try #require(listed.array("conferences").first?.string("sid"))
            let bobPath = "/Conferences/\(room)/Participants/\(bob.callSid).json"
            try await Task.sleep(for: .milliseconds(300))

            let open = try await Self.exchange(alice, bob)
            #expect(open.aliceHearsBob > 5_000 && open.bobHearsAlice > 5_000, "\(open)")

            let muted = try await h.rest("POST", bobPath, [("Muted", "true")])
            #expect(muted.status == 200 && muted.jsonObject["muted"] == .bool(true), "\(muted.bodyText)")
            let whileMuted = try await Self.exchange(alice, bob)
            #expect(whileMuted.aliceHearsBob < 300 && whileMuted.bobHearsAlice > 5_000, "\(whileMuted)")

            let held = try await h.rest("POST", bobPath, [("Muted", "false"), ("Hold", "true")])
            #expect(held.jsonObject["hold"] == .bool(true) && held.jsonObject["muted"] == .bool(false))
            let whileHeld = try await Self.exchange(alice, bob)
            // Held: out of the mix both ways, hearing the hold music instead.
            #expect(whileHeld.aliceHearsBob < 300 && whileHeld.bobHearsAlice < 300 && whileHeld.bobRMS > 200, "\(whileHeld)")
            #expect(try await h.rest("GET", bobPath).jsonObject["hold"] == .bool(true))

            _ = try await h.rest("POST", bobPath, [("Hold", "false")])
            let resumed = try await Self.exchange(alice, bob)
            #expect(resumed.aliceHearsBob > 5_000 && resumed.bobHearsAlice > 5_000, "\(resumed)")
            print("conference REST: tone levels heard (alice of bob, bob of alice, bob's RMS): open \(open), muted \(whileMuted), "
                  + "held \(whileHeld), resumed \(resumed)")
            let bad = try await h.rest("POST", bobPath, [("Hold", "maybe")])
            #expect(bad.status == 400 && bad.jsonObject.int("code") == 20001)

            // Kick: bob's <Dial> completes, his TwiML goes on (the action hangs up).
            #expect(try await h.rest("DELETE", bobPath).status == 204)
            let afterBob = try await h.waitForRequests("/after")
            #expect(afterBob.first?.parameters["CallSid"] == bob.callSid && afterBob.first?.parameters["DialCallStatus"] == "completed")
            _ = try await bob.party.expectHangup()
            let left = try await h.rest("GET", "/Conferences/\(room)/Participants.json").jsonObject.array("participants")
            #expect(Set(left.compactMap { $0.string("call_sid") }) == [alice.callSid, carol.callSid])
            #expect(try await h.rest("DELETE", bobPath).status == 404)

            // End: everyone left completes their <Dial>; the reason says the API did it.
            let ended = try await h.rest("POST", "/Conferences/\(room).json", [("Status", "completed")])
            #expect(ended.status == 200 && ended.jsonObject.string("status") == "completed")
            #expect(ended.jsonObject.string("reason_conference_ended") == "conference-ended-via-api")
            _ = try await alice.party.expectHangup()
            _ = try await carol.party.expectHangup()
            #expect(try await h.waitForRequests("/after", count: 3).count == 3)
            let again = try await h.rest("POST", "/Conferences/\(room).json", [("Status", "completed")])
            #expect(again.status == 200 && again.jsonObject.string("reason_conference_ended") == "conference-ended-via-api")
            #expect(try await h.rest("POST", bobPath, [("Muted", "true")]).status == 404)
        }
    }

    @Test func kickingTheLastParticipantSaysSo() async throws {
        try await VoiceHarness.run { h, parties in
            h.app.set("/after", "<Response><Hangup/></Response>")
            let app = try VoiceConferenceTests.application(
                h, "/solo", #"<Response><Dial action="/after"><Conference>solo</Conference></Dial></Response>"#)
            let alone = try await VoiceConferenceTests.join(h, "alice", application: app)
            _ = parties.add(alone.party)
            let room = try #require(try await h.rest("GET", "/Conferences.json").jsonObject.array("conferences").first?.string("sid"))
            #expect(try await h.rest("DELETE", "/Conferences/\(room)/Participants/\(alone.callSid).json").status == 204)
            _ = try await alone.party.expectHangup()
            let summary = try await h.rest("GET", "/Conferences/\(room).json").jsonObject
            #expect(summary.string("status") == "completed" && summary.string("reason_conference_ended") == "last-participant-kicked")
            let refused = try await h.rest("POST", "/Conferences/\(room).json", [("Status", "in-progress")])
            #expect(refused.status == 400 && refused.jsonObject.int("code") == 20001)
        }
    }
}
