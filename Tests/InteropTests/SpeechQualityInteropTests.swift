import Foundation
import NetworkConditioner
import ParleyAudio
import ParleyTestSupport
import Testing

/// Speech from espeak-ng through the audio path (AudioPathSimulation), scored by ITU-T P.862.2
/// PESQ-WB (the `pesq` package in the project venv) against the original: the quality
/// targets, checked on every `make test`. Needs espeak-ng and the venv (scripts/install-deps);
/// without them the test fails, it does not skip.
@Suite(.serialized, .tags(.interop)) struct SpeechQualityInteropTests {
    static func speech() throws -> [Int16] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parley-quality-\(getpid()).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try SpeechMaterial.speak(to: path)
        return try SpeechMaterial.load(path, rate: AudioPathSimulation.rate)
    }

    static func score(_ input: [Int16], _ runs: [AudioPathSimulation.Options]) throws -> [Double] {
        let reference = try SpeechMaterial.resample(input, from: AudioPathSimulation.rate, to: 16_000)
        let degraded = try runs.map { options in
            let played = try AudioPathSimulation.run(input: input, options: options).output
            return (reference, try SpeechMaterial.resample(played, from: AudioPathSimulation.rate, to: 16_000))
        }
        return try SpeechMaterial.pesq(degraded, packageRoot: Python.packageRoot)
    }

    @Test func pesqTargetsHold() throws {
        let input = try Self.speech()
        let clean = AudioPathSimulation.Options()
        var lossy = AudioPathSimulation.Options()
        lossy.conditions = NetworkConditions(loss: .random(percent: 10))
        var plain = lossy
        plain.redDistance = 0
        plain.fec = .off
        let scores = try Self.score(input, [clean, lossy, plain])
        // Targets of issue 4: ≥ 4.0 without loss, ≥ 3.0 at 10 % random loss; plain PLC is far below.
        #expect(scores[0] >= 4.0)
        #expect(scores[1] >= 3.0)
        #expect(scores[2] < scores[1] - 0.5)
    }
}
