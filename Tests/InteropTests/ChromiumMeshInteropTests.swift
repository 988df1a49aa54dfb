import Foundation
import ParleyTestSupport
import Testing

/// Two Chromium instances in a peer-to-peer room on a real `parley-server`, from its room page:
/// the page sees the room's type in `room.joined` and connects to the other participant directly
/// over the relayed `room.peerOffer` / `room.peerAnswer` / `room.peerCandidate`. Each must decode
/// the other's fake camera (> 30 frames, at the other's capture size) and hear its fake
/// microphone (> 100 packets, energy > 0), with each page's selected ICE candidate pair
/// host ↔ host, while the server's media socket receives not one datagram. Then the same in a
/// `go` room through coturn (started in the namespace with `use-auth-secret` and the secret the
/// server hands TURN credentials from), every page relay-only (`#relay=1`): the selected pairs
/// must be relay ↔ relay. In both, alice's camera off reaches bob through the server, and bob's
/// leaving closes alice's peer connection to him.
///
/// Runs in a private network + PID namespace with only `lo` (`ChromiumRun.mesh`); needs root,
/// `chromium`, `coturn`, `iproute2`, `util-linux` and `python3`; without them it fails, it does
/// not skip.
@Suite(.serialized, .tags(.interop)) struct ChromiumMeshInteropTests {
    @Test(.timeLimit(.minutes(2))) func twoBrowsersConnectDirectlyInAPeerToPeerRoom() async throws {
        let report = try await Self.run(type: "peer-to-peer", relay: false)
        Self.expectTheMeshWorked(report, type: "peer-to-peer", candidateType: "host")
    }

    @Test(.timeLimit(.minutes(2))) func twoBrowsersConnectThroughCoturnInAGoRoomWithRelayOnlyICE() async throws {
        let report = try await Self.run(type: "go", relay: true)
        Self.expectTheMeshWorked(report, type: "go", candidateType: "relay")
        // The pages had the server's TURN server (and coturn took the credentials it minted: relay pairs).
        for me in ["alice", "bob"] {
            let pages = report["pages"] as? [String: [String: Any]] ?? [:]
            let state = (pages[me]?["media"] as? [String: Any])?["state"] as? [String: Any] ?? [:]
            let urls = (state["mesh"] as? [String: Any])?["iceServerUrls"] as? [String] ?? []
            #expect(urls == ["turn:127.0.0.1:3478?transport=udp"], "\(me)'s ICE servers: \(urls); coturn:\n\(String(describing: report["coturn_log"] ?? "-").suffix(1500))")
        }
    }

    static func run(type: String, relay: Bool) async throws -> [String: Any] {
        let run = try ChromiumRun.mesh("huddle", type: type, mediaSeconds: 40, relay: relay)
        defer { run.cleanUp() }
        let ended = await run.wait(timeout: .seconds(100))
        #expect(ended, "the Chromium mesh run did not finish within 100 s; it was killed")
        return try run.report()
    }

    static func expectTheMeshWorked(_ report: [String: Any], type: String, candidateType: String) {
        let pages = report["pages"] as? [String: [String: Any]] ?? [:]
        let diagnostics = ChromiumRoomInteropTests.diagnostics(report, pages: pages)
        #expect(report["interfaces"] as? [String] == ["lo"], "namespace interfaces: \(report["interfaces"] ?? "-")")
        #expect(report["error"] == nil, "orchestrator: \(report["error"] ?? "-")\n\(diagnostics)")
        let label = candidateType == "relay" ? "\(type), relay-only via coturn" : "\(type), direct"

        var sids: [String] = []
        for (me, other) in [("alice", "bob"), ("bob", "alice")] {
            let media = pages[me]?["media"] as? [String: Any] ?? [:]
            let state = media["state"] as? [String: Any] ?? [:]
            if let sid = state["participantSid"] as? String { sids.append(sid) }
            let rows = (media["stats"] as? [[String: Any]] ?? []).filter { $0["identity"] as? String == other }
            let audio = rows.first { $0["kind"] as? String == "audio" } ?? [:]
            let video = rows.first { $0["kind"] as? String == "video" } ?? [:]
            let timing = state["timing"] as? [String: Any] ?? [:]
            let firstFrame = (timing["firstRemoteFrame"] as? [String: Any])?[other] ?? "-"
            let pair = (pages[me]?["pairs"] as? [[String: Any]] ?? []).first { $0["identity"] as? String == other } ?? [:]
            let mesh = state["mesh"] as? [String: Any] ?? [:]
            print("chromium mesh (\(label)): \(me) ← \(other): join (or \(other)'s arrival) → first frame \(firstFrame) ms, "
                  + "frames \(video["framesDecoded"] ?? "-") at \(video["frameWidth"] ?? "-")×\(video["frameHeight"] ?? "-"), "
                  + "audio packets \(audio["packetsReceived"] ?? "-"), energy \(audio["totalAudioEnergy"] ?? "-"), "
                  + "pair \(pair["local"] ?? "-") \(pair["localAddress"] ?? "-") ↔ \(pair["remote"] ?? "-") \(pair["remoteAddress"] ?? "-"), "
                  + "peers \(mesh["peers"] ?? "-")")

            #expect(state["phase"] as? String == "joined", "\(me) did not join: \(state["phase"] ?? "-")\n\(diagnostics)")
            #expect(state["roomType"] as? String == type, "\(me) is in a \(state["roomType"] ?? "-") room")
            #expect((state["errors"] as? [Any] ?? []).isEmpty, "\(me)'s errors: \(state["errors"] ?? "-")")
            #expect((mesh["errors"] as? [Any] ?? []).isEmpty && (mesh["relayErrors"] as? [Any] ?? []).isEmpty,
                    "\(me)'s mesh errors: \(mesh["errors"] ?? "-"), relay errors: \(mesh["relayErrors"] ?? "-")")
            #expect(mesh["relay"] as? Bool == (candidateType == "relay"), "\(me)'s relay flag: \(mesh["relay"] ?? "-")")
            ChromiumRoomInteropTests.expectSeesAndHears(me, other, state: state, audio: audio, video: video, pages: pages)
            // The transport's selected pair; Chromium may still report it "in-progress" while a
            // consent check is outstanding, so media received on it counts as well as "succeeded".
            let carried = pair["state"] as? String == "succeeded"
                || (pair["state"] as? String == "in-progress" && (pair["bytesReceived"] as? Int ?? 0) > 0)
            #expect(carried && pair["local"] as? String == candidateType && pair["remote"] as? String == candidateType,
                    "\(me)'s selected pair toward \(other): \(pair)")
        }
        // The speaking indicator, measured by the pages themselves (the fake microphones beep).
        for me in ["alice", "bob"] {
            let state = (pages[me]?["media"] as? [String: Any])?["state"] as? [String: Any] ?? [:]
            #expect(sids.contains { $0 == state["dominantSpeaker"] as? String }, "\(me) saw no speaker: \(state["dominantSpeaker"] ?? "-")")
        }

        // Not one datagram reached the server's media socket: the media went peer to peer.
        let metrics = report["metrics"] as? [String: Any] ?? [:]
        print("chromium mesh (\(label)): server media socket: \(metrics["parley_media_datagrams_received_total"] ?? "-") datagrams, "
              + "\(metrics["parley_media_sessions"] ?? "-") sessions")
        #expect(metrics["parley_media_datagrams_received_total"] != nil
                && ChromiumRun.number(metrics["parley_media_datagrams_received_total"]) == 0
                && ChromiumRun.number(metrics["parley_media_sessions"]) == 0, "server media: \(metrics)")

        // The server keeps the room's state: both participants and alice's two tracks over REST.
        let listed = ((report["rest_participants"] as? [String: Any])?["body"] as? [String: Any])?["participants"] as? [[String: Any]] ?? []
        #expect(Set(listed.compactMap { $0["identity"] as? String }) == ["alice", "bob"], "participants: \(report["rest_participants"] ?? "-")")
        let tracks = ((report["rest_alice_tracks"] as? [String: Any])?["body"] as? [String: Any])?["published_tracks"] as? [[String: Any]] ?? []
        #expect(Set(tracks.compactMap { $0["kind"] as? String }) == ["audio", "video", "data"], "alice's published tracks: \(report["rest_alice_tracks"] ?? "-")")
        // Her chat track's message went peer to peer too (a data channel of the pair).
        print("chromium mesh (\(label)): alice's chat message reached bob after \(report["chat_ms"] ?? "-") ms")
        #expect(report["chat_ms"] != nil, "bob never got alice's data track message: \(report["chat"] ?? "-")")

        print("chromium mesh (\(label)): alice's camera off reached bob after \(report["camera_off_ms"] ?? "-") ms")
        #expect(report["camera_off_ms"] != nil, "bob never saw alice's camera disabled")
        let leave = report["leave"] as? [String: Any] ?? [:]
        #expect(leave["alice_saw_ms"] != nil, "alice did not see bob go (or kept his peer connection): \(leave)")
        let end = (pages["alice"]?["end"] as? [String: Any])?["state"] as? [String: Any] ?? [:]
        #expect((end["departed"] as? [[String: Any]] ?? []).compactMap { $0["identity"] as? String } == ["bob"])
    }
}
