/// SRTCP (RFC 3711 §3.4; RFC 7714 §9). The trailer carries E ‖ SRTCP index (31 bits); AES-CM
/// places it before the 10-byte tag, GCM after its 16-byte tag.
extension SRTPContext {
    private static let encryptedFlag: UInt32 = 0x8000_0000

    /// Protects the compound RTCP packet in `buffer[0..<length]` in place (RFC 3711 §3.4) and returns
    /// the new length. Needs `length + maxRTCPTrailerLength <= buffer.count`.
    public func protectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try validate(buffer, length: length, minimum: 8, trailer: Self.maxRTCPTrailerLength)
        guard buffer[0] >> 6 == 2 else { throw .badParameter }
        let ssrc = buffer.bigEndian32(at: 4)
        let position = sent.positionCreating(ssrc)
        // §9.2: the index must not wrap under one master key.
        guard sent.streams[position].rtcpSent < 0x7FFF_FFFF else { throw .keyLimitReached }
        sent.streams[position].rtcpSent += 1
        let index = sent.streams[position].rtcpSent
        let base = buffer.baseAddress!
        let body = UnsafeMutableRawBufferPointer(rebasing: buffer[8..<length])
        if let gcm = outbound.rtcpGCM {
            // RFC 7714 §9.1: tag, then E ‖ index, which is also authenticated after the header.
            buffer.storeBigEndian32(Self.encryptedFlag | index, at: length + AESGCM.tagLength)
            let sealed = withGCMIV(outbound, ssrc: ssrc, index: index) { iv in
                gcm.seal(iv: iv, aad: UnsafeRawBufferPointer(start: base, count: 8),
                         moreAAD: UnsafeRawBufferPointer(start: base + length + AESGCM.tagLength, count: 4),
                         text: body, tag: base + length)
            }
            guard sealed else { throw .badParameter }
            return length + AESGCM.tagLength + 4
        }
        guard let counter = outbound.rtcpCounter, let authentication = outbound.rtcpAuthentication,
              Self.applyCounter(counter, salt: outbound.rtcpSalt, ssrc: ssrc, index: UInt64(index), to: body)
        else { throw .badParameter }
        buffer.storeBigEndian32(Self.encryptedFlag | index, at: length)
        Self.tag(authentication, UnsafeRawBufferPointer(start: base, count: length + 4), roc: nil, into: base + length + 4)
        return length + 4 + Self.cmTagLength
    }

    /// Verifies and decrypts the SRTCP packet in `buffer[0..<length]` in place and returns the RTCP length.
    public func unprotectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try validate(buffer, length: length, minimum: 8, trailer: 0)
        let isGCM = profile == .aeadAES128GCM
        let tagLength = isGCM ? AESGCM.tagLength : Self.cmTagLength
        guard length >= 8 + 4 + tagLength, buffer[0] >> 6 == 2 else { throw .badParameter }
        let indexOffset = isGCM ? length - 4 : length - tagLength - 4
        let end = isGCM ? length - 4 - tagLength : indexOffset  // end of the RTCP packet proper
        let word = buffer.bigEndian32(at: indexOffset)
        let index = word & ~Self.encryptedFlag, encrypted = word & Self.encryptedFlag != 0
        let ssrc = buffer.bigEndian32(at: 4)
        let known = received.position(of: ssrc)
        if let known {
            switch received.streams[known].rtcpWindow.check(UInt64(index)) {
            case .fresh: break
            case .tooOld: throw .replayOld
            case .repeated: throw .replayFailed
            }
        }
        let base = buffer.baseAddress!
        let body = UnsafeMutableRawBufferPointer(rebasing: buffer[8..<(encrypted ? end : 8)])
        if let gcm = inbound.rtcpGCM {
            // §9.2: without E, the whole packet is associated data and nothing is encrypted.
            let aad = UnsafeRawBufferPointer(start: base, count: encrypted ? 8 : end)
            let opened = withGCMIV(inbound, ssrc: ssrc, index: index) { iv in
                gcm.open(iv: iv, aad: aad, moreAAD: UnsafeRawBufferPointer(start: base + indexOffset, count: 4),
                         text: body, tag: base + end)
            }
            guard opened else { throw .authenticationFailed }
        } else {
            guard let counter = inbound.rtcpCounter, let authentication = inbound.rtcpAuthentication else {
                throw .badParameter
            }
            guard Self.verify(authentication, UnsafeRawBufferPointer(start: base, count: indexOffset + 4), roc: nil,
                              tag: base + indexOffset + 4) else { throw .authenticationFailed }
            guard Self.applyCounter(counter, salt: inbound.rtcpSalt, ssrc: ssrc, index: UInt64(index), to: body) else {
                throw .badParameter
            }
        }
        received.streams[received.positionCreating(ssrc)].rtcpWindow.accept(UInt64(index))
        return end
    }

    /// RFC 7714 §9.1: IV = (00 00 ‖ SSRC ‖ 00 00 ‖ 0 ‖ SRTCP index) XOR salt.
    private func withGCMIV(_ crypto: SRTPDirectionCrypto, ssrc: UInt32, index: UInt32,
                           _ body: (UnsafePointer<UInt8>) -> Bool) -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 12) { iv in
            fillSRTPIV(iv, salt: crypto.rtcpSalt, ssrc: ssrc, ssrcOffset: 2, index: UInt64(index), indexBytes: 4,
                       indexEnd: 12)
            return body(UnsafePointer(iv.baseAddress!))
        }
    }
}
