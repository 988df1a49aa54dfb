import COpenSSL

/// Comparison whose running time does not depend on where two secrets differ.
public enum ConstantTime {
    /// True if `a` and `b` are equal. Time depends on the lengths only (lengths are not secret for
    /// MACs of a fixed algorithm), never on the contents.
    public static func equals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        let x = Array(a), y = Array(b)
        guard x.count == y.count else { return false }
        if x.isEmpty { return true }
        return x.withUnsafeBytes { p in
            y.withUnsafeBytes { q in CRYPTO_memcmp(p.baseAddress, q.baseAddress, x.count) == 0 }
        }
    }
}
