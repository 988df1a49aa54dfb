import AudioCore
import CallQuality
import Foundation
import ParleyCore
import ParleyTestSupport
import Synchronization
import Testing
@testable import ParleyVoice

/// The softphone as separate processes: `parley listen` (bob, answering and recording) and
/// `parley call bob` (alice, playing a 700 Hz tone and sending DTMF) against an in-process server.
/// Both exit 0; their live output names every state; bob hears alice's tone and her digits; a
/// rejecting `parley listen` makes `parley call` exit 1 with 31603.
extension VoiceSDKTests {
    @Suite(.tags(.process)) struct SoftphoneProcessTests {
        @Test func callAndListenProcessesTalk() async throws {
            // Three processes: parley-server with its SQLite store, and two `parley` clients minting
            // their tokens from that store (--identity --db).
            let directory = NSTemporaryDirectory() + "parley-softphone-\(getpid())"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let db = directory + "/parley.db"
            let server = try CLIProcess.start(try BuiltProducts.path("parley-server"),
                                              ["--http", "127.0.0.1:0", "--db", db, "--log-level", "info",
                                               "--recordings", directory + "/recordings"], captureStandardError: true)
            defer { server.terminate() }
            try await server.waitForOutput("listening on http://")
            let url = try #require(server.output.firstMatch(of: /listening on (http:\/\/127\.0\.0\.1:\d+)/)).1
            let parley = try BuiltProducts.path("parley")
            let tone = directory + "/tone.wav", heard = directory + "/bob-heard.wav"
            let samples = (0..<48_000).map { Int16(8000 * sin(2 * Double.pi * 700 * Double($0) / 48_000)) }
            try Data(WAVFile(sampleRate: 48_000, channels: 1, samples: samples).serialized).write(to: URL(fileURLWithPath: tone))

            let bob = try CLIProcess.start(parley, ["listen", "--identity", "bob", "--db", db, "--server", String(url),
                                                    "--record", heard])
            try await bob.waitForOutput("listening as bob")
            let alice = try CLIProcess.start(parley, ["call", "bob", "--identity", "alice", "--db", db, "--server", String(url),
                                                      "--play", tone, "--digits", "12#", "--duration", "3",
                                                      "--param", "Topic=demo"])
            #expect(await alice.exitStatus() == 0)
            #expect(await bob.exitStatus() == 0)
            let said = alice.output, heardLog = bob.output
            for line in ["calling bob", "ringing", "connected CA", "setup ", "sent digits 12#", "received ", "disconnected"] {
                #expect(said.contains(line), "alice's output lacks \(line): \(said)")
            }
            for line in ["incoming call CA", "from client:alice", "param Topic=demo", "received digit 1",
                         "received digit 2", "received digit #", "disconnected"] {
                #expect(heardLog.contains(line), "bob's output lacks \(line): \(heardLog)")
            }
            let wav = try WAVFile(contentsOfFile: heard)
            let middle = wav.samples.dropLast(wav.sampleRate).suffix(wav.sampleRate / 4).map(Double.init)
            let frequency = ToneAudio.dominantFrequency(middle)
            #expect(abs(frequency - 700) < 15, "bob heard \(frequency) Hz")
        }

        @Test func preflightProcessPrintsAReport() async throws {
            let bed = try VoiceTestBed()
            defer { Task { await bed.stop() } }
            let preflight = try CLIProcess.start(try BuiltProducts.path("parley"),
                                                 ["preflight", "--token", try bed.token("alice"), "--server", bed.baseURL,
                                                  "--duration", "2"])
            #expect(await preflight.exitStatus() == 0)
            let report = preflight.output
            for line in ["call SID PF", "timings: signaling", "MOS min", "packet loss min 0.00", "(host) ↔", "TURN required: false"] {
                #expect(report.contains(line), "the report lacks \(line): \(report)")
            }
            #expect(report.contains("call quality: excellent") || report.contains("call quality: great"), "\(report)")
        }

        @Test func rejectingListenerFailsTheCallWith31603() async throws {
            let bed = try VoiceTestBed()
            defer { Task { await bed.stop() } }
            let parley = try BuiltProducts.path("parley")
            let bob = try CLIProcess.start(parley, ["listen", "--token", try bed.token("bob"), "--server", bed.baseURL, "--reject"])
            try await bob.waitForOutput("listening as bob")
            let alice = try CLIProcess.start(parley, ["call", "bob", "--token", try bed.token("alice"), "--server", bed.baseURL])
            #expect(await alice.exitStatus() == 1)
            #expect(await bob.exitStatus() == 0)
            #expect(alice.output.contains("failed to connect: 31603"), "\(alice.output)")
        }
    }
}
