import Foundation
@testable import ServerMedia
import Testing

/// The conference mixer on a manual clock: real Opus and G.711 in, real Opus and G.711 out,
/// analysed with Goertzel after decoding.
@Suite struct ConferenceMixerTests {
    /// Sends a sine at `frequency` (peak 0.3 of full scale) as 20 ms frames in `codec`.
    final class ToneSender {
        let frequency: Double
        let codec: CallAudioCodec
        let input = ConferenceInput()
        private let encoder: FrameEncoder
        private var sample = 0
        private(set) var sequence: UInt16 = 4_000

        init(_ frequency: Double, codec: CallAudioCodec = .opus) throws {
            self.frequency = frequency
            self.codec = codec
            encoder = try FrameEncoder(codec: codec, configuration: CallMediaPlayer.Configuration())
        }

        func nextPayload() throws -> [UInt8] {
            let pcm = (0..<MediaAudio.frameSamples).map { n in
                Int16(0.3 * 32_767 * sin(2 * Double.pi * frequency * Double(sample + n) / Double(MediaAudio.sampleRate)))
            }
            sample += MediaAudio.frameSamples
            return try pcm.withUnsafeBufferPointer { try encoder.encode($0) }
        }

        /// Sends the next frame into the mixer's input.
        func send() throws {
            input.receive(try nextPayload(), sequenceNumber: sequence)
            sequence &+= 1
        }
    }

    /// Decodes the frames a session received (48 kHz samples) through the recorder's decoder.
    static func decode(_ frames: [CollectingSink.Frame], codec: CallAudioCodec) -> [Int16] {
        let leg = RecordingLeg(rate: MediaAudio.sampleRate, window: 1)
        var samples: [Int16] = []
        var timestamp: UInt32 = 0
        for (index, frame) in frames.enumerated() {
            let packet = TappedAudioPacket(payload: frame.payload, sequenceNumber: UInt16(truncatingIfNeeded: index),
                                           timestamp: timestamp, codec: codec)
            leg.receive(packet, position: samples.count) { output, pcm in
                samples += output.audible ? Array(pcm) : Array(repeating: 0, count: output.count)
            }
            timestamp &+= UInt32(frame.samples)
        }
        leg.flush { output, pcm in samples += output.audible ? Array(pcm) : Array(repeating: 0, count: output.count) }
        return samples
    }

    /// Amplitudes of `frequencies` in what `session` heard, after the first half second.
    static func heard(_ sink: CollectingSink, _ session: String, codec: CallAudioCodec = .opus,
                      _ frequencies: [Double]) -> [Double: Double] {
        let samples = decode(sink.frames(for: session), codec: codec).dropFirst(MediaAudio.sampleRate / 2)
        var levels: [Double: Double] = [:]
        for f in frequencies { levels[f] = MediaSignal.amplitude(samples, frequency: f, rate: MediaAudio.sampleRate) }
        return levels
    }

    @Test func eachParticipantHearsTheOthersButNotItself() throws {
        let sink = CollectingSink()
        let mixer = ConferenceMixer(sink: sink)
        let senders = try [400.0, 700, 1_100].map { try ToneSender($0) }
        for (i, sender) in senders.enumerated() {
            try mixer.add(session: "p\(i)", codec: .opus, input: sender.input, muted: false, active: true)
        }
        for _ in 0..<75 {
            for sender in senders { try sender.send() }
            mixer.tick()
        }
        let tones = senders.map(\.frequency)
        for (i, sender) in senders.enumerated() {
            let levels = Self.heard(sink, "p\(i)", tones)
            let own = levels[sender.frequency] ?? 0
            for other in tones where other != sender.frequency {
                // A 0.3 full-scale sine has amplitude ~9800; Opus keeps it within a dB or two.
                #expect((levels[other] ?? 0) > 7_000, "p\(i) hears \(other) Hz at \(levels[other] ?? 0)")
                #expect(own < (levels[other] ?? 0) / 50, "p\(i) hears itself at \(own)")
            }
        }
        let stats = mixer.statistics
        #expect(stats.ticks == 75)
        #expect(stats.framesEncoded == 75 * 3)
        print("conference mixer (debug build): \(String(format: "%.0f", stats.cpuMicrosecondsPerParticipantFrame)) µs CPU per participant frame (decode + mix + Opus encode), max tick \(stats.maximumTickCPUNanoseconds / 1_000) µs")
    }

    @Test func aMutedParticipantIsHeardByNobodyAndHearsEveryone() throws {
        let sink = CollectingSink()
        let mixer = ConferenceMixer(sink: sink)
        let speaker = try ToneSender(500)
        let mutedA = try ToneSender(900)
        let mutedB = try ToneSender(1_300)
        try mixer.add(session: "speaker", codec: .opus, input: speaker.input, muted: false, active: true)
        try mixer.add(session: "mutedA", codec: .opus, input: mutedA.input, muted: true, active: true)
        try mixer.add(session: "mutedB", codec: .opus, input: mutedB.input, muted: true, active: true)
        for _ in 0..<60 {
            try speaker.send()
            try mutedA.send()
            try mutedB.send()
            mixer.tick()
        }
        let bySpeaker = Self.heard(sink, "speaker", [500, 900, 1_300])
        #expect((bySpeaker[900] ?? 0) < 200 && (bySpeaker[1_300] ?? 0) < 200)
        let byMuted = Self.heard(sink, "mutedA", [500, 900, 1_300])
        #expect((byMuted[500] ?? 0) > 7_000)
        #expect((byMuted[1_300] ?? 0) < 200)
        // Both muted listeners hear exactly the total: one encode per tick, the same payload to each.
        #expect(sink.frames(for: "mutedA").map(\.payload) == sink.frames(for: "mutedB").map(\.payload))
        #expect(mixer.statistics.framesEncoded == 60 * 2)
    }

    @Test func g711AndOpusParticipantsHearEachOther() throws {
        let sink = CollectingSink()
        let mixer = ConferenceMixer(sink: sink)
        let opus = try ToneSender(600)
        let pcmu = try ToneSender(1_000, codec: .pcmu)
        try mixer.add(session: "opus", codec: .opus, input: opus.input, muted: false, active: true)
        try mixer.add(session: "pcmu", codec: .pcmu, input: pcmu.input, muted: false, active: true)
        for _ in 0..<60 {
            try opus.send()
            try pcmu.send()
            mixer.tick()
        }
        #expect(sink.frames(for: "pcmu").allSatisfy { $0.payload.count == 160 && $0.samples == 160 })
        let byOpus = Self.heard(sink, "opus", [600, 1_000])
        let byPCMU = Self.heard(sink, "pcmu", codec: .pcmu, [600, 1_000])
        #expect((byOpus[1_000] ?? 0) > 7_000 && (byOpus[600] ?? 0) < 300)
        #expect((byPCMU[600] ?? 0) > 7_000 && (byPCMU[1_000] ?? 0) < 300)
    }

    @Test func anInactiveParticipantNeitherHearsNorIsHeardUntilActivated() throws {
        let sink = CollectingSink()
        let mixer = ConferenceMixer(sink: sink)
        let a = try ToneSender(450)
        let waiting = try ToneSender(850)
        try mixer.add(session: "a", codec: .opus, input: a.input, muted: false, active: true)
        try mixer.add(session: "waiting", codec: .opus, input: waiting.input, muted: false, active: false)
        for _ in 0..<40 {
            try a.send()
            try waiting.send()
            mixer.tick()
        }
        #expect(sink.frames(for: "waiting").isEmpty)
        #expect((Self.heard(sink, "a", [850])[850] ?? 0) < 200)
        mixer.setActive(session: "waiting", true)
        for _ in 0..<60 {
            try a.send()
            try waiting.send()
            mixer.tick()
        }
        #expect(sink.frames(for: "waiting").count == 60)
        #expect((Self.heard(sink, "waiting", [450])[450] ?? 0) > 7_000)
        mixer.remove(session: "waiting")
        mixer.tick()
        #expect(sink.frames(for: "waiting").count == 60)
        #expect(mixer.participantCount == 1)
    }

    @Test func aRoomSoundReachesEveryone() throws {
        let sink = CollectingSink()
        let mixer = ConferenceMixer(sink: sink)
        let a = ConferenceInput(), b = ConferenceInput()
        try mixer.add(session: "a", codec: .opus, input: a, muted: false, active: true)
        try mixer.add(session: "b", codec: .opus, input: b, muted: true, active: true)
        mixer.play(ToneSource(frequencies: [880], seconds: 1))
        for _ in 0..<50 { mixer.tick() }
        for session in ["a", "b"] {
            let samples = Self.decode(sink.frames(for: session), codec: .opus).dropFirst(4_800).prefix(24_000)
            #expect(MediaSignal.amplitude(samples, frequency: 880, rate: MediaAudio.sampleRate) > 5_000)
        }
    }
}

@Suite struct ConferenceJitterQueueTests {
    private static func insert(_ queue: inout ConferenceJitterQueue, _ sequence: UInt16, byte: UInt8 = 7) {
        [byte, byte].withUnsafeBufferPointer { queue.insert($0, sequenceNumber: sequence) }
    }

    private static func take(_ queue: inout ConferenceJitterQueue) -> (ConferenceJitterQueue.Take, UInt8) {
        var buffer = [UInt8](repeating: 0, count: ConferenceJitterQueue.maximumPayload)
        let take = buffer.withUnsafeMutableBufferPointer { queue.take(into: $0) }
        return (take, buffer[0])
    }

    @Test func reordersAcrossTheWrapAndReportsALoss() {
        var queue = ConferenceJitterQueue()
        Self.insert(&queue, 65_534, byte: 1)
        #expect(Self.take(&queue).0 == .empty)  // one frame buffered: below the target depth
        Self.insert(&queue, 0, byte: 3)  // 65535 is late or lost
        #expect(Self.take(&queue) == (.packet(count: 2), 1))
        #expect(Self.take(&queue).0 == .lost)
        Self.insert(&queue, 65_535, byte: 2)  // too late now: dropped
        #expect(Self.take(&queue) == (.packet(count: 2), 3))
        #expect(queue.dropped == 1)
        #expect(Self.take(&queue).0 == .empty)  // ran dry
    }

    @Test func boundsTheLatencyByDroppingTheOldest() {
        var queue = ConferenceJitterQueue(targetDepth: 2, maximumDepth: 6)
        for s in UInt16(100)..<UInt16(110) { Self.insert(&queue, s, byte: UInt8(s - 100)) }
        #expect(queue.depth <= 6)
        let (take, byte) = Self.take(&queue)
        #expect(take == .packet(count: 2))
        #expect(byte >= 4)  // the oldest were dropped
    }
}
