import Testing
import ParleyAudio

@Suite struct AudioCodecKindTests {
    @Test func clockRates() {
        #expect(AudioCodecKind.opus.clockRate == 48_000)
        #expect(AudioCodecKind.pcmu.clockRate == 8_000)
        #expect(AudioCodecKind.pcma.clockRate == 8_000)
    }
}
