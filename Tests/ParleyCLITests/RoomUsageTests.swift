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
        (base + ["--video-size", "640x360"], "--video-size and --fps go with --video testsrc or a camera"),
        (base + ["--video", "/nonexistent/in.y4m"], "no such file"),
        (base + ["--video", "/etc/hostname"], "--video must be testsrc, camera[:N], /dev/videoN, a .y4m or an .ivf file"),
        (base + ["--video", "/dev/null"], "--video /dev/null: capture from /dev/null: not a V4L2 device"),
        (base + ["--video", "camera:x"], "--video camera:N needs a device number"),
        (base + ["--video", "camera:99"], "--video camera:99:"),
        (base + ["--video", "y.y4m", "--fps", "30"], "--video-size and --fps go with --video testsrc or a camera"),
        (["room", "devices", "extra"], "room devices takes no arguments"),
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

    /// `parley room devices` lists the cameras (none on CI machines) and exits 0.
    @Test func devicesListsTheCameras() async throws {
        let cli = try CLIProcess.start(try CLITestBed.parley, ["room", "devices"], captureStandardError: true)
        #expect(await cli.exitStatus(timeout: .seconds(10)) == 0, "\(cli.output)")
        #expect(cli.output.contains("no video capture devices") || cli.output.contains("camera:0 /dev/video"), "\(cli.output)")
    }
}
