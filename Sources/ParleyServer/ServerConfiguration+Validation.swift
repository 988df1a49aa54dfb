import ParleyNet
import TwiML

/// Checks of flag values that would otherwise start a server that fails later, quietly:
/// `parse` ends with `validate()`.
extension ServerConfiguration {
    /// Throws the first mistake in `--public-url` and `--media-advertise`.
    func validate() throws(ConfigurationError) {
        if let publicURL { try Self.validatePublicURL(publicURL) }
        try Self.validateAdvertisedHosts(mediaAdvertisedHosts, mediaHost: mediaHost)
        try validateTraversal()
        if sipTLSHost != nil, tlsCertificatePath == nil || tlsPrivateKeyPath == nil {
            throw ConfigurationError(message: "--sip-tls needs --tls-cert and --tls-key")
        }
    }

    /// `a,b,c` → `["a", "b", "c"]`, empty items kept (validation names them).
    static func commaList(_ value: String) -> [String] {
        value.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }

    /// An absolute `http` or `https` URL (RFC 3986 §3): a host (name, IPv4, or `[IPv6]`), an
    /// optional port, an optional path; no user info, query or fragment. A trailing slash is fine.
    static func validatePublicURL(_ text: String) throws(ConfigurationError) {
        func refuse(_ why: String) -> ConfigurationError {
            ConfigurationError(message: "--public-url wants an absolute http(s) URL such as https://voice.example.com, "
                                        + "got \(text): \(why)")
        }
        let uri = URIReference(text)
        guard let scheme = uri.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw refuse("the scheme must be http or https")
        }
        guard let authority = uri.authority, !authority.isEmpty else { throw refuse("no host") }
        guard uri.query == nil, uri.fragment == nil else { throw refuse("no query or fragment allowed") }
        guard !authority.contains("@") else { throw refuse("no user info allowed") }
        let host: Substring
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw refuse("unclosed [IPv6] host") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            guard NetworkInterfaces.isIPLiteral(String(host)), host.contains(":") else { throw refuse("bad IPv6 host") }
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw refuse("junk after the IPv6 host") }
                port = after.dropFirst()
            }
        } else {
            let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            host = parts[0]
            port = parts.count > 1 ? parts[1] : nil
            let hostCharacters = host.unicodeScalars.allSatisfy { $0.isASCII && (isAlphanumeric($0) || "-.".unicodeScalars.contains($0)) }
            guard !host.isEmpty, hostCharacters, !host.hasPrefix("."), !host.hasPrefix("-") else {
                throw refuse("bad host \(host)")
            }
        }
        if let port {
            guard let number = Int(port), port.allSatisfy(\.isASCII), (1...65535).contains(number) else {
                throw refuse("bad port \(port)")
            }
        }
        // RFC 3986 pchar, "/" and percent escapes.
        let pathCharacters = "-._~!$&'()*+,;=:@/%".unicodeScalars
        guard uri.path.unicodeScalars.allSatisfy({ $0.isASCII && (isAlphanumeric($0) || pathCharacters.contains($0)) }) else {
            throw refuse("the path has characters a URL cannot carry unescaped")
        }
    }

    /// Each an IPv4 or IPv6 literal, not a wildcard; an IPv4 `--media` socket cannot be reached at
    /// an IPv6 address.
    static func validateAdvertisedHosts(_ hosts: [String], mediaHost: String) throws(ConfigurationError) {
        let boundIPv4 = !mediaHost.contains(":")
        for host in hosts {
            guard NetworkInterfaces.isIPLiteral(host), !NetworkInterfaces.isUnspecified(host) else {
                throw ConfigurationError(message: "--media-advertise wants IP addresses (IPv4 or IPv6, comma-separated), "
                                                  + "got \"\(host)\"")
            }
            if boundIPv4, host.contains(":") {
                throw ConfigurationError(message: "--media-advertise \(host) is IPv6 but --media binds IPv4 (\(mediaHost))")
            }
        }
    }

    private static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }
}
