extension ICECandidate {
    /// The SDP `candidate` attribute value (RFC 8839 §5.1), without `a=`:
    ///
    ///     candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type>
    ///               [raddr <address> rport <port>] [tcptype <tcptype>]
    public var sdpAttributeValue: String {
        var text = "candidate:\(foundation) \(component) \(transport.rawValue) \(priority) "
            + "\(address.ipString) \(address.port) typ \(type.rawValue)"
        if let relatedAddress {
            text += " raddr \(relatedAddress.ipString) rport \(relatedAddress.port)"
        }
        if let tcpType { text += " tcptype \(tcpType.rawValue)" }
        return text
    }

    /// Parses an SDP `candidate` attribute (with or without `a=` and `candidate:`), as trickled
    /// by a browser. Unknown extension attributes (`generation`, `network-id`, …) are skipped.
    /// Nil for malformed text, an unknown transport or type, or an address that is not an IP
    /// literal (an mDNS `.local` name must be resolved by the caller first).
    public init?(sdpAttribute text: some StringProtocol) {
        var s = Substring(text)
        if s.hasPrefix("a=") { s = s.dropFirst(2) }
        if s.hasPrefix("candidate:") { s = s.dropFirst("candidate:".count) }
        let f = s.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" })
        guard f.count >= 8, f[6] == "typ", (1...32).contains(f[0].count),
              let component = UInt16(f[1]), (1...256).contains(component),
              let transport = ICETransportProtocol(rawValue: f[2].lowercased()),
              let priority = UInt32(f[3]), let port = UInt16(f[5]),
              let address = ICETransportAddress(f[4], port: port),
              let type = ICECandidateType(rawValue: String(f[7])) else { return nil }
        self.init(foundation: String(f[0]), component: component, transport: transport, priority: priority,
                  address: address, type: type)
        var rest = f[8...]
        var raddr: Substring?
        var rport: UInt16?
        while let name = rest.popFirst() {
            guard let value = rest.popFirst() else { return nil }  // extensions come in name/value pairs
            switch name {
            case "raddr": raddr = value
            case "rport": rport = UInt16(value)
            case "tcptype": tcpType = ICETCPType(rawValue: String(value))
            default: continue
            }
        }
        if let raddr, let rport { relatedAddress = ICETransportAddress(raddr, port: rport) }
    }
}
