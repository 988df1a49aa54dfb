/// Strict UTF-8 validation (RFC 3629 §4): no overlongs, surrogates, or code points above U+10FFFF.
public enum UTF8Validator {
    public static func isValid(_ bytes: some Collection<UInt8>) -> Bool {
        var it = bytes.makeIterator()
        while let b0 = it.next() {
            if b0 < 0x80 { continue }
            let count: Int
            var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
            switch b0 {
            case 0xC2...0xDF: count = 1
            case 0xE0: count = 2; lo = 0xA0
            case 0xE1...0xEC, 0xEE, 0xEF: count = 2
            case 0xED: count = 2; hi = 0x9F
            case 0xF0: count = 3; lo = 0x90
            case 0xF1...0xF3: count = 3
            case 0xF4: count = 3; hi = 0x8F
            default: return false
            }
            for i in 0..<count {
                guard let b = it.next() else { return false }
                if i == 0 { guard b >= lo && b <= hi else { return false } } else { guard b >= 0x80 && b <= 0xBF else { return false } }
            }
        }
        return true
    }
}
