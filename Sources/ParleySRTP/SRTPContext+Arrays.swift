extension SRTPContext {
    /// `protect(_:length:)` on an array whose `count` already includes the spare trailer room
    /// (allocate it once and reuse it; this call does not allocate when the array is unique).
    public func protect(_ buffer: inout [UInt8], length: Int) throws(SRTPError) -> Int {
        try withRaw(&buffer) { (raw) throws(SRTPError) in try protect(raw, length: length) }
    }

    /// `unprotect(_:length:)` on an array.
    public func unprotect(_ buffer: inout [UInt8], length: Int) throws(SRTPError) -> Int {
        try withRaw(&buffer) { (raw) throws(SRTPError) in try unprotect(raw, length: length) }
    }

    /// `protectRTCP(_:length:)` on an array with `maxRTCPTrailerLength` spare bytes.
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
