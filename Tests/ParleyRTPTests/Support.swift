import ParleyRTP
import ParleySRTP
import RTCP
import RTP

/// Packets and sessions for the RTP session tests.
enum RTPTestSupport {
    static let opus = RTPPayloadFormat(payloadType: 111, kind: .audio, clockRate: 48_000, section: 0)
    static let event = RTPPayloadFormat(payloadType: 110, kind: .telephoneEvent, clockRate: 48_000, section: 0)
    static let vp8 = RTPPayloadFormat(payloadType: 96, kind: .video, clockRate: 90_000, section: 1)

    /// A plain-RTP session (a SIP leg without SRTP) with Opus, telephone events and VP8.
    static func plainSession(cname: String = "test", maxReceiveStreams: Int = 16) -> RTPSession {
        RTPSession(configuration: RTPSession.Configuration(cname: cname, requiresSRTP: false,
                                                           maxReceiveStreams: maxReceiveStreams),
                   payloadFormats: RTPPayloadFormats([opus, event, vp8]))
    }

    /// Two SRTP-keyed sessions whose keys mirror each other, as DTLS-SRTP gives them.
    static func keyedPair(_ profile: SRTPProfile = .aeadAES128GCM) throws -> (RTPSession, RTPSession) {
        let k1 = [UInt8](repeating: 0x11, count: profile.keyLength), s1 = [UInt8](repeating: 0x22, count: profile.saltLength)
        let k2 = [UInt8](repeating: 0x33, count: profile.keyLength), s2 = [UInt8](repeating: 0x44, count: profile.saltLength)
        var a = RTPSession(configuration: .init(cname: "alice"), payloadFormats: RTPPayloadFormats([opus, vp8]))
        var b = RTPSession(configuration: .init(cname: "bob"), payloadFormats: RTPPayloadFormats([opus, vp8]))
        a.setSRTP(try SRTPContext(keyingMaterial: SRTPKeyingMaterial(profile: profile, localKey: k1, localSalt: s1,
                                                                     remoteKey: k2, remoteSalt: s2)))
        b.setSRTP(try SRTPContext(keyingMaterial: SRTPKeyingMaterial(profile: profile, localKey: k2, localSalt: s2,
                                                                     remoteKey: k1, remoteSalt: s1)))
        return (a, b)
    }

    /// A 12-byte-header RTP packet with `payload` bytes, followed by room for an SRTP trailer.
    static func packet(pt: UInt8, seq: UInt16, ts: UInt32, ssrc: UInt32, marker: Bool = false,
                       payload: Int = 20) -> [UInt8] {
        var bytes = [UInt8](repeating: 0xAB, count: RTPFixedHeader.size + payload + SRTPContext.maxTrailerLength)
        bytes.withUnsafeMutableBytes {
            RTPFixedHeader.write(to: $0.baseAddress!, payloadType: pt, marker: marker, sequenceNumber: seq, timestamp: ts,
                                 ssrc: ssrc)
        }
        return bytes
    }

    /// `session.receiveRTP` on an array.
    static func receive(_ session: inout RTPSession, _ bytes: inout [UInt8], length: Int,
                        arrival: Double) throws(RTPSessionError) -> (ssrc: UInt32, format: RTPPayloadFormat?) {
        let result: Result<(UInt32, RTPPayloadFormat?), RTPSessionError> = bytes.withUnsafeMutableBytes { raw in
            do throws(RTPSessionError) {
                let packet = try session.receiveRTP(raw, length: length, arrival: arrival)
                return .success((packet.view.ssrc, packet.format))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// `session.protectRTP` on an array; the protected length.
    static func protect(_ session: RTPSession, _ bytes: inout [UInt8], length: Int) throws(RTPSessionError) -> Int {
        let result: Result<Int, RTPSessionError> = bytes.withUnsafeMutableBytes { raw in
            do throws(RTPSessionError) { return .success(try session.protectRTP(raw, length: length)) } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// `session.receiveRTCP` on a copy of `datagram`.
    static func receiveRTCP(_ session: inout RTPSession, _ datagram: [UInt8], arrival: Double,
                            arrivalNTP: UInt64) throws(RTPSessionError) -> RTCPReceiveSummary {
        var bytes = datagram
        let result: Result<RTCPReceiveSummary, RTPSessionError> = bytes.withUnsafeMutableBytes { raw in
            do throws(RTPSessionError) {
                return .success(try session.receiveRTCP(raw, length: datagram.count, arrival: arrival,
                                                        arrivalNTP: arrivalNTP))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// An NTP timestamp `seconds` after an arbitrary epoch (RFC 3550 §4: 32.32 fixed point).
    static func ntp(_ seconds: Double) -> UInt64 {
        let base: UInt64 = 3_900_000_000 << 32
        return base &+ UInt64(seconds * 4_294_967_296)
    }
}
