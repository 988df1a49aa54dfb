import AudioCore
import AudioDevices
import Testing

/// Starting either side of a paced device (file, tone) through the `AudioDevice` protocol: the
/// same checks and messages for capture and render.
@Suite struct PacedDeviceStartTests {
    /// The reason of the `AudioDeviceError` that `body` throws, nil when it does not throw one.
    static func reason(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return (error as? AudioDeviceError)?.reason
        }
    }

    @Test func eachSideNeedsToBeInitializedOnceBeforeStarting() throws {
        let device: any AudioDevice = try ToneAudioDevice(pacing: .manual)
        let capture = RecordingCaptureContext(), render = CountingRenderContext()
        #expect(Self.reason { try device.startCapturing(context: capture) }
                == "parley-tone-dev: start capturing before initializing")
        #expect(Self.reason { try device.startRendering(context: render) }
                == "parley-tone-dev: start rendering before initializing")
        try device.initializeCapturer()
        try device.initializeRenderer()
        try device.startCapturing(context: capture)
        try device.startRendering(context: render)
        #expect(Self.reason { try device.startCapturing(context: capture) } == "parley-tone-dev is already capturing")
        #expect(Self.reason { try device.startRendering(context: render) } == "parley-tone-dev is already rendering")

        (device as? ToneAudioDevice)?.tick()
        #expect(capture.count == 1 && capture.samples.count == 480 && render.pulls == 1)
        device.stopCapturing()
        device.stopRendering()
    }

    @Test func aDeviceWithoutInputCannotStartCapturing() throws {
        let device: any AudioDevice = try FileAudioDevice(input: nil, outputPath: nil, pacing: .manual)
        #expect(device.captureFormat() == nil)
        #expect(device.renderFormat() == AudioFormat(sampleRate: 48_000, channels: 1))
        #expect(Self.reason { try device.startCapturing(context: RecordingCaptureContext()) }
                == "parley-file-dev has no input to capture")
        #expect(Self.reason { try device.initializeCapturer() } == "parley-file-dev has no input to capture")
    }
}
