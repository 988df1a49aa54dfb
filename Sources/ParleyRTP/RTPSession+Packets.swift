import ParleySRTP
import RTP

/// A received packet once unprotected and recorded: a view of it in the caller's buffer (valid
/// while the buffer is) and the format of its payload type, if negotiated.
public struct RTPReceivedPacket {
    public let view: RTPPacketView
    public let format: RTPPayloadFormat?
}

extension RTPSession {
    /// Bytes a packet may grow by when protected.
    public var trailerLength: Int { srtp == nil ? 0 : SRTPContext.maxTrailerLength }

    /// Unprotects the packet in `buffer[0..<length]` in place (SRTP, RFC 3711 §3.4), validates it
    /// and records it on the receive stream of its SSRC (RFC 3550 A.1, A.3, A.8).
    public mutating func receiveRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int,
                                    arrival: Double) throws(RTPSessionError) -> RTPReceivedPacket {
        guard length <= buffer.count else { throw .tooLarge(needed: length, available: buffer.count) }
        var plain = length
        if let srtp {
            do { plain = try srtp.unprotect(buffer, length: length) } catch { throw .srtp(error) }
        } else if configuration.requiresSRTP {
            throw .notKeyed
        }
        let view: RTPPacketView
        do { view = try RTPPacketView(UnsafeRawBufferPointer(rebasing: buffer[0..<plain])) } catch {
            throw .malformedRTP(error)
        }
        let index = receiveStreamIndex(ssrc: view.ssrc, payloadType: view.payloadType, arrival: arrival)
        receiveStreams[index].record(sequence: view.sequenceNumber, timestamp: view.timestamp,
                                     payloadBytes: view.payloadRange.count, arrival: arrival)
        return RTPReceivedPacket(view: view, format: payloadFormats[view.payloadType])
    }

    /// Protects the RTP packet in `buffer[0..<length]` in place (SRTP, RFC 3711 §3.3; unchanged for
    /// plain RTP) and returns its length on the wire. The buffer needs `trailerLength` spare bytes.
    public func protectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(RTPSessionError) -> Int {
        guard let srtp else {
            if configuration.requiresSRTP { throw .notKeyed }
            return length
        }
        do { return try srtp.protect(buffer, length: length) } catch { throw .srtp(error) }
    }

    /// Sender state (RFC 3550 §6.4.1) after a packet with `timestamp` went out on send stream `stream`.
    public mutating func noteSent(stream: Int, timestamp: UInt32, payloadBytes: Int, now: Double) {
        guard stream >= 0, stream < sendStreams.count else { return }
        sendStreams[stream].noteSent(timestamp: timestamp, payloadBytes: payloadBytes, now: now)
    }
}

/// The 12-byte fixed RTP header (RFC 3550 §5.1) with no CSRCs, extension or padding.
public enum RTPFixedHeader {
    public static let size = 12

    /// Writes the header at `base`, which must have `size` writable bytes.
    public static func write(to base: UnsafeMutableRawPointer, payloadType: UInt8, marker: Bool,
                             sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32) {
        base.storeBytes(of: 0x80, as: UInt8.self)  // V=2, no padding, extension or CSRC
        base.storeBytes(of: (marker ? 0x80 : 0) | (payloadType & 0x7F), toByteOffset: 1, as: UInt8.self)
        base.storeBytes(of: sequenceNumber.bigEndian, toByteOffset: 2, as: UInt16.self)
        base.storeBytes(of: timestamp.bigEndian, toByteOffset: 4, as: UInt32.self)
        base.storeBytes(of: ssrc.bigEndian, toByteOffset: 8, as: UInt32.self)
    }
}
