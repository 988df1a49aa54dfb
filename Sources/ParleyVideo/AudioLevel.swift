import Foundation

/// The RFC 6464 audio level of 20 ms of PCM: −dBov of its RMS, 0 (loudest) to 127 (silence), as
/// the `urn:ietf:params:rtp-hdrext:ssrc-audio-level` extension carries it (§3). The server's
/// dominant speaker detection reads it.
enum AudioLevel {
    static func rfc6464(_ samples: UnsafeBufferPointer<Int16>) -> UInt8 {
        guard !samples.isEmpty else { return 127 }
        var sum = 0.0
        for sample in samples {
            let x = Double(sample) / 32_768
            sum += x * x
        }
        let rms = (sum / Double(samples.count)).squareRoot()
        guard rms > 0 else { return 127 }
        let dBov = 20 * log10(rms)
        return UInt8(min(127, max(0, (-dBov).rounded())))
    }
}
