import Foundation
import ParleyTestSupport
import Testing

/// Two Chromium instances (libwebrtc) join the video room `standup` on a real `parley-server` from
/// its own room page (`GET /rooms/standup#token=…`), as `alice` and `bob` with video-grant tokens:
/// each must see the other and receive the other's fake microphone (> 100 packets, energy > 0) and
/// fake camera (> 30 frames decoded, at the size the other's camera captures) through the SFU; the
/// Rooms REST API must list the room with both participants; then bob leaves and alice must get
/// `room.participantDisconnected`. The same checks against an aiortc stand-in of the room family
/// test the page on its own.
///
/// Everything runs in a private network + PID namespace with only `lo` (`ChromiumRun.room`, which
/// drives both pages over the DevTools protocol). Needs root, `chromium`, `iproute2`,
/// `util-linux` and `python3`; without them the test fails, it does not skip.
@Suite(.serialized, .tags(.interop)) struct ChromiumRoomInteropTests {
    static let peers = ["alice", "bob"]

    /// With the page's 2 receive slots per kind (subscriptions need no new offer), and with none
    /// (each one goes through `room.renegotiate` → `room.offer` → `room.answer`).
    @Test(.timeLimit(.minutes(2)), arguments: [2, 0]) func twoBrowsersSeeAndHearEachOtherInARoom(slots: Int) async throws {
        let report = try await Self.run(slots: slots)
        let states = Self.expectTheRoomWorked(report, slots: slots, label: "server")

        // The REST API lists the room, with both participants, while they are in it.
        let listed = (report["rest_rooms"] as? [String: Any])?["body"] as? [String: Any] ?? [:]
        let rooms = listed["rooms"] as? [[String: Any]] ?? []
        #expect(rooms.contains { $0["unique_name"] as? String == "standup" && $0["sid"] as? String == states["alice"]?["roomSid"] as? String },
                "GET /v1/Rooms: \(report["rest_rooms"] ?? "-"); alice's room \(states["alice"]?["roomSid"] ?? "-")")
        let participants = ((report["rest_participants"] as? [String: Any])?["body"] as? [String: Any])?["participants"] as? [[String: Any]] ?? []
        #expect(Set(participants.compactMap { $0["identity"] as? String }) == Set(Self.peers),
                "GET /v1/Rooms/…/Participants: \(report["rest_participants"] ?? "-")")
    }

    /// The run without receive slots also caps publishers at `cappedKbps` (`--room-publish-kbps`).
    static let cappedKbps = 400

    static func run(slots: Int) async throws -> [String: Any] {
        let run = try ChromiumRun.room("standup", mediaSeconds: 40, slots: slots, publishKbps: slots == 0 ? cappedKbps : nil)
        defer { run.cleanUp() }
        let ended = await run.wait(timeout: .seconds(100))
        #expect(ended, "the Chromium room run did not finish within 100 s; it was killed")
        return try run.report()
    }

    /// The page is served; each page joined, sees the other and gets the other's audio and video
    /// (at the other's camera size); with no slots up front, each renegotiated; alice's camera off
    /// reached bob; bob left and alice saw him go. Returns the pages' states at the media snapshot.
    static func expectTheRoomWorked(_ report: [String: Any], slots: Int, label: String) -> [String: [String: Any]] {
        let pages = report["pages"] as? [String: [String: Any]] ?? [:]
        let diagnostics = Self.diagnostics(report, pages: pages)

        #expect(report["interfaces"] as? [String] == ["lo"], "namespace interfaces: \(report["interfaces"] ?? "-")")
        #expect(report["error"] == nil, "orchestrator: \(report["error"] ?? "-")\n\(diagnostics)")
        let page = report["page"] as? [String: Any] ?? [:]
        #expect(page["status"] as? Int == 200 && (page["content_type"] as? String)?.hasPrefix("text/html") == true,
                "GET /rooms/standup: \(page)")
        #expect(page["has_parley_room"] as? Bool == true, "the page has no window.parleyRoom: \(page)")

        var states: [String: [String: Any]] = [:]
        for (me, other) in [("alice", "bob"), ("bob", "alice")] {
            let media = pages[me]?["media"] as? [String: Any] ?? [:]
            let state = media["state"] as? [String: Any] ?? [:]
            states[me] = state
            let rows = (media["stats"] as? [[String: Any]] ?? []).filter { $0["identity"] as? String == other }
            let audio = rows.first { $0["kind"] as? String == "audio" } ?? [:]
            let video = rows.first { $0["kind"] as? String == "video" } ?? [:]
            let timing = state["timing"] as? [String: Any] ?? [:]
            let firstFrame = (timing["firstRemoteFrame"] as? [String: Any])?[other] ?? "-"
            print("chromium room (\(label), \(slots) slots): \(me) ← \(other): join (or \(other)'s arrival) → first frame \(firstFrame) ms, "
                  + "frames \(video["framesDecoded"] ?? "-") at \(video["frameWidth"] ?? "-")×\(video["frameHeight"] ?? "-"), "
                  + "audio packets \(audio["packetsReceived"] ?? "-"), energy \(audio["totalAudioEnergy"] ?? "-"), "
                  + "phase \(state["phase"] ?? "-"), media \(state["connectionState"] ?? "-"), negotiations \(state["negotiations"] ?? "-")")
            // What its own camera is sent at: the send-side estimate needs our transport-wide CC feedback.
            let sent = (media["local"] as? [[String: Any]] ?? []).first { $0["kind"] as? String == "video" } ?? [:]
            let estimate = ChromiumRun.number(sent["availableOutgoingBitrate"])
            print("chromium room (\(label), \(slots) slots): \(me)'s camera: target \(sent["targetBitrate"] ?? "-") bit/s, "
                  + "send-side estimate \(estimate) bit/s, \(sent["bytesSent"] ?? "-") bytes sent, limited by \(sent["qualityLimitationReason"] ?? "-")")
            // Chromium's fake microphone beeps: its RFC 6464 levels make one of them the dominant speaker.
            let sids = peers.compactMap { ((pages[$0]?["media"] as? [String: Any])?["state"] as? [String: Any])?["participantSid"] as? String }
            print("chromium room (\(label), \(slots) slots): \(me) sees dominant speaker \(state["dominantSpeaker"] ?? "-") of \(sids)")
            #expect(sids.contains { $0 == state["dominantSpeaker"] as? String }, "\(me) saw no dominant speaker")
            // Without feedback Chromium stays near its 300 kbit/s start (350–450 kbit/s measured);
            // alice, publishing longest when this is read, is well past it with our feedback
            // (2.4–3.8 Mbit/s) — unless the server caps publishers (REMB), which her encoder obeys.
            let target = ChromiumRun.number(sent["targetBitrate"])
            if slots == 0 {
                #expect(target > 0 && target <= Double(Self.cappedKbps * 1000), "\(me)'s camera target \(target) bit/s over the cap")
            } else if me == "alice" {
                #expect(estimate > 1_000_000, "alice's send-side estimate stayed at \(estimate) bit/s: no transport-wide CC feedback?")
            }

            #expect(state["phase"] as? String == "joined", "\(me) did not join: phase \(state["phase"] ?? "-")\n\(diagnostics)")
            #expect((state["errors"] as? [Any] ?? []).isEmpty, "\(me)'s errors: \(state["errors"] ?? "-")")
            if slots == 0 {
                #expect((state["negotiations"] as? Int ?? 0) >= 2, "\(me) never renegotiated: \(state["log"] ?? "-")")
            }
            expectSeesAndHears(me, other, state: state, audio: audio, video: video, pages: pages)
        }

        // alice's camera off reaches bob (room.trackEnabled → room.trackChanged).
        print("chromium room (\(label)): alice turned her camera off, bob saw it after \(report["camera_off_ms"] ?? "-") ms")
        #expect(report["camera_off_ms"] != nil, "bob never saw alice's camera disabled")

        // bob leaves: alice sees him go.
        let leave = report["leave"] as? [String: Any] ?? [:]
        print("chromium room (\(label), \(slots) slots): bob left, alice saw room.participantDisconnected after \(leave["alice_saw_ms"] ?? "-") ms")
        let end = (pages["alice"]?["end"] as? [String: Any])?["state"] as? [String: Any] ?? [:]
        let departed = (end["departed"] as? [[String: Any]] ?? []).compactMap { $0["identity"] as? String }
        #expect(leave["alice_saw_ms"] != nil && departed == ["bob"], "alice's departed: \(departed); leave: \(leave)")
        let bob = (pages["bob"]?["end"] as? [String: Any])?["state"] as? [String: Any] ?? [:]
        #expect(bob["phase"] as? String == "left", "bob's phase after leaving: \(bob["phase"] ?? "-")")
        return states
    }

    /// `me`'s page sees `other` and gets its audio (> 100 packets, energy > 0) and video (> 30
    /// frames decoded, at the size `other`'s camera captures).
    static func expectSeesAndHears(_ me: String, _ other: String, state: [String: Any], audio: [String: Any],
                                   video: [String: Any], pages: [String: [String: Any]]) {
        let identities = (state["participants"] as? [String: [String: Any]] ?? [:]).values.compactMap { $0["identity"] as? String }
        #expect(identities.contains(other), "\(me) does not see \(other): \(identities)")
        #expect((audio["packetsReceived"] as? Int ?? 0) > 100, "\(me) ← \(other) audio: \(audio)")
        #expect(ChromiumRun.number(audio["totalAudioEnergy"]) > 0, "\(me) ← \(other) audio energy: \(audio)")
        #expect((video["framesDecoded"] as? Int ?? 0) > 30, "\(me) ← \(other) video: \(video)")
        let camera = ((pages[other]?["media"] as? [String: Any])?["state"] as? [String: Any])?["localVideo"] as? [String: Any] ?? [:]
        #expect(camera["width"] != nil && video["frameWidth"] as? Int == camera["width"] as? Int
                && video["frameHeight"] as? Int == camera["height"] as? Int,
                "\(me) decodes \(video["frameWidth"] ?? "-")×\(video["frameHeight"] ?? "-"), \(other)'s camera is \(camera)")
    }

    /// Each page's state (with its message log and errors), console, and Chromium's and the server's stderr.
    static func diagnostics(_ report: [String: Any], pages: [String: [String: Any]]) -> String {
        var text = ""
        for name in peers {
            let page = pages[name] ?? [:]
            let media = page["media"] as? [String: Any] ?? [:]
            let json = (try? JSONSerialization.data(withJSONObject: media, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) }
            text += "\(name) page: \(json ?? "-")\n\(name) console: \(page["console"] ?? "-")\n"
                + "\(name) chromium stderr: \(Self.withoutNoise(page["chromium_stderr"]))\n"
        }
        return text + "server stderr: \(report["server_stderr"] ?? "-")"
    }

    /// Chromium's stderr without the D-Bus complaints of a machine that has no session bus.
    static func withoutNoise(_ stderr: Any?) -> String {
        String(describing: stderr ?? "-").split(separator: "\n").filter { !$0.contains("dbus") }.suffix(12).joined(separator: "\n")
    }
}
