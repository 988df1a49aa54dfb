/// In-place SRTP and SRTCP protection of one session (RFC 3711 §3.3, §3.4), as `SRTPContext`
/// (OpenSSL) and `LibSRTPContext` (libsrtp2) both provide it. Each call works on a caller-owned
/// buffer whose spare room after the packet holds the trailer, and returns the new length.
public protocol SRTPPacketProtection: AnyObject {
    /// Protects the RTP packet in `buffer[0..<length]` and returns the SRTP length.
    func protect(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int
    /// Verifies and decrypts the SRTP packet in `buffer[0..<length]` and returns the RTP length.
    func unprotect(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int
    /// Protects the compound RTCP packet in `buffer[0..<length]` and returns the SRTCP length.
    func protectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int
    /// Verifies and decrypts the SRTCP packet in `buffer[0..<length]` and returns the RTCP length.
    func unprotectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int
}

extension SRTPPacketProtection {
    /// `protect(_:length:)` on an array whose `count` already includes the spare trailer room
    /// (allocate it once and reuse it; this call does not allocate when the array is unique).
    public func protect(_ buffer: inout [UInt8], length: Int) throws(SRTPError) -> Int {
        try withRaw(&buffer) { (raw) throws(SRTPError) in try protect(raw, length: length) }
    }

    /// `unprotect(_:length:)` on an array.
    public func unprotect(_ buffer: inout [UInt8], length: Int) throws(SRTPError) -> Int {
        try withRaw(&buffer) { (raw) throws(SRTPError) in try unprotect(raw, length: length) }
    }

    /// `protectRTCP(_:length:)` on an array with the RTCP trailer's spare bytes.
    public func protectRTCP(_ buffer: inout [UInt8], length: Int) throws(SRTPError) -> Int {
        try withRaw(&buffer) { (raw) throws(SRTPError) in try protectRTCP(raw, length: length) }
    }

    /// `unprotectRTCP(_:length:)` on an array.
    public func unprotectRTCP(_ buffer: inout [UInt8], length: Int) throws(SRTPError) -> Int {
        try withRaw(&buffer) { (raw) throws(SRTPError) in try unprotectRTCP(raw, length: length) }
    }

    private func withRaw(_ buffer: inout [UInt8],
                         _ body: (UnsafeMutableRawBufferPointer) throws(SRTPError) -> Int) throws(SRTPError) -> Int {
        let result: Result<Int, SRTPError> = buffer.withUnsafeMutableBytes { raw in
            do throws(SRTPError) { return .success(try body(raw)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
