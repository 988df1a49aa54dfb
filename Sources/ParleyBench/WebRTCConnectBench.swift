import Foundation
import HTTPWire
import ParleyCore
import ParleyNet
import ParleyServer
import ParleyTestSupport
import WebRTC

/// Session setup time: an in-process `PlatformServer` (HTTP and media on port 0, in-memory store)
/// and, one after another, `sessions` client `PeerConnection`s doing what the SDK does:
/// `createOffer` → `POST /v1/echo` (Bearer token) → `setRemoteAnswer` → `waitUntilConnected`, then
/// `close()` and `DELETE` the session. The figures come from the connection's own `Timings`
/// (recorded on its loop thread), so the 5 ms polling of `waitUntilConnected` does not add to them.
enum WebRTCConnectBench {
    static func run(sessions: Int) async throws {
        print("# WebRTC connect (in-process PlatformServer; \(sessions) sequential PeerConnections over loopback)")
        let platform = try InProcessPlatform.start(identity: "bench")
        let server = platform.server
        let http = try HTTPClient()
        let base = platform.baseURL
        let headers: HTTPHeaders = ["Host": "127.0.0.1", "Authorization": "Bearer \(platform.token)"]

        var offerToConnected: [Double] = [], answerToConnected: [Double] = []
        var gathering: [Double] = [], signaling: [Double] = [], ice: [Double] = [], dtls: [Double] = []
        var failures = 0
        let warmup = 3
        for i in 0..<(sessions + warmup) {
            let pc = try PeerConnection()
            let offer = try await pc.createOffer()
            var post = HTTPRequest(method: "POST", target: "/v1/echo", headers: headers, body: Array(offer.utf8))
            post.headers.set("Content-Type", "application/sdp")
            let response = try await http.send(post, to: base + "/v1/echo")
            guard response.status == 201, let location = response.headers["Location"] else {
                print("POST /v1/echo: \(response.status) \(response.bodyText)")
                failures += 1
                await pc.close()
                continue
            }
            try await pc.setRemoteAnswer(response.bodyText)
            let connected = await pc.waitUntilConnected(timeout: .seconds(10))
            let t = await pc.statistics().timings
            // DELETE first: closing the PeerConnection first sends close_notify, which ends the session by itself.
            let delete = try await http.send(HTTPRequest(method: "DELETE", target: location, headers: headers),
                                             to: base + location)
            await pc.close()
            if delete.status != 200 { print("DELETE \(location): \(delete.status)") }
            guard connected, let start = t.signalingStarted, let local = t.localDescription,
                  let remote = t.remoteDescription, let end = t.connected else {
                failures += 1
                continue
            }
            if i < warmup { continue }
            offerToConnected.append((end - start).milliseconds)
            answerToConnected.append((end - remote).milliseconds)
            gathering.append((local - start).milliseconds)
            signaling.append((remote - local).milliseconds)
            if let iceAt = t.iceConnected { ice.append((iceAt - remote).milliseconds) }
            if let iceAt = t.iceConnected, let dtlsAt = t.dtlsConnected { dtls.append((dtlsAt - iceAt).milliseconds) }
        }
        http.shutdown()
        await server.shutdown()

        print("sessions \(offerToConnected.count) connected, \(failures) failed (after \(warmup) warm-up sessions)")
        printPercentiles("offer → connected", offerToConnected)
        printPercentiles("answer applied → connected", answerToConnected)
        print("  breakdown:")
        printPercentiles("  createOffer (gathering)", gathering)
        printPercentiles("  local description → answer applied (HTTP)", signaling)
        printPercentiles("  answer applied → ICE connected", ice)
        printPercentiles("  ICE connected → DTLS connected", dtls)
    }

    static func printPercentiles(_ name: String, _ values: [Double]) {
        guard !values.isEmpty else { return print("\(name): no samples") }
        let sorted = values.sorted()
        func p(_ q: Double) -> Double { sorted[min(sorted.count - 1, Int((q * Double(sorted.count)).rounded(.up)) - 1)] }
        let ms = { (v: Double) in String(format: "%.2f ms", v) }
        print("\(name.padding(toLength: 46, withPad: " ", startingAt: 0)) p50 \(ms(p(0.5)))  p90 \(ms(p(0.9)))  "
              + "p99 \(ms(p(0.99)))  max \(ms(sorted.last!))")
    }
}
