/// Splits VP8 frames into RTP payloads (RFC 7741 §4.4): each payload starts with a descriptor
/// carrying a 15-bit picture ID (one per frame), the first has S set with partition index 0, and
/// the sender sets the RTP marker bit on the last (`packetize` says which).
public struct VP8Packetizer: Sendable {
    /// The picture ID the next frame gets (15 bits, wrapping).
    public var nextPictureID: UInt16

    public init(firstPictureID: UInt16 = 0) { nextPictureID = firstPictureID & 0x7FFF }

    /// The payloads of one frame, at most `maxPayloadSize` bytes each (descriptor included).
    public mutating func packetize(_ frame: [UInt8], maxPayloadSize: Int = 1200) -> [[UInt8]] {
        var descriptor = VP8PayloadDescriptor(isStartOfPartition: true, pictureID: nextPictureID, hasLongPictureID: true)
        nextPictureID = (nextPictureID &+ 1) & 0x7FFF
        let room = max(1, maxPayloadSize - descriptor.serializedSize)
        var payloads: [[UInt8]] = []
        var offset = 0
        repeat {
            let end = min(frame.count, offset + room)
            var payload: [UInt8] = []
            payload.reserveCapacity(descriptor.serializedSize + end - offset)
            descriptor.serialize(into: &payload)
            payload += frame[offset..<end]
            payloads.append(payload)
            descriptor.isStartOfPartition = false
            offset = end
        } while offset < frame.count
        return payloads
    }
}

/// A VP8 frame put back together from its RTP payloads.
public struct VP8AssembledFrame: Sendable, Equatable {
    public var data: [UInt8]
    public var timestamp: UInt32
    public var pictureID: UInt16?
    public var isKeyFrame: Bool
}

/// Puts VP8 frames back together from RTP packets given in sequence-number order (after a jitter
/// buffer): payloads of one timestamp from a frame start (S, partition 0) to the marker bit. A gap
/// inside a frame drops that frame (the decoder then waits for a key frame, or asks for one).
public struct VP8Depacketizer: Sendable {
    private var parts: [UInt8] = []
    private var current: (timestamp: UInt32, pictureID: UInt16?, nextSequence: UInt16)?
    /// Frames dropped for a missing packet.
    public private(set) var droppedFrames = 0
    /// Longest frame accepted, in bytes (a 4K key frame is well under this).
    public static let maxFrameBytes = 4 * 1024 * 1024

    public init() {}

    /// One packet's payload; the frame once its last packet (the marker) is in.
    public mutating func push(sequenceNumber: UInt16, timestamp: UInt32, marker: Bool,
                              payload: ArraySlice<UInt8>) throws(VP8ParseError) -> VP8AssembledFrame? {
        let descriptor = try VP8PayloadDescriptor(parsing: payload)
        let body = payload.dropFirst(descriptor.serializedSize)
        if descriptor.startsFrame {
            if current != nil { droppedFrames += 1 }  // the previous frame never saw its marker
            parts = []
            current = (timestamp, descriptor.pictureID, sequenceNumber)
        }
        guard let frame = current, frame.timestamp == timestamp, frame.nextSequence == sequenceNumber,
              parts.count + body.count <= Self.maxFrameBytes else {
            if current != nil { droppedFrames += 1 }
            current = nil
            parts = []
            return nil
        }
        parts += body
        current?.nextSequence = sequenceNumber &+ 1
        guard marker else { return nil }
        current = nil
        let data = parts
        parts = []
        let header = try? VP8FrameHeader(parsing: data[...])
        return VP8AssembledFrame(data: data, timestamp: timestamp, pictureID: frame.pictureID, isKeyFrame: header?.isKeyFrame ?? false)
    }
}
