import Foundation
import Testing
import AudioCore
import AudioDevices

@Suite struct AudioDeviceFactoryTests {
    @Test func makesEachKindOfDevice() throws {
        #expect(try AudioDeviceFactory.make(named: "null") is NullAudioDevice)

        let tone = try #require(try AudioDeviceFactory.make(named: "tone:1000,-6", pacing: .manual) as? ToneAudioDevice)
        #expect(tone.tone == .init(frequency: 1_000, levelDBFS: -6) && tone.pacing == .manual)
        let defaultTone = try #require(try AudioDeviceFactory.make(named: "tone") as? ToneAudioDevice)
        #expect(defaultTone.tone.frequency == 440)

        let input = AudioTestSupport.temporaryPath("factory-in.wav")
        defer { try? FileManager.default.removeItem(atPath: input) }
        let wav = WAVFile(sampleRate: 16_000, channels: 2, samples: [Int16](repeating: 7, count: 640))
        #expect(FileManager.default.createFile(atPath: input, contents: Data(wav.serialized)))
        let file = try #require(try AudioDeviceFactory.make(named: "file:\(input),/tmp/unused.wav,loop", pacing: .manual) as? FileAudioDevice)
        #expect(file.captureFormat() == AudioFormat(sampleRate: 16_000, channels: 2))
        #expect(file.renderFormat() == AudioFormat(sampleRate: 48_000, channels: 1))
        let inputOnly = try #require(try AudioDeviceFactory.make(named: "file:\(input)") as? FileAudioDevice)
        #expect(inputOnly.captureFormat() != nil)
        let outputOnly = try #require(try AudioDeviceFactory.make(named: "file:,out.wav") as? FileAudioDevice)
        #expect(outputOnly.captureFormat() == nil && outputOnly.renderFormat() != nil)

        let pulse = try #require(try AudioDeviceFactory.make(named: "pulse:tcp:localhost:1") as? PulseAudioDevice)
        #expect(pulse.configuration.server == "tcp:localhost:1")
        #expect((try AudioDeviceFactory.make(named: "pulse") as? PulseAudioDevice)?.configuration.server == nil)
    }

    @Test(arguments: ["", "speaker", "null:x", "tone:abc", "tone:1,2,3", "file:", "file:,", "file:a,b,c", "alsa:hw:0"])
    func rejectsUnknownNames(name: String) {
        #expect {
            _ = try AudioDeviceFactory.make(named: name)
        } throws: { error in
            guard let error = error as? AudioDeviceError else { return false }
            return error.kind == .invalidConfiguration && (error.reason.contains("unknown audio device") || error.reason.contains("not a number"))
        }
    }
}
