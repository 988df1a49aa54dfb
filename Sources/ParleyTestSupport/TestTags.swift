import Testing

/// The tags that split `make test` in two: untagged suites (pure code, in-process servers on
/// loopback) run in two processes at once; suites with one of these tags start real programs or
/// depend on real time, and run one at a time after them, alone (`scripts/test`, `scripts/test-groups`).
///
/// Put the tag on a top-level `@Suite`, e.g. `@Suite(.serialized, .tags(.interop))`.
extension Tag {
    /// Starts a third-party program as a peer or a checker: Chromium, aiortc and the other Python
    /// libraries, openssl, curl, coturn, sox, espeak-ng, ffprobe, PulseAudio.
    @Tag public static var interop: Self
    /// Starts one of Parley's own executables as a process: `parley-server`, `parley`, or the test
    /// binary itself as a child.
    @Tag public static var process: Self
    /// Asserts on what real threads do in real time (a device's pacing, callbacks within a sleep),
    /// so a second process sharing the cores would make it fail.
    @Tag public static var realTime: Self
}
