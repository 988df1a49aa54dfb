import Foundation
import ParleyTestSupport
import Testing

/// `parley room join` and `parley demo rooms` with bad arguments: a message and exit 2, never a trap.
@Suite(.tags(.process)) struct RoomUsageTests {
    static let base = ["room", "join", "r", "--server", "http://127.0.0.1:9", "--token", "x"]

    /// (arguments, what the message says)
    static let cases: [([String], String)] = [
        (["room"], "room: expected join"),
        (["room", "leave"], "unknown subcommand leave"),
        (["room", "join", "--server", "http://127.0.0.1:9", "--token", "x"], "expected the room's name"),
        (["room", "join", "r", "--server", "ftp://host", "--token", "x"], "--server must be an http"),
        (["room", "join", "r", "--server", "http://127.0.0.1:9"], "--token JWT or --identity NAME is required"),
        (["room", "join", "r", "--server", "http://127.0.0.1:9", "--identity", "no spaces", "--account-sid", "AC1",
          "--api-key", "SK1", "--api-secret", "s"], "--identity: identity must be"),
        (base + ["--tone", "loud"], "--tone must be a frequency"),
        (base + ["--tone", "440", "--audio", "/etc/hostname"], "--audio or --tone, not both"),
        (base + ["--audio", "/nonexistent/in.wav"], "--audio: no such file"),
        (base + ["--video", "testsrc", "--video-size", "100x100"], "--video-size must be WIDTHxHEIGHT"),
        (base + ["--video", "testsrc", "--video-size", "641x360"], "--video-size must be WIDTHxHEIGHT"),
        (base + ["--video", "testsrc", "--video-size", "big"], "--video-size must be WIDTHxHEIGHT"),
        (base + ["--video", "testsrc", "--fps", "0"], "--fps must be 1 to 60"),
        (base + ["--video-size", "640x360"], "--video-size and --fps go with --video testsrc"),
        (base + ["--video", "/nonexistent/in.y4m"], "no such file"),
        (base + ["--video", "/etc/hostname"], "--video must be testsrc, a .y4m or an .ivf file"),
        (base + ["--duration", "-1"], "--duration must be a number of seconds"),
        (base + ["--snapshot-every", "1"], "--snapshot-every needs --record-dir"),
        (base + ["--bogus"], "unknown option --bogus"),
        (["demo", "rooms", "--seconds", "soon"], "--seconds must be a number of seconds"),
    ]

    @Test(arguments: cases) func badArgumentsExitTwoWithAMessage(arguments: [String], message: String) async throws {
        let cli = try CLIProcess.start(try CLITestBed.parley, arguments, captureStandardError: true)
        #expect(await cli.exitStatus(timeout: .seconds(10)) == 2, "\(arguments): \(cli.output)")
        #expect(cli.output.contains(message), "\(arguments): \(cli.output)")
    }
}
