import Foundation
import ParleyCrypto

// parley-bench: Parley's benchmarks. Figures are printed, never asserted (see docs/PERFORMANCE.md).
//   parley-bench parsers                      in-process parser and token throughput
//   parley-bench http URL [--connections N] [--seconds S]   keep-alive HTTP load against a server
//   parley-bench srtp                         SRTP protect/unprotect ns/packet, both profiles
//   parley-bench webrtc-connect [--sessions N]               offer → connected against /v1/echo, percentiles
//   parley-bench forward [--seconds S] [--sessions N] [--window W] [--pin 0|1]   echo-path packets/s on one core
//   parley-bench rooms [--publishers P] [--subscribers S] [--video-kbps K] [--seconds S] [--pin 0|1]
//                                             the SFU's fan-out: forwarded packets/s per core, added latency
//   parley-bench rooms-data [--subscribers N] [--messages M] [--size B] [--window W] [--pin 0|1]
//                                             data tracks through the SFU: messages/s, CPU per message, latency
//   parley-bench rooms-janus [same options]   the same load on Parley, then on Janus VideoRoom, and the ratio
//                                             (root: runs itself and Janus in a private network namespace)
//   parley-bench audio-quality [--input ref.wav --output out.wav --loss 10 --burst --jitter-ms 30 --seed N --codec opus|pcmu]
//                                             speech through a simulated network, PESQ-WB (docs/quality.md)
//   parley-bench call-quality [--seeds N] [--condition NAME] [--output DIR] [--parallel N]
//                                             the real call path (SDK → server → SDK, a relay on each hop), PESQ-WB
//   parley-bench opus-encode                  Opus encode cost per 20 ms frame and share of one core
//   parley-bench vp8-encode                   VP8 encode cost per 640×360 frame (one layer, three simulcast layers), camera conversions
//   parley-bench video-join [--joins N]       ParleyVideo: Video.connect → roomDidConnect and → first decoded frame
//   parley-bench recordings [--tracks N] [--seconds S] [--video-kbps K]
//                                             room track recorders' CPU per track, the tap's cost, file sizes,
//                                             ffmpeg remux and composition times
//   parley-bench calls [--calls N] [--seconds S] [--pin 1|0] [--via-signaling K] [--client-processes P] [--server-rcvbuf B]
//                                             bridged calls: CPU, memory, loss per call
//   parley-bench signaling-idle [--connections N] [--hold S] [--in-process 0|1]   idle signaling WebSockets: memory per connection
//   parley-bench sip-calls [--calls N] [--seconds S] [--mode forwarded|transcoded]
//                                             bridged SIP ↔ WebRTC calls: CPU per call, loss, delay
//   parley-bench sip [--users U] [--registrations N] [--rate R] [--calls C] [--call-rate R]
//                                             registrar and B2BUA beside Kamailio under the same sipp scenarios
//   parley-bench all                          parsers, SRTP, then HTTP against an in-process server
OpenSSLRuntime.keepStateUntilExit()
let arguments = Array(CommandLine.arguments.dropFirst())
/// A failing bench prints why and exits 1 (never a trap).
func runBench(_ arguments: [String]) async throws {
    switch arguments.first {
    case "libraries":
        LibraryBench.runAll()
    case "parsers":
        ParserBench.runAll()
    case "http":
        guard arguments.count >= 2 else { usage() }
        let options = BenchOptions(arguments.dropFirst(2))
        HTTPLoad(url: arguments[1], connections: options.int("--connections", 8), seconds: options.double("--seconds", 10)).run()
    case "srtp":
        try SRTPBench.run()
    case "webrtc-connect":
        let options = BenchOptions(arguments.dropFirst())
        try await WebRTCConnectBench.run(sessions: options.int("--sessions", 100))
    case "rooms":
        let options = BenchOptions(arguments.dropFirst())
        try await RoomsBench.run(seconds: options.double("--seconds", 10), publishers: options.int("--publishers", 10),
                                 subscribers: options.int("--subscribers", 40), videoKbps: options.int("--video-kbps", 500),
                                 pin: options.int("--pin", 1) != 0)
    case "rooms-data":
        let options = BenchOptions(arguments.dropFirst())
        try await RoomsDataBench.run(subscribers: options.int("--subscribers", 4), messages: options.int("--messages", 50_000),
                                     size: options.int("--size", 100), window: options.int("--window", 1000),
                                     pin: options.int("--pin", 1) != 0)
    case "rooms-janus":
        let options = BenchOptions(arguments.dropFirst())
        try await RoomsJanusBench.run(arguments: arguments, seconds: options.double("--seconds", 10),
                                      publishers: options.int("--publishers", 10), subscribers: options.int("--subscribers", 40),
                                      videoKbps: options.int("--video-kbps", 500), pin: options.int("--pin", 1) != 0)
    case "sip":
        let options = BenchOptions(arguments.dropFirst())
        var sip = SIPBench.Options()
        sip.users = options.int("--users", sip.users)
        sip.registrations = options.int("--registrations", sip.registrations)
        sip.rate = options.int("--rate", sip.rate)
        sip.calls = options.int("--calls", sip.calls)
        sip.callRate = options.int("--call-rate", sip.callRate)
        try await SIPBench.run(sip)
    case "forward":
        let options = BenchOptions(arguments.dropFirst())
        try await ForwardBench.run(seconds: options.double("--seconds", 10), sessions: options.int("--sessions", 1),
                                   window: options.int("--window", 256), pin: options.int("--pin", 1) != 0)
    case "audio-quality":
        try AudioQualityBench.run(arguments.dropFirst())
    case "call-quality":
        try await CallQualityBench.run(arguments.dropFirst())
    case "opus-encode":
        try OpusEncodeBench.run()
    case "vp8-encode":
        try VP8EncodeBench.run()
    case "video-join":
        let options = BenchOptions(arguments.dropFirst())
        try await VideoJoinBench.run(joins: options.int("--joins", 20))
    case "recordings":
        let options = BenchOptions(arguments.dropFirst())
        try await RecordingsBench.run(tracks: options.int("--tracks", 10), seconds: options.int("--seconds", 60),
                                      videoKbps: options.int("--video-kbps", 800))
    case "calls":
        let options = BenchOptions(arguments.dropFirst())
        try await CallsBench.run(calls: options.int("--calls", 500), seconds: options.double("--seconds", 60),
                                 pin: options.int("--pin", 1) != 0, viaSignaling: options.int("--via-signaling", 20),
                                 workers: options.int("--client-processes", 0), receiveBuffer: options.int("--server-rcvbuf", 0))
    case "calls-client":   // started by `calls` itself (CallsBenchWorker)
        try await CallsBenchWorker.run(arguments.dropFirst())
    case "sip-calls":
        let options = BenchOptions(arguments.dropFirst())
        try await SIPCallsBench.run(calls: options.int("--calls", 500), seconds: options.double("--seconds", 30),
                                    transcoded: options.values["--mode"] == "transcoded", pin: options.int("--pin", 1) != 0,
                                    sharedLoop: options.int("--shared-loop", 0) != 0)
    case "sip-calls-client":   // started by `sip-calls` itself (SIPCallsBenchWorker)
        try await SIPCallsBenchWorker.run(arguments.dropFirst())
    case "signaling-idle":
        let options = BenchOptions(arguments.dropFirst())
        try await SignalingIdleBench.run(connections: options.int("--connections", 50_000), hold: options.double("--hold", 30),
                                         inProcess: options.int("--in-process", 0) != 0)
    case "all":
        ParserBench.runAll()
        try SRTPBench.run()
        try InProcessHTTPBench.run(seconds: 5)
    default:
        usage()
    }
}

do {
    try await runBench(arguments)
} catch {
    FileHandle.standardError.write(Data("parley-bench: \(error)\n".utf8))
    exit(1)
}

func usage() -> Never {
    FileHandle.standardError.write(Data("""
        usage: parley-bench parsers
               parley-bench http URL [--connections N] [--seconds S]
               parley-bench srtp
               parley-bench webrtc-connect [--sessions N]
               parley-bench forward [--seconds S] [--sessions N] [--window W] [--pin 0|1]
               parley-bench rooms [--publishers P (10)] [--subscribers S (40)] [--video-kbps K (500)] [--seconds S (10)] [--pin 1|0]
               parley-bench rooms-data [--subscribers N (4)] [--messages M (50000)] [--size B (100)] [--window W (1000)] [--pin 1|0]
               parley-bench rooms-janus [the same options]   (root; Janus 1.1.2 from scripts/install-deps)
               parley-bench audio-quality [--input ref.wav] [--output out.wav] [--loss P] [--burst [MEAN]]
                   [--jitter-ms J] [--reorder P] [--seed N] [--codec opus|pcmu|pcma] [--red 0|1|2] [--no-fec]
               parley-bench call-quality [--seeds N (5)] [--condition NAME] [--output DIR] [--parallel N (3)]
                   NAME: clean, loss10, loss10-jitter30, loss20, bursty5 (end to end; half on each hop)
               parley-bench opus-encode
               parley-bench vp8-encode
               parley-bench video-join [--joins N (20)]
               parley-bench recordings [--tracks N (10)] [--seconds S (60)] [--video-kbps K (800)]
               parley-bench calls [--calls N (500)] [--seconds S (60)] [--pin 1|0] [--via-signaling K (20)]
                   [--client-processes P (one per 50 calls)] [--server-rcvbuf BYTES (experiment)]
               parley-bench sip-calls [--calls N (500)] [--seconds S (30)] [--mode forwarded|transcoded] [--pin 1|0] [--shared-loop 0|1]
               parley-bench signaling-idle [--connections N (50000)] [--hold S (30)] [--in-process 0|1]
               parley-bench all

        """.utf8))
    exit(2)
}

/// `--name value` options.
struct BenchOptions {
    var values: [String: String] = [:]
    init(_ args: ArraySlice<String>) {
        var rest = args
        while let flag = rest.popFirst(), let value = rest.popFirst() { values[flag] = value }
    }
    func int(_ name: String, _ fallback: Int) -> Int { values[name].flatMap(Int.init) ?? fallback }
    func double(_ name: String, _ fallback: Double) -> Double { values[name].flatMap(Double.init) ?? fallback }
}

/// Runs `body` repeatedly for about `seconds` and reports operations per second.
func measure(_ name: String, seconds: Double = 1.5, unitBytes: Int = 0, _ body: () -> Void) {
    for _ in 0..<100 { body() }   // warm up
    let clock = ContinuousClock()
    var iterations = 0
    let start = clock.now
    var elapsed = Duration.zero
    while elapsed < .milliseconds(Int64(seconds * 1000)) {
        for _ in 0..<256 { body() }
        iterations += 256
        elapsed = clock.now - start
    }
    let secondsTaken = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let rate = Double(iterations) / secondsTaken
    var line = "\(name.padding(toLength: 44, withPad: " ", startingAt: 0)) \(format(rate)) ops/s"
    line += "  \(String(format: "%.0f", 1e9 / rate)) ns/op"
    if unitBytes > 0 { line += "  \(String(format: "%.0f", rate * Double(unitBytes) / 1e6)) MB/s" }
    print(line)
}

func format(_ value: Double) -> String {
    let s = String(Int(value.rounded()))
    var out = ""
    for (i, c) in s.reversed().enumerated() {
        if i > 0 && i % 3 == 0 { out.append(",") }
        out.append(c)
    }
    return String(out.reversed())
}
