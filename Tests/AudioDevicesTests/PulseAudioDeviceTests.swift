import Testing
import AudioCore
import AudioDevices

@Suite struct PulseAudioDeviceTests {
    static let nowhere = PulseAudioDevice.Configuration(server: "unix:/nonexistent/parley-test/pulse/native")

    @Test func failsWithPulseAudiosOwnErrorAndAHintWhenNoServerListens() throws {
        let device = try PulseAudioDevice(Self.nowhere)
        for initialize in [device.initializeCapturer, device.initializeRenderer] {
            #expect {
                try initialize()
            } throws: { error in
                guard let error = error as? AudioDeviceError else { return false }
                return error.kind == .unavailable
                    && error.reason.contains("Connection refused")
                    && error.reason.contains("unix:/nonexistent/parley-test/pulse/native")
                    && error.reason.contains("PULSE_SERVER")
            }
        }
    }

    @Test func startBeforeInitializeIsAnInvalidStateAndStopIsIdempotent() throws {
        let device = try PulseAudioDevice(Self.nowhere)
        #expect(device.captureFormat() == AudioFormat(sampleRate: 48_000, channels: 1, framesPerBuffer: 480))
        #expect { try device.startCapturing(context: RecordingCaptureContext()) } throws: {
            ($0 as? AudioDeviceError)?.kind == .invalidState
        }
        #expect { try device.startRendering(context: CountingRenderContext()) } throws: {
            ($0 as? AudioDeviceError)?.kind == .invalidState
        }
        device.stopCapturing()
        device.stopCapturing()
        device.stopRendering()
    }

    @Test func rejectsUnusableFormats() {
        #expect(throws: AudioDeviceError.self) {
            _ = try PulseAudioDevice(.init(captureFormat: AudioFormat(sampleRate: 48_000, channels: 40)))
        }
    }
}
