import Testing
import AudioCore
import AudioDevices

@Suite struct NullAudioDeviceTests {
    @Test func declaresNoFormats() throws {
        let device = NullAudioDevice()
        #expect(device.captureFormat() == nil)
        #expect(device.renderFormat() == nil)
        try device.initializeCapturer()
        try device.initializeRenderer()
    }
}
