/// The recording's common timeline: each leg's decoded audio waits here at its absolute position
/// (in frames at the recording rate) until every started leg has reached it, then it is mixed
/// (mono) or interleaved (dual: leg 0 left, leg 1 right) and written. A leg that falls more than
/// `maximumLag` behind the leader (not started yet, muted, held, gone) is filled with silence
/// instead of holding the others back. Nothing is kept beyond `maximumFrames`.
struct RecordingTimeline {
    let channels: Int
    let maximumLag: Int
    let maximumFrames: Int
    /// Frames already written to the file.
    private(set) var flushed = 0
    private var legs: [[Int16]]
    private var legStarted: [Bool]
    private var scratch: [Int16]

    init(legs: Int, channels: Int, maximumLag: Int, maximumFrames: Int) {
        self.channels = channels
        self.maximumLag = max(1, maximumLag)
        self.maximumFrames = max(0, maximumFrames)
        self.legs = Array(repeating: [], count: legs)
        legStarted = Array(repeating: false, count: legs)
        scratch = [Int16](repeating: 0, count: 1_024 * channels)
    }

    /// The end of the furthest leg: the recording's length so far, at most `maximumFrames`.
    var frames: Int {
        min(maximumFrames, flushed + (legs.map(\.count).max() ?? 0))
    }

    /// Places `samples` (or `count` frames of silence when `samples` is empty) of `leg` at `position`.
    mutating func write(leg: Int, position: Int, count: Int, samples: UnsafeBufferPointer<Int16>) {
        legStarted[leg] = true
        var skip = max(0, flushed - position)
        let start = max(position, flushed) - flushed
        guard skip < count, flushed + start < maximumFrames else { return }
        let take = min(count - skip, maximumFrames - flushed - start)
        if legs[leg].count < start {
            legs[leg].append(contentsOf: repeatElement(0, count: start - legs[leg].count))
        }
        // Positions only move forward per leg; an overlap (after re-anchoring) overwrites.
        let overlap = min(max(0, legs[leg].count - start), take)
        for i in 0..<overlap {
            legs[leg][start + i] = samples.isEmpty ? 0 : samples[skip + i]
        }
        skip += overlap
        let rest = take - overlap
        if rest > 0 {
            if samples.isEmpty {
                legs[leg].append(contentsOf: repeatElement(0, count: rest))
            } else {
                legs[leg].append(contentsOf: UnsafeBufferPointer(rebasing: samples[skip..<skip + rest]))
            }
        }
    }

    /// Writes what every started leg has reached (or everything, when `all`).
    mutating func flush(all: Bool, to writer: WAVStreamWriter) throws(MediaError) {
        // A leg not started yet counts as at 0: the others wait for it up to `maximumLag`.
        let ends = legs.indices.map { legStarted[$0] ? legs[$0].count : 0 }
        guard let longest = ends.max(), longest > 0 else { return }
        let ready = all ? longest : max(ends.min() ?? 0, longest - maximumLag)
        var done = 0
        while done < ready {
            let count = min(ready - done, scratch.count / channels)
            for frame in 0..<count {
                let i = done + frame
                if channels == 1 {
                    var sum = 0
                    for leg in legs.indices where i < legs[leg].count { sum += Int(legs[leg][i]) }
                    scratch[frame] = Int16(clamping: sum)
                } else {
                    for c in 0..<channels {
                        scratch[frame * channels + c] = c < legs.count && i < legs[c].count ? legs[c][i] : 0
                    }
                }
            }
            try scratch.withUnsafeBufferPointer { buffer in
                Result { () throws(MediaError) in try writer.append(UnsafeBufferPointer(rebasing: buffer[0..<count * channels])) }
            }.get()
            done += count
        }
        for leg in legs.indices { legs[leg].removeFirst(min(ready, legs[leg].count)) }
        flushed += ready
    }
}
