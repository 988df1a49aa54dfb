import Foundation
import ParleyTestSupport
import Synchronization
import Testing
import AudioCore
import AudioDevices

/// Against a real PulseAudio daemon (Debian package `pulseaudio`), started per test with only a
/// null sink on a private socket: what the device plays into the sink, it records from the
/// sink's monitor. scripts/install-deps installs the daemon; without it these tests fail.
@Suite(.serialized, .tags(.interop))
struct PulseAudioLoopbackTests {
    /// A daemon in a temporary directory. It exits by itself 3 s after its last client leaves,
    /// so even a crashed test leaves nothing running; normally `deinit` kills it at once.
    /// Children are spawned and reaped with posix_spawn/waitpid: Foundation's `Process` here
    /// notices a child's exit only when another child exits.
    final class Daemon {
        let directory = AudioTestSupport.temporaryPath("pulse")
        private var pid: pid_t = 0
        var server: String { "unix:\(directory)/native" }

        init() throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            pid = try Self.spawn("/usr/bin/pulseaudio", [
                "-n", "--daemonize=no", "--exit-idle-time=3", "--use-pid-file=no", "--disable-shm=yes",
                "--log-target=stderr", "--log-level=error",
                "-L", "module-native-protocol-unix socket=\(directory)/native auth-anonymous=1",
                "-L", "module-null-sink sink_name=parley_null rate=48000 channels=1",
            ], environment: ["HOME=\(directory)", "XDG_RUNTIME_DIR=\(directory)"])
        }

        /// Waits for the socket to appear.
        func waitUntilReady() -> Bool {
            AudioTestSupport.wait(seconds: 4) { FileManager.default.fileExists(atPath: "\(directory)/native") }
        }

        /// Suspends or resumes the null sink with `pactl`. An idle null sink renders in 2 s blocks,
        /// so the first recorded buffer would take 2 s; suspended while the streams connect, it
        /// resumes straight at their 10 ms latency.
        func suspendSink(_ suspend: Bool) throws {
            let pactl = try Self.spawn("/usr/bin/pactl", ["-s", server, "suspend-sink", "parley_null", suspend ? "1" : "0"],
                                       environment: ["HOME=\(directory)"])
            var status: Int32 = 0
            _ = waitpid(pactl, &status, 0)
            #expect(status == 0, "pactl suspend-sink failed")
        }

        deinit {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
            try? FileManager.default.removeItem(atPath: directory)
        }

        /// Starts `path` with `arguments`, output discarded.
        static func spawn(_ path: String, _ arguments: [String], environment: [String]) throws -> pid_t {
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            let argv = ([path] + arguments).map { strdup($0) } + [nil]
            let envp = environment.map { strdup($0) } + [nil]
            defer { (argv + envp).forEach { free($0) } }
            var pid: pid_t = 0
            let status = posix_spawn(&pid, path, &actions, nil, argv, envp)
            guard status == 0 else { throw AudioDeviceError(.unavailable, "cannot start \(path): \(status)") }
            return pid
        }
    }

    @Test func playsIntoANullSinkAndRecordsItsMonitor() throws {
        let daemon = try Daemon()
        try #require(daemon.waitUntilReady(), "pulseaudio did not start")
        let device = try PulseAudioDevice(.init(server: daemon.server, applicationName: "Parley test",
                                                sourceName: "parley_null.monitor", sinkName: "parley_null"))
        try daemon.suspendSink(true)
        try device.initializeRenderer()
        try device.initializeCapturer()
        try daemon.suspendSink(false)
        let capture = RecordingCaptureContext()
        try device.startRendering(context: ToneRenderContext(sampleRate: 48_000, frequency: 1_000, levelDBFS: -6))
        try device.startCapturing(context: capture)
        let gotAudio = AudioTestSupport.wait(seconds: 3) {
            capture.buffers.suffix(20).count == 20 && capture.buffers.suffix(20).allSatisfy { b in b.contains { abs(Int($0)) > 8_000 } }
        }
        device.stopCapturing()
        capture.stopReturned.store(true, ordering: .releasing)
        device.stopRendering()
        #expect(gotAudio, "the tone came back through the monitor")
        #expect(capture.buffers.allSatisfy { $0.count == 480 })
        let tail = Array(capture.buffers.suffix(20).joined())
        #expect(abs(AudioTestSupport.zeroCrossingFrequency(tail, sampleRate: 48_000) - 1_000) < 10)
        let peak = tail.map { abs(Int($0)) }.max() ?? 0
        #expect(abs(peak - 16_422) < 400, "−6 dBFS back at unity volume: \(peak)")
        Thread.sleep(forTimeInterval: 0.03)
        #expect(capture.deliveriesAfterStop.load(ordering: .acquiring) == 0)
    }
}
