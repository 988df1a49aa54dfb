/// Writes an RTP header extension block in the one-byte form (RFC 8285 §4.2) straight into a
/// packet buffer: `0xBEDE`, the length in 32-bit words, then elements of 1–16 bytes with ids
/// 1–14, padded with zeros to a word. Nothing is allocated.
struct OneByteExtensionWriter {
    let base: UnsafeMutableRawPointer
    /// Where the block starts (right after the fixed header and CSRCs) and where the next element goes.
    let start: Int
    private(set) var offset: Int
    /// The buffer's size: an element that would not fit is left out.
    let capacity: Int

    init(base: UnsafeMutableRawPointer, start: Int, capacity: Int) {
        self.base = base
        self.start = start
        self.capacity = capacity
        offset = start + 4
    }

    var isEmpty: Bool { offset == start + 4 }

    /// An element with `bytes` as its data (an SDES identifier: mid, rid, RFC 8852 §3).
    mutating func append(id: UInt8, bytes: [UInt8]) {
        guard (1...14).contains(id), (1...16).contains(bytes.count), offset + 1 + bytes.count <= capacity else { return }
        base.storeBytes(of: id << 4 | UInt8(bytes.count - 1), toByteOffset: offset, as: UInt8.self)
        bytes.withUnsafeBytes { (base + offset + 1).copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        offset += 1 + bytes.count
    }

    /// An element holding the low `length` bytes of `value`, big-endian (abs-send-time: 3, the
    /// transport-wide sequence number: 2, the audio level: 1).
    mutating func append(id: UInt8, value: UInt32, length: Int) {
        guard (1...14).contains(id), (1...4).contains(length), offset + 1 + length <= capacity else { return }
        base.storeBytes(of: id << 4 | UInt8(length - 1), toByteOffset: offset, as: UInt8.self)
        for i in 0..<length {
            base.storeBytes(of: UInt8(truncatingIfNeeded: value >> (8 * (length - 1 - i))), toByteOffset: offset + 1 + i, as: UInt8.self)
        }
        offset += 1 + length
    }

    /// Pads to a word and writes the block's header; returns where the payload starts (`start`
    /// when there is no element: no block, and the X bit stays clear).
    mutating func finish() -> Int {
        guard !isEmpty else { return start }
        while (offset - start) % 4 != 0, offset < capacity {
            base.storeBytes(of: 0, toByteOffset: offset, as: UInt8.self)
            offset += 1
        }
        let words = UInt16((offset - start - 4) / 4)
        base.storeBytes(of: UInt16(0xBEDE).bigEndian, toByteOffset: start, as: UInt16.self)
        base.storeBytes(of: words.bigEndian, toByteOffset: start + 2, as: UInt16.self)
        return offset
    }
}
