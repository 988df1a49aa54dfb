import Foundation
import ParleyTestSupport
import Testing

/// Data tracks between two Chromium instances (libwebrtc's SCTP, RTCDataChannel) through the SFU
/// of a real `parley-server`: each room page publishes `chat` (ordered, reliable) and
/// `chat-unreliable` (unordered, maxRetransmits 0) as data channels; each must receive the
/// other's message on each, with the sender's identity and the track's name, on the channels the
/// server opened toward it. The run also measures alice → bob latency and messages/s, checks
/// that REST lists the data tracks, and that closing a channel unpublishes its track.
///
/// Runs in a private network + PID namespace with only `lo` (`ChromiumRun`); needs root,
/// `chromium`, `iproute2`, `util-linux` and `python3`; without them it fails, it does not skip.
@Suite(.serialized, .tags(.interop)) struct ChromiumRoomDataInteropTests {
    @Test(.timeLimit(.minutes(3))) func aDataTrackMessageFromOneBrowserReachesTheOther() async throws {
        let run = try ChromiumRun(orchestrator: ChromiumScripts.browser + ChromiumScripts.roomData,
                                  arguments: ["chat-room", "40"])
        defer { run.cleanUp() }
        let ended = await run.wait(timeout: .seconds(150))
        #expect(ended, "the Chromium data run did not finish within 150 s; it was killed")
        let report = try run.report()
        let pages = report["pages"] as? [String: [String: Any]] ?? [:]
        let diagnostics = ChromiumRoomInteropTests.diagnostics(report, pages: pages.mapValues { page in
            var page = page
            page["media"] = page["messages"] ?? page["ready"]
            return page
        })

        #expect(report["interfaces"] as? [String] == ["lo"], "namespace interfaces: \(report["interfaces"] ?? "-")")
        #expect(report["error"] == nil, "orchestrator: \(report["error"] ?? "-")\n\(diagnostics)")
        #expect(report["ready_ms"] != nil, "the data channels did not open both ways\n\(diagnostics)")

        // Each page got the other's message on each track, with the sender and the track right.
        let texts = report["texts"] as? [String: String] ?? [:]
        let arrived = report["arrived_ms"] as? [String: Any] ?? [:]
        print("chromium room data: sent \(report["sent"] ?? "-"), arrived after (ms) \(arrived)")
        for (me, other) in [("alice", "bob"), ("bob", "alice")] {
            let state = ((pages[me]?["messages"] as? [String: Any])?["state"] as? [String: Any]) ?? [:]
            let messages = state["messages"] as? [[String: Any]] ?? []
            let received = messages.filter { $0["local"] as? Bool == false }
            #expect(received.contains { $0["from"] as? String == other && $0["text"] as? String == texts[other]
                        && $0["track"] as? String == "chat" && $0["binary"] as? Bool == false },
                    "\(me) did not get \(other)'s chat message: \(received)\n\(diagnostics)")
            #expect(received.contains { $0["from"] as? String == other && $0["text"] as? String == "quick \(other)"
                        && $0["track"] as? String == "chat-unreliable" },
                    "\(me) did not get \(other)'s unreliable message: \(received)")
            #expect((state["errors"] as? [Any] ?? []).isEmpty, "\(me)'s errors: \(state["errors"] ?? "-")")
        }

        // Latency alice → bob through the SFU, and messages/s on one reliable channel.
        let latencies = (report["latency_ms"] as? [Any] ?? []).map(ChromiumRun.number)
        #expect(latencies.count == 200, "bob got \(latencies.count) of alice's 200 timed messages")
        if !latencies.isEmpty {
            let p = { (q: Double) in latencies[min(latencies.count - 1, Int(Double(latencies.count) * q))] }
            print(String(format: "chromium room data: alice → SFU → bob latency p50 %.2f ms, p90 %.2f ms, max %.2f ms (%d messages)",
                         p(0.5), p(0.9), latencies.last ?? 0, latencies.count))
        }
        let bulk = report["bulk"] as? [String: Any] ?? [:]
        let received = bulk["received"] as? Int ?? 0
        let seconds = (ChromiumRun.number(bulk["last"]) - ChromiumRun.number(bulk["t0"])) / 1000
        print(String(format: "chromium room data: %d of %d 110-byte messages alice → bob in %.3f s: %.0f messages/s",
                     received, bulk["sent"] as? Int ?? 0, seconds, seconds > 0 ? Double(received) / seconds : 0))
        #expect(received == bulk["sent"] as? Int, "bulk: \(bulk)")

        // REST lists alice's data tracks; closing a channel unpublishes its track.
        let published = ((report["rest_published"] as? [String: Any])?["body"] as? [String: Any])?["published_tracks"] as? [[String: Any]] ?? []
        #expect(Set(published.filter { $0["kind"] as? String == "data" }.compactMap { $0["name"] as? String }) == ["chat", "chat-unreliable"],
                "PublishedTracks: \(report["rest_published"] ?? "-")")
        print("chromium room data: alice closed chat-unreliable, bob saw it unpublished after \(report["unpublished_ms"] ?? "-") ms")
        #expect(report["unpublished_ms"] != nil, "bob still sees alice's chat-unreliable")
    }
}
