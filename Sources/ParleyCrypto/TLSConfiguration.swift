/// TLS settings for a listener or a client (TLS 1.2+ over OpenSSL).
public struct TLSConfiguration: Sendable, Hashable {
    /// PEM file with the certificate chain (leaf first). Required for servers.
    public var certificatePath: String?
    /// PEM file with the private key. Required for servers.
    public var privateKeyPath: String?
    /// Clients: verify the server's chain and name. Servers ignore this (no client certificates).
    public var verifyPeer: Bool
    /// PEM file of trusted roots for verification; nil uses the system store.
    public var trustRootsPath: String?
    /// ALPN protocol names (RFC 7301), most preferred first, e.g. `["h2"]`. Clients offer them;
    /// servers pick the first of theirs the client offered. Empty (the default) leaves ALPN off.
    public var alpnProtocols: [String]

    public init(certificatePath: String? = nil, privateKeyPath: String? = nil, verifyPeer: Bool = true,
                trustRootsPath: String? = nil, alpnProtocols: [String] = []) {
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
        self.verifyPeer = verifyPeer
        self.trustRootsPath = trustRootsPath
        self.alpnProtocols = alpnProtocols
    }

    /// A server configuration from PEM files.
    public static func server(certificatePath: String, privateKeyPath: String) -> TLSConfiguration {
        TLSConfiguration(certificatePath: certificatePath, privateKeyPath: privateKeyPath)
    }

    /// A client configuration; pass `trustRootsPath` to trust a private CA or self-signed certificate.
    public static func client(verifyPeer: Bool = true, trustRootsPath: String? = nil,
                              alpnProtocols: [String] = []) -> TLSConfiguration {
        TLSConfiguration(verifyPeer: verifyPeer, trustRootsPath: trustRootsPath, alpnProtocols: alpnProtocols)
    }

    /// The ALPN protocol list in wire format (RFC 7301 §3.1): each name prefixed by its length.
    /// Names that are empty or longer than 255 octets are skipped.
    public var alpnWireFormat: [UInt8] {
        var out: [UInt8] = []
        for name in alpnProtocols where (1...255).contains(name.utf8.count) {
            out.append(UInt8(name.utf8.count))
            out.append(contentsOf: name.utf8)
        }
        return out
    }
}

/// A TLS failure, with OpenSSL's error queue rendered as text.
public struct TLSError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { "TLS: \(message)" }
}
