/// Reads what `ffmpeg -progress pipe:1` writes: blocks of `key=value` lines, each ended by a
/// `progress=continue` line (`progress=end` for the last). Of each block it keeps `out_time_us`,
/// the media time written so far in microseconds (ffmpeg 5's `out_time_ms` is the same number,
/// misnamed; `N/A` or a negative value before the first frame counts as nothing yet). Bytes come
/// in chunks as the pipe gives them; a line split across chunks is joined. A line longer than
/// `maxLine` is dropped (ffmpeg's are short), so memory stays bounded whatever arrives.
/// A pure value: bytes in, progress out.
package struct FFmpegProgressReader: Sendable {
    /// One block's progress.
    package struct Progress: Sendable, Hashable {
        /// Media seconds written so far.
        package var seconds: Double
        /// The block said `progress=end`: ffmpeg finished writing.
        package var ended: Bool

        package init(seconds: Double, ended: Bool) {
            self.seconds = seconds
            self.ended = ended
        }
    }

    package static let maxLine = 256

    private var line: [UInt8] = []
    private var overlong = false
    private var microseconds: Int64?

    package init() {}

    /// Reads `bytes`; returns the progress of every block they end, in order.
    package mutating func feed(_ bytes: some Sequence<UInt8>) -> [Progress] {
        var ended: [Progress] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if !overlong, let progress = readLine() { ended.append(progress) }
                line.removeAll(keepingCapacity: true)
                overlong = false
            } else if line.count < Self.maxLine {
                line.append(byte)
            } else {
                overlong = true
            }
        }
        return ended
    }

    /// One whole line: a key we keep, or a block's end (its progress).
    private mutating func readLine() -> Progress? {
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        guard let equals = line.firstIndex(of: UInt8(ascii: "=")) else { return nil }
        let key = line[..<equals], value = line[(equals + 1)...]
        if key.elementsEqual("out_time_us".utf8) || key.elementsEqual("out_time_ms".utf8) {
            if let parsed = Self.integer(value), parsed >= 0 { microseconds = parsed }
        } else if key.elementsEqual("progress".utf8) {
            let end = value.elementsEqual("end".utf8)
            guard end || value.elementsEqual("continue".utf8) else { return nil }
            return Progress(seconds: Double(microseconds ?? 0) / 1e6, ended: end)
        }
        return nil
    }

    /// A decimal integer of at most 18 digits with an optional minus sign; nil otherwise.
    private static func integer(_ digits: ArraySlice<UInt8>) -> Int64? {
        var rest = digits[...]
        let negative = rest.first == UInt8(ascii: "-")
        if negative { rest = rest.dropFirst() }
        guard !rest.isEmpty, rest.count <= 18 else { return nil }
        var value: Int64 = 0
        for byte in rest {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return negative ? -value : value
    }
}
