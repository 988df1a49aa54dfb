import COpenSSL
import ParleyCore

extension DTLSSession {
    /// Encrypts `plaintext` as one application-data record (e.g. an SCTP packet) and returns the
    /// datagram to send; empty unless connected.
    public func send(_ plaintext: [UInt8]) -> [[UInt8]] {
        guard case .connected = state, !plaintext.isEmpty else { return [] }
        ERR_clear_error()
        let written = plaintext.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32(clamping: $0.count)) }
        if written <= 0 { Log.debug(.webrtc, "DTLS write failed: \(openSSLErrors())") }
        return takeOutbox()
    }

    /// RFC 5705 keying material exporter without context (RFC 5764 §4.2 uses
    /// `EXTRACTOR-dtls_srtp`). Throws unless connected.
    public func exportKeyingMaterial(label: String, length: Int) throws(ParleyError) -> [UInt8] {
        guard case .connected = state, length > 0 else {
            throw ParleyError(.mediaDtlsTransportFailed, reason: "keying material needs a connected session")
        }
        var out = [UInt8](repeating: 0, count: length)
        let labelBytes = Array(label.utf8)
        let ok = out.withUnsafeMutableBufferPointer { buffer in
            labelBytes.withUnsafeBufferPointer { l in
                l.withMemoryRebound(to: CChar.self) { name in
                    SSL_export_keying_material(ssl, buffer.baseAddress, length, name.baseAddress, name.count,
                                               nil, 0, 0)
                }
            }
        }
        guard ok == 1 else { throw Self.failure("keying material export failed: \(openSSLErrors())") }
        return out
    }
}
