/// Sources played one after another (`<Say>` then `<Play>`, or a prompt then hold music), joined
/// without a gap: the next source continues inside the buffer where the previous one ended.
public struct SequenceSource: AudioSource {
    private var sources: [any AudioSource]
    private var index = 0

    public init(_ sources: [any AudioSource]) {
        self.sources = sources
    }

    public mutating func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Bool {
        readSamples(into: buffer) > 0
    }

    public mutating func readSamples(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        var filled = 0
        while filled < buffer.count, index < sources.count {
            let rest = UnsafeMutableBufferPointer(rebasing: buffer[filled...])
            let n = sources[index].readSamples(into: rest)
            filled += n
            if n < rest.count { index += 1 }
        }
        if filled < buffer.count {
            UnsafeMutableBufferPointer(rebasing: buffer[filled...]).update(repeating: 0)
        }
        return filled
    }
}
