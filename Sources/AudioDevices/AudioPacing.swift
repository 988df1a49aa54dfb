/// How a device that has no sound card (`FileAudioDevice`, `ToneAudioDevice`) times its buffers.
public enum AudioPacing: Sendable, Hashable {
    /// A device thread delivers and pulls one buffer per buffer duration (10 ms by default) on
    /// absolute deadlines of the monotonic clock, so it keeps the exact rate however long each
    /// buffer takes. After a stall of more than 100 ms it skips ahead instead of bursting.
    case realTime
    /// A device thread runs capture and render back to back, in media-time order (the side that
    /// is behind goes next), as fast as the contexts take them. It stops ticking both sides when
    /// the input ends; a render-only device runs until stopped. A side started while the other is
    /// initialized waits for it, so a short input cannot end before the other side ran.
    case asFastAsPossible
    /// No thread: each `tick()` advances every started side by exactly one buffer, on the
    /// caller's thread. For deterministic tests.
    case manual
}
