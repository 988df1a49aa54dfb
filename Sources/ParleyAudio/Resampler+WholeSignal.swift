import ParleyCore

extension Resampler {
    /// Resamples a whole mono signal (speexdsp), compensating the filter delay so that input and
    /// output stay time-aligned: the output starts with the input's first sample and has
    /// `count × outputRate / inputRate` samples. For prepared material (files, prompts), not the
    /// real-time path, which keeps one `Resampler` per stream.
    public static func resample(_ samples: [Int16], from inputRate: Int, to outputRate: Int,
                                quality: Int = Resampler.defaultQuality) throws(ParleyError) -> [Int16] {
        guard inputRate != outputRate, !samples.isEmpty else { return samples }
        let resampler = try Resampler(inputRate: inputRate, outputRate: outputRate, channels: 1, quality: quality)
        let padded = samples + [Int16](repeating: 0, count: resampler.inputLatency + 1)
        var output = [Int16](repeating: 0, count: resampler.maximumOutputFrames(forInputFrames: padded.count))
        var consumed = 0, produced = 0
        padded.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                while consumed < input.count, produced < out.count {
                    let step = resampler.process(UnsafeBufferPointer(rebasing: input[consumed...]),
                                                 into: UnsafeMutableBufferPointer(rebasing: out[produced...]))
                    if step.consumed == 0 && step.produced == 0 { break }
                    consumed += step.consumed
                    produced += step.produced
                }
            }
        }
        let skip = min(resampler.outputLatency, produced)
        let wanted = Int(Int64(samples.count) * Int64(outputRate) / Int64(inputRate))
        return Array(output[skip..<min(produced, skip + wanted)])
    }
}
