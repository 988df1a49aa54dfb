import COpenSSL

/// SRTP (RFC 3711 §3.3, §3.4; RFC 7714 §8).
extension SRTPContext {
    /// Protects the RTP packet in `buffer[0..<length]` in place (RFC 3711 §3.3) and returns the new
    /// length. Needs `length + maxTrailerLength <= buffer.count`.
    public func protect(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try validate(buffer, length: length, minimum: 12, trailer: Self.maxTrailerLength)
        guard let headerLength = buffer.rtpHeaderLength(packetLength: length) else { throw .badParameter }
        let sequence = buffer.bigEndian16(at: 2), ssrc = buffer.bigEndian32(at: 8)
        let position = sent.positionCreating(ssrc)
        let highest = sent.streams[position].highestSent
        let index = SRTPStreamTable.estimateIndex(sequence: sequence, highest: highest) ?? UInt64(sequence)
        if highest.map({ index > $0 }) ?? true { sent.streams[position].highestSent = index }
        let ok = transformRTP(outbound, buffer, length: length, headerLength: headerLength, ssrc: ssrc, index: index,
                              sealing: true)
        guard ok else { throw .badParameter }
        return length + (profile == .aeadAES128GCM ? AESGCM.tagLength : Self.cmTagLength)
    }

    /// Verifies and decrypts the SRTP packet in `buffer[0..<length]` in place (RFC 3711 §3.4) and
    /// returns the RTP length. Throws on replay or authentication failure; state changes only
    /// for packets that authenticate.
    public func unprotect(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try validate(buffer, length: length, minimum: 12, trailer: 0)
        guard let headerLength = buffer.rtpHeaderLength(packetLength: length) else { throw .badParameter }
        let tagLength = profile == .aeadAES128GCM ? AESGCM.tagLength : Self.cmTagLength
        guard length - tagLength >= headerLength else { throw .badParameter }
        let sequence = buffer.bigEndian16(at: 2), ssrc = buffer.bigEndian32(at: 8)
        let known = received.position(of: ssrc)
        let highest = known.flatMap { received.streams[$0].rtpWindow.highest }
        guard let index = SRTPStreamTable.estimateIndex(sequence: sequence, highest: highest) else { throw .replayOld }
        if let known {
            switch received.streams[known].rtpWindow.check(index) {
            case .fresh: break
            case .tooOld: throw .replayOld
            case .repeated: throw .replayFailed
            }
        }
        let body = length - tagLength
        guard transformRTP(inbound, buffer, length: body, headerLength: headerLength, ssrc: ssrc, index: index,
                           sealing: false) else { throw .authenticationFailed }
        received.streams[received.positionCreating(ssrc)].rtpWindow.accept(index)
        return body
    }

    /// Encrypts and tags `buffer[0..<length]` (sealing), or checks the tag that follows it and decrypts.
    private func transformRTP(_ crypto: SRTPDirectionCrypto, _ buffer: UnsafeMutableRawBufferPointer, length: Int,
                              headerLength: Int, ssrc: UInt32, index: UInt64, sealing: Bool) -> Bool {
        let base = buffer.baseAddress!
        let payload = UnsafeMutableRawBufferPointer(rebasing: buffer[headerLength..<length])
        if let gcm = crypto.rtpGCM {
            // RFC 7714 §8.1: IV = (00 00 ‖ SSRC ‖ ROC ‖ SEQ) XOR salt; AAD = the RTP header.
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 12) { iv in
                fillSRTPIV(iv, salt: crypto.rtpSalt, ssrc: ssrc, ssrcOffset: 2, index: index, indexBytes: 6, indexEnd: 12)
                let header = UnsafeRawBufferPointer(start: base, count: headerLength)
                return sealing
                    ? gcm.seal(iv: UnsafePointer(iv.baseAddress!), aad: header, text: payload, tag: base + length)
                    : gcm.open(iv: UnsafePointer(iv.baseAddress!), aad: header, text: payload, tag: base + length)
            }
        }
        guard let counter = crypto.rtpCounter, let authentication = crypto.rtpAuthentication else { return false }
        let authenticated = UnsafeRawBufferPointer(start: base, count: length)
        let roc = UInt32(truncatingIfNeeded: index >> 16)
        if sealing {
            guard Self.applyCounter(counter, salt: crypto.rtpSalt, ssrc: ssrc, index: index, to: payload) else { return false }
            Self.tag(authentication, authenticated, roc: roc, into: base + length)
            return true
        }
        guard Self.verify(authentication, authenticated, roc: roc, tag: base + length) else { return false }
        return Self.applyCounter(counter, salt: crypto.rtpSalt, ssrc: ssrc, index: index, to: payload)
    }

    /// AES-CM keystream for one packet (RFC 3711 §4.1.1): IV = (salt · 2^16) XOR (SSRC · 2^64)
    /// XOR (index · 2^16), the index being ROC ‖ SEQ for SRTP or the SRTCP index.
    static func applyCounter(_ counter: AESCounterMode, salt: [UInt8], ssrc: UInt32, index: UInt64,
                             to bytes: UnsafeMutableRawBufferPointer) -> Bool {
        guard let start = bytes.baseAddress, bytes.count > 0 else { return true }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { iv in
            fillSRTPIV(iv, salt: salt, ssrc: ssrc, ssrcOffset: 4, index: index, indexBytes: 6, indexEnd: 14)
            return counter.apply(iv: UnsafePointer(iv.baseAddress!), to: start.assumingMemoryBound(to: UInt8.self),
                                 count: bytes.count)
        }
    }

    /// HMAC-SHA1-80 of `message` ‖ ROC (RFC 3711 §4.2: the ROC is appended for SRTP only).
    static func tag(_ authentication: HMACSHA1, _ message: UnsafeRawBufferPointer, roc: UInt32?,
                    into tag: UnsafeMutableRawPointer) {
        var suffix = (roc ?? 0).bigEndian
        withUnsafeBytes(of: &suffix) { suffix in
            authentication.authenticate(message, suffix: roc == nil ? UnsafeRawBufferPointer(start: nil, count: 0) : suffix,
                                        count: cmTagLength, into: tag)
        }
    }

    /// Whether the tag at `tag` is the one for `message` (compared in constant time).
    static func verify(_ authentication: HMACSHA1, _ message: UnsafeRawBufferPointer, roc: UInt32?,
                       tag received: UnsafeRawPointer) -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: cmTagLength) { expected in
            tag(authentication, message, roc: roc, into: UnsafeMutableRawPointer(expected.baseAddress!))
            return CRYPTO_memcmp(expected.baseAddress, received, cmTagLength) == 0
        }
    }
}
