/// The Python both aiortc scripts start with: loopback-only ICE, a real-time sine `Tone` track at
/// `frequency`, `watch` (connection states and a "connected" event) and `record` (received audio).
enum AiortcScriptPrelude {
    static func source(frequency: Double) -> String {
        """
        import asyncio, fractions, json, sys, time
        import numpy as np
        import aioice.ice
        aioice.ice.get_host_addresses = lambda *a, **k: ["127.0.0.1"]  # aiortc skips loopback otherwise
        from aiortc import RTCPeerConnection, RTCConfiguration, RTCSessionDescription, MediaStreamTrack
        from av import AudioFrame

        RATE, FRAME, FREQ = 48000, 960, \(frequency)

        def tone(start, count):
            t = (np.arange(count) + start) / RATE
            return (0.5 * np.sin(2 * np.pi * FREQ * t) * 32767).astype(np.int16)

        class Tone(MediaStreamTrack):
            kind = "audio"
            def __init__(self):
                super().__init__()
                self.pts = 0
                self.t0 = None
            def samples(self, start, count):  # a subclass may send other samples
                return tone(start, count)
            async def recv(self):
                if self.t0 is None:
                    self.t0 = time.monotonic()
                wait = self.t0 + self.pts / RATE - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                frame = AudioFrame.from_ndarray(self.samples(self.pts, FRAME).reshape(1, -1), format="s16", layout="mono")
                frame.sample_rate = RATE
                frame.pts = self.pts
                frame.time_base = fractions.Fraction(1, RATE)
                self.pts += FRAME
                return frame

        # Records connection states in res["states"]; returns an Event set on "connected".
        def watch(pc, res, t0):
            connected = asyncio.Event()
            @pc.on("connectionstatechange")
            def on_state():
                res.setdefault("states", []).append([pc.connectionState, round((time.perf_counter() - t0) * 1000, 1)])
                if pc.connectionState == "connected":
                    connected.set()
            return connected

        # Calls on_frame with every frame the track delivers, until it ends.
        def consume(track, on_frame):
            async def run():
                while True:
                    try:
                        frame = await track.recv()
                    except Exception:
                        return
                    on_frame(frame)
            asyncio.ensure_future(run())

        # Counts the decoded frames of every remote track of pc into got: audio frames and their
        # peak (0-1), video frames, the last size and when the first came (ms after t0).
        def tally(pc, got, t0):
            got.update({"audio_frames": 0, "audio_peak": 0.0, "video_frames": 0, "video_size": None,
                        "first_video_ms": None})
            @pc.on("track")
            def on_track(track):
                def count(frame):
                    if track.kind == "audio":
                        got["audio_frames"] += 1
                        got["audio_peak"] = max(got["audio_peak"], float(np.abs(frame.to_ndarray()).max()) / 32768)
                    else:
                        got["video_frames"] += 1
                        got["video_size"] = [frame.width, frame.height]
                        if got["first_video_ms"] is None:
                            got["first_video_ms"] = round((time.perf_counter() - t0) * 1000, 1)
                consume(track, count)

        # Appends every received audio frame's mono samples to chunks and its sample count to frames.
        def record(pc, chunks, frames):
            @pc.on("track")
            def on_track(track):
                def keep(frame):
                    a = frame.to_ndarray().reshape(-1)
                    ch = len(frame.layout.channels)
                    chunks.append(a[::ch] if ch > 1 and not frame.format.is_planar else a[: frame.samples])
                    frames.append(frame.samples)
                consume(track, keep)

        """
    }
}
