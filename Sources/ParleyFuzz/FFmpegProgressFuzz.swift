import ServerMedia

/// Feeds bytes to `FFmpegProgressReader` whole and split at every third of the input: the blocks
/// it reads must not depend on how the pipe cut the bytes, and every time it reports is finite
/// and not negative.
enum FFmpegProgressFuzz {
    static func run(_ data: UnsafeRawBufferPointer) {
        var whole = FFmpegProgressReader()
        let all = whole.feed(data)
        var split = FFmpegProgressReader()
        let third = data.count / 3
        let pieces = split.feed(data[..<third]) + split.feed(data[third..<(2 * third)]) + split.feed(data[(2 * third)...])
        guard all == pieces else { fatalError("ffmpeg progress depends on how the bytes were split") }
        guard all.allSatisfy({ $0.seconds.isFinite && $0.seconds >= 0 }) else { fatalError("ffmpeg progress out of range") }
    }
}
