import Testing
import AudioCore

@Suite struct AudioFormatTests {
    @Test func defaultsToTenMillisecondBuffers() {
        let f = AudioFormat(sampleRate: 48_000, channels: 2)
        #expect(f.framesPerBuffer == 480)
        #expect(f.samplesPerBuffer == 960)
        #expect(f.bufferDuration == 0.01)
        #expect(AudioFormat(sampleRate: 8_000).frames(milliseconds: 20) == 160)
    }
}
