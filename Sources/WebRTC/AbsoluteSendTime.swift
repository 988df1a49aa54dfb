import ParleyRTP
import RTP

/// The abs-send-time header extension (webrtc.org/experiments/rtp-hdrext/abs-send-time): when a
/// packet left, 24 bits of seconds in 6.18 fixed point (wrapping every 64 s). A receiver's
/// delay-based bandwidth estimator (libwebrtc's, aiortc's) reads it and sends its estimate back
/// in REMB, which room subscribers' allocation uses.
enum AbsoluteSendTime {
    /// The 24-bit value for `seconds` of a monotonic clock.
    static func value(seconds: Double) -> UInt32 {
        UInt32(truncatingIfNeeded: Int64(seconds * 262_144)) & 0xFF_FFFF
    }

    /// Copies `packet` into `slot` with its header extension replaced by one element, abs-send-time
    /// `id` = `value` (RFC 8285 §4.2 one-byte form): fixed header and CSRCs, the extension block,
    /// then payload and padding. The length written and where the payload now sits; nil when it
    /// does not fit.
    static func copy(_ packet: RTPPacketView, into slot: UnsafeMutableRawBufferPointer, id: UInt8,
                     value time: UInt32) -> (length: Int, payload: Range<Int>)? {
        let header = RTPFixedHeader.size + 4 * packet.csrcCount
        let tail = packet.payloadRange.lowerBound..<packet.bytes.count
        let payloadStart = header + 8
        let length = payloadStart + tail.count
        guard length <= slot.count, let base = slot.baseAddress, let source = packet.bytes.baseAddress else { return nil }
        base.copyMemory(from: source, byteCount: header)
        slot[0] |= 0x10  // X: an extension follows
        let block: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0xBE, 0xDE, 0, 1, id << 4 | 2, UInt8(time >> 16), UInt8(truncatingIfNeeded: time >> 8), UInt8(truncatingIfNeeded: time))
        withUnsafeBytes(of: block) { (base + header).copyMemory(from: $0.baseAddress!, byteCount: 8) }
        if !tail.isEmpty { (base + payloadStart).copyMemory(from: source + tail.lowerBound, byteCount: tail.count) }
        return (length, payloadStart..<(payloadStart + packet.payloadRange.count))
    }
}
