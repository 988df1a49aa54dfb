/// Bytes in memory as a `VideoByteSource`: tests, the fuzzer, small files read whole.
public struct MemoryByteSource: VideoByteSource, Sendable {
    public let bytes: [UInt8]
    public private(set) var offset = 0

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(VideoSourceError) -> Int {
        let n = min(buffer.count, bytes.count - offset)
        guard n > 0 else { return 0 }
        bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + n)])) }
        offset += n
        return n
    }

    public mutating func seek(to offset: Int) throws(VideoSourceError) {
        self.offset = min(max(0, offset), bytes.count)
    }
}
