import Testing

/// The tags that split `make test` in two: untagged suites (pure code, in-process servers on
/// loopback) run in parallel; suites with one of these tags start real programs, are sensitive to
/// timing on a loaded machine, and run one at a time after them (`scripts/test-groups`).
///
/// Put the tag on a top-level `@Suite`, e.g. `@Suite(.serialized, .tags(.interop))`.
extension Tag {
    /// Starts a third-party program as a peer or a checker: Chromium, aiortc and the other Python
    /// libraries, openssl, curl, coturn, sox, espeak-ng, ffprobe, PulseAudio.
    @Tag public static var interop: Self
    /// Starts one of Parley's own executables as a process: `parley-server`, `parley`, or the test
    /// binary itself as a child.
    @Tag public static var process: Self
}
