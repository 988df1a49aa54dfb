import WireKit

/// Where serialization writes: a growable `ByteWriter` or a caller's fixed buffer. Internal, so
/// one generic serializer is specialized for both without existential overhead.
protocol RTPByteSink {
    mutating func put8(_ v: UInt8)
    mutating func put16(_ v: UInt16)
    mutating func put32(_ v: UInt32)
    mutating func put(_ bytes: [UInt8])
    mutating func putZeros(_ count: Int)
}

extension ByteWriter: RTPByteSink {
    mutating func put8(_ v: UInt8) { writeUInt8(v) }
    mutating func put16(_ v: UInt16) { writeUInt16(v) }
    mutating func put32(_ v: UInt32) { writeUInt32(v) }
    mutating func put(_ bytes: [UInt8]) { writeBytes(bytes) }
    mutating func putZeros(_ count: Int) { writeZeros(count) }
}

/// Writes into a buffer whose size the caller checked against `serializedSize` beforehand.
struct RTPBufferCursor: RTPByteSink {
    let buffer: UnsafeMutableRawBufferPointer
    var offset: Int

    mutating func put8(_ v: UInt8) {
        buffer[offset] = v
        offset += 1
    }

    mutating func put16(_ v: UInt16) {
        RTPBytes.store16(v, buffer, offset)
        offset += 2
    }

    mutating func put32(_ v: UInt32) {
        RTPBytes.store32(v, buffer, offset)
        offset += 4
    }

    mutating func put(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        bytes.withUnsafeBytes { src in
            UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + src.count]).copyMemory(from: src)
        }
        offset += bytes.count
    }

    mutating func putZeros(_ count: Int) {
        guard count > 0 else { return }
        UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + count]).initializeMemory(as: UInt8.self, repeating: 0)
        offset += count
    }
}
