@testable import ParleyServer
import Testing

@Suite struct MediaZZProbe {
    struct NullSink: MediaFrameSink { func play(_ payload: [UInt8], samples: Int, to session: String) {} }
    @Test func probe() throws {
        for (name, codec, make) in [("opus ringback", CallAudioCodec.opus, { () -> any AudioSource in RingbackSource() }),
                                    ("opus music", .opus, { HoldMusic.source() }),
                                    ("opus silence", .opus, { SilenceSource() }),
                                    ("pcmu music", .pcmu, { HoldMusic.source() })] {
            let player = CallMediaPlayer(sink: NullSink())
            for i in 0..<100 { try player.start(make(), session: "s\(i)", codec: codec) }
            for _ in 0..<100 { player.tick() }
            let s = player.statistics
            print("PROBE \(name): \(s.cpuMicrosecondsPerFrame) µs/frame, \(s.coreFractionPerCall * 100) % core per call, max tick \(Double(s.maximumTickCPUNanoseconds) / 1e6) ms for 100 calls")
        }
    }
}
