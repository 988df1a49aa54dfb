import AudioCore
import Testing

@Suite struct DTMFToneGeneratorTests {
    /// Runs the generator over `total` frames of a constant "captured" signal, in `chunk`-sized buffers.
    static func render(_ generator: inout DTMFToneGenerator, total: Int, chunk: Int, captured: Int16 = 7) -> [Int16] {
        var out: [Int16] = []
        var buffer = [Int16](repeating: 0, count: chunk)
        while out.count < total {
            let count = min(chunk, total - out.count)
            for i in 0..<count { buffer[i] = captured }
            buffer.withUnsafeMutableBufferPointer { all in
                _ = generator.process(UnsafeMutableBufferPointer(rebasing: all[0..<count]))
            }
            out += buffer[0..<count]
        }
        return out
    }

    @Test func tonesReplaceAudioAndGapsLetItThrough() throws {
        var generator = DTMFToneGenerator(sampleRate: 8_000)
        try generator.enqueue("1w2")
        #expect(generator.isActive)
        // 100 ms tone, 70 ms gap, 500 ms pause, 100 ms tone, 70 ms gap = 840 ms.
        let out = Self.render(&generator, total: 8 * 900, chunk: 160)
        #expect(!generator.isActive)
        let expected1 = DTMFToneGenerator.samples(for: .one, sampleRate: 8_000, milliseconds: 100)
        let expected2 = DTMFToneGenerator.samples(for: .two, sampleRate: 8_000, milliseconds: 100)
        #expect(Array(out[0..<800]) == expected1)
        #expect(out[800..<(800 + 560 + 4_000)].allSatisfy { $0 == 7 })   // gap then pause: audio passes
        #expect(Array(out[5_360..<6_160]) == expected2)
        #expect(out[6_160...].allSatisfy { $0 == 7 })
    }

    @Test func bufferSizeDoesNotChangeTheOutput() throws {
        var a = DTMFToneGenerator(sampleRate: 16_000)
        var b = DTMFToneGenerator(sampleRate: 16_000)
        try a.enqueue("#9")
        try b.enqueue("#9")
        #expect(Self.render(&a, total: 6_000, chunk: 320) == Self.render(&b, total: 6_000, chunk: 37))
    }

    @Test(arguments: [8_000, 16_000, 48_000])
    func theDetectorHearsEveryGeneratedKey(sampleRate: Int) throws {
        var generator = DTMFToneGenerator(sampleRate: sampleRate,
                                          configuration: .init(toneMilliseconds: 60, gapMilliseconds: 50))
        generator.enqueue(DTMFDialString(elements: DTMFDigit.allCases.map { .digit($0) }))
        let frames = sampleRate * 16 * 110 / 1_000 + sampleRate / 10
        let out = Self.render(&generator, total: frames, chunk: sampleRate / 100, captured: 0)
        var detector = DTMFDetector(sampleRate: sampleRate)
        #expect(detector.process(out).map(\.digit) == DTMFDigit.allCases)
    }

    @Test func stereoBuffersGetTheToneOnBothChannels() throws {
        var generator = DTMFToneGenerator(sampleRate: 8_000)
        try generator.enqueue("5")
        var buffer = [Int16](repeating: 0, count: 160)
        let wrote = buffer.withUnsafeMutableBufferPointer { generator.process($0, channels: 2) }
        #expect(wrote)
        let left = stride(from: 0, to: 160, by: 2).map { buffer[$0] }
        let right = stride(from: 1, to: 160, by: 2).map { buffer[$0] }
        #expect(left == right)
        #expect(left == DTMFToneGenerator.samples(for: .five, sampleRate: 8_000, milliseconds: 10))
        #expect(generator.currentDigit == .five)
    }

    @Test func cancelStopsAtOnce() throws {
        var generator = DTMFToneGenerator(sampleRate: 8_000)
        try generator.enqueue("123")
        _ = Self.render(&generator, total: 400, chunk: 160)
        generator.cancel()
        #expect(!generator.isActive)
        #expect(Self.render(&generator, total: 800, chunk: 160).allSatisfy { $0 == 7 })
        #expect(throws: DTMFDialStringError(character: "x", position: 1)) { try generator.enqueue("1x") }
    }

    @Test func configurationClampsTooShortTones() {
        let configuration = DTMFToneGenerator.Configuration(toneMilliseconds: 10, gapMilliseconds: 5)
        #expect(configuration.toneMilliseconds == 40 && configuration.gapMilliseconds == 40)
    }
}
