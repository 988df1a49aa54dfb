/// One RTP packet an `AudioEngine` sends: the header fields (RFC 3550 §5.1) and the payload, which
/// lives in the engine's own buffer and is valid only during `AudioEnginePacketSink.send`.
public struct AudioEnginePacket {
    public let payloadType: UInt8
    public let sequenceNumber: UInt16
    public let timestamp: UInt32
    public let ssrc: UInt32
    /// Set on the first packet of a talkspurt and of a telephone event (RFC 3551 §4.1, RFC 4733 §2.5.1.1).
    public let marker: Bool
    /// The codec payload, a RED payload (RFC 2198) or a telephone event (RFC 4733).
    public let payload: UnsafeBufferPointer<UInt8>
    /// Whether this is a telephone event rather than audio.
    public let isTelephoneEvent: Bool

    /// Size of the packet with the 12-byte fixed header (no CSRCs, no extension).
    public var serializedSize: Int { 12 + payload.count }

    /// Writes the fixed header (version 2, no padding, extension or CSRCs) and the payload into
    /// `buffer`; returns the bytes written, or nil when the buffer is too small. Allocates nothing.
    public func serialize(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        guard buffer.count >= serializedSize else { return nil }
        buffer[0] = 0x80
        buffer[1] = (marker ? 0x80 : 0) | (payloadType & 0x7F)
        buffer[2] = UInt8(truncatingIfNeeded: sequenceNumber >> 8)
        buffer[3] = UInt8(truncatingIfNeeded: sequenceNumber)
        for i in 0..<4 {
            buffer[4 + i] = UInt8(truncatingIfNeeded: timestamp >> (24 - 8 * i))
            buffer[8 + i] = UInt8(truncatingIfNeeded: ssrc >> (24 - 8 * i))
        }
        for i in 0..<payload.count { buffer[12 + i] = payload[i] }
        return serializedSize
    }
}

/// Where an `AudioEngine` hands its outgoing RTP: the transport (a `PeerConnection`, a test's
/// network model). Called on the capture device's thread with the engine's send-side lock held,
/// so it must not block, and must not call the same engine's `start`, `stop` or send-side API
/// (`isMuted`, `isOnHold`, `sendDigits`, `reportRemoteLoss`, `statistics`, …) synchronously.
public protocol AudioEnginePacketSink: AnyObject, Sendable {
    /// Takes one packet; copy `packet.payload` if it is needed after returning.
    func send(_ packet: AudioEnginePacket)
}

/// What an `AudioEngine` reports besides audio. Called on the thread that called
/// `AudioEngine.receive` (the network thread), or from `stop()`, with no engine lock held.
public protocol AudioEngineDelegate: AnyObject, Sendable {
    /// A key began or ended in the received telephone events (RFC 4733 §2.5.2); each key is
    /// reported once as `.began` and once as `.ended`.
    func audioEngine(_ engine: AudioEngine, didReceive event: DTMFReceiverEvent)
}
