import Foundation
import Testing
import ParleyOpus
import ParleySRTP

/// The libsrtp2 and libopus wrappers link and work (the later media issues build on them).
@Suite struct SystemLibraryTests {
    @Test func srtpInitializesOnce() throws {
        try SRTPLibrary.initialize()
        try SRTPLibrary.initialize()
        #expect(SRTPLibrary.version.contains("2."))
    }

    @Test func opusRoundTripsA440HzTone() throws {
        let encoder = try OpusEncoder()
        let decoder = try OpusDecoder()
        var pcm = [Int16](repeating: 0, count: 960)
        var packet = [UInt8](repeating: 0, count: 1500)
        var out = [Int16](repeating: 0, count: 960)
        var energy = 0.0
        for frame in 0..<10 {
            for i in 0..<960 {
                let t = Double(frame * 960 + i) / 48_000
                pcm[i] = Int16(8000 * sin(2 * .pi * 440 * t))
            }
            let n = try pcm.withUnsafeBufferPointer { p in try packet.withUnsafeMutableBufferPointer { try encoder.encode(p, into: $0) } }
            #expect(n > 0 && n < 400)
            let samples = try packet.withUnsafeBufferPointer { p in
                try out.withUnsafeMutableBufferPointer { try decoder.decode(UnsafeBufferPointer(rebasing: p[0..<n]), into: $0) }
            }
            #expect(samples == 960)
            if frame == 9 { energy = out.reduce(0.0) { $0 + Double($1) * Double($1) } / 960 }
        }
        // A 8000-amplitude sine has RMS ≈ 5657; the decoded tone keeps most of it.
        #expect(energy.squareRoot() > 3000)
        #expect(OpusLibrary.version.hasPrefix("libopus"))
    }
}
