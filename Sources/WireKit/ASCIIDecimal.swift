/// Unsigned decimal numbers written in ASCII (`1*DIGIT` in the text protocols' grammars: SDP,
/// SIP). No sign, no whitespace, no overflow.
public enum ASCIIDecimal {
    /// A non-empty run of ASCII digits as `T`, or nil on any other byte or when it does not fit.
    public static func parse<T: FixedWidthInteger & UnsignedInteger>(_ digits: some Collection<UInt8>, as type: T.Type = T.self) -> T? {
        guard !digits.isEmpty else { return nil }
        var value: T = 0
        for byte in digits {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.addingReportingOverflow(T(byte - 0x30))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return value
    }
}
