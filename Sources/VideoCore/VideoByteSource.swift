/// Where a file reader's bytes come from: a file, or memory (tests and the fuzzer).
public protocol VideoByteSource {
    /// Reads up to `buffer.count` bytes; 0 at the end.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(VideoSourceError) -> Int
    /// Moves to `offset` bytes from the start.
    mutating func seek(to offset: Int) throws(VideoSourceError)
}

extension VideoByteSource {
    /// Fills `buffer` completely; false when the input ends first (then part of it may be filled).
    public mutating func readFully(into buffer: UnsafeMutableRawBufferPointer) throws(VideoSourceError) -> Bool {
        var filled = 0
        while filled < buffer.count {
            let n = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if n == 0 { return false }
            filled += n
        }
        return true
    }

    /// Reads one byte; nil at the end.
    public mutating func readByte() throws(VideoSourceError) -> UInt8? {
        var byte: UInt8 = 0
        let n = try withUnsafeMutableBytes(of: &byte) { p in Result { () throws(VideoSourceError) -> Int in try read(into: p) } }.get()
        return n == 1 ? byte : nil
    }

    /// Reads one line up to `\n` (not included), at most `limit` bytes, into `line`; false at a
    /// clean end of input before any byte.
    mutating func readLine(into line: inout [UInt8], limit: Int) throws(VideoSourceError) -> Bool {
        line.removeAll(keepingCapacity: true)
        while true {
            guard let byte = try readByte() else {
                if line.isEmpty { return false }
                throw .malformed(.truncated)
            }
            if byte == 0x0A { return true }
            guard line.count < limit else { throw .malformed(.headerTooLong(limit: limit)) }
            line.append(byte)
        }
    }
}
