import AccessToken
import Foundation
import ParleyServer
import ParleyTestSupport
import Synchronization
import Testing

/// An aiortc WHIP publisher seen and heard by a ParleyVideo SDK participant, on a real in-process
/// `parley-server`: aiortc POSTs an Opus tone (440 Hz) and its 640×480 VP8 test video to
/// `/v1/rooms/stage/whip` with plain HTTP (as `AiortcWHIPInteropTests`); then an SDK participant
/// joins the room with `Video.connect` and must subscribe to both tracks, decode the video at
/// 640×480 (libvpx in the SDK, frames counted) and hear the tone at its frequency.
///
/// Needs the project venv (aiortc); without it the test fails, it does not skip.
@Suite(.serialized, .tags(.interop)) struct SDKWHIPInteropTests {
    @Test(.timeLimit(.minutes(1))) func anSDKParticipantSeesAndHearsAnAiortcWHIPPublisher() async throws {
        try await InProcessPlatform.withServer { platform in
            let token = try InProcessPlatform.token(platform.server, identity: "cam", grants: [.video(.init(room: "stage"))])
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-sdk-whip-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let script = dir.appendingPathComponent("publish.py")
            try Self.publisher.write(to: script, atomically: true, encoding: .utf8)
            let python = Python.packageRoot.appendingPathComponent(".venv/bin/python3").path
            let cam = try ChildProcess(executable: python, arguments: [script.path, platform.baseURL, token, "45"])
            defer { cam.kill() }
            let published = await cam.waitForJSON(key: "published", timeout: .seconds(20))
            try #require(published?["published"] as? Int == 201, "WHIP POST: \(published ?? [:])\nstderr: \(cam.stderr.suffix(3000))")

            let viewer = try SDKPeer.join(edge: platform.sdkEdge, server: platform.server, identity: "viewer", room: "stage")
            defer { viewer.disconnect() }
            // 60 frames (2 s at aiortc's 30 fps) and 2 s of audio.
            let enough = await SDKPeer.poll(timeout: .seconds(25)) {
                (viewer.screen("cam")?.frames ?? 0) >= 60 && (viewer.capture("cam")?.count ?? 0) >= 96_000
            }
            let seen = viewer.screen("cam")?.seen.withLock { $0 }
            let heard = viewer.heard("cam")
            print("SDK ← aiortc WHIP: frames \(seen?.frames ?? 0) by size \(seen?.sizes ?? [:]), "
                  + "audio \(viewer.capture("cam")?.count ?? 0) samples, tone \(heard.map { "\(Int($0.frequency)) Hz rms \($0.rms)" } ?? "-")")
            SDKJoinFigures.record(viewer, label: "aiortc WHIP")
            let failure = viewer.times.withLock { $0.failure }
            #expect(enough, "the SDK viewer got too little of cam; failure \(String(describing: failure))\ncam stderr: \(cam.stderr.suffix(2000))")
            #expect((seen?.frames ?? 0) >= 60)
            #expect(seen?.sizes.keys.sorted() == ["640x480"], "decoded sizes \(seen?.sizes ?? [:])")
            let frequency = try #require(heard?.frequency)
            #expect(abs(frequency - 440) < 15, "the SDK hears cam at \(frequency) Hz, not 440")
            #expect((heard?.rms ?? 0) > 0.1, "the tone is too quiet: rms \(heard?.rms ?? 0)")
            #expect(cam.isRunning, "the publisher ended early: \(cam.stdout.suffix(1000)) \(cam.stderr.suffix(2000))")
        }
    }

    /// Publishes a 440 Hz tone and aiortc's 640×480 test video over WHIP to the room `stage`;
    /// prints `{"published": status}` once answered; runs until killed (or SECONDS pass).
    static let publisher = AiortcWHIPScript.helpers + #"""
async def main(base, token, seconds):
    cam = peer()
    cam.addTransceiver(Tone(), direction="sendonly")
    cam.addTransceiver(VideoStreamTrack(), direction="sendonly")
    posts = {}
    try:
        await post(cam, base + "/v1/rooms/stage/whip", token, posts, "cam")
    finally:
        print(json.dumps({"published": posts.get("cam", {}).get("status"), "posts": posts}), flush=True)
    await asyncio.sleep(seconds)
    await cam.close()

asyncio.run(main(sys.argv[1], sys.argv[2], float(sys.argv[3])))
"""#
}
