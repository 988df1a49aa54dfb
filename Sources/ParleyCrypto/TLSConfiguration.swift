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

    public init(certificatePath: String? = nil, privateKeyPath: String? = nil, verifyPeer: Bool = true,
                trustRootsPath: String? = nil) {
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
        self.verifyPeer = verifyPeer
        self.trustRootsPath = trustRootsPath
    }

    /// A server configuration from PEM files.
    public static func server(certificatePath: String, privateKeyPath: String) -> TLSConfiguration {
        TLSConfiguration(certificatePath: certificatePath, privateKeyPath: privateKeyPath)
    }

    /// A client configuration; pass `trustRootsPath` to trust a private CA or self-signed certificate.
    public static func client(verifyPeer: Bool = true, trustRootsPath: String? = nil) -> TLSConfiguration {
        TLSConfiguration(verifyPeer: verifyPeer, trustRootsPath: trustRootsPath)
    }
}

/// A TLS failure, with OpenSSL's error queue rendered as text.
public struct TLSError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { "TLS: \(message)" }
}
